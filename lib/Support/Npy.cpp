//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The format (numpy.lib.format): the magic "\x93NUMPY", a major and a minor
// version byte, the header length (uint16 LE for 1.x, uint32 LE for 2.x and
// 3.x), then the header: the repr of a Python dict with the keys 'descr',
// 'fortran_order' and 'shape', padded with spaces and ended by '\n'. The raw
// element bytes follow.
//
// Input is untrusted: every length is checked before use, shape products use
// checked arithmetic, and nothing is read past the given buffer.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/Npy.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

namespace stride {

// HostArray data is little-endian and is copied to and from files as is.
static_assert(std::endian::native == std::endian::little,
              "Npy.cpp assumes a little-endian host");

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
/// Magic plus the two version bytes (NumPy's MAGIC_LEN).
constexpr size_t kMagicLen = kMagic.size() + 2;
/// NumPy pads the whole header so that the data starts 64-byte aligned.
constexpr size_t kHeaderAlign = 64;
/// NumPy leaves room to rewrite the growth axis in place
/// (GROWTH_AXIS_MAX_DIGITS).
constexpr size_t kGrowthAxisMaxDigits = 21;
/// Largest array Stride will read or write.
constexpr uint64_t kMaxDataBytes = uint64_t(1) << 40;

constexpr std::string_view kSupportedList =
    "Stride supports f16, f32, f64, bool, int8, int32, int64, and bf16 as "
    "'<V2' (an ml_dtypes bfloat16 array saved by numpy.save)";

//===----------------------------------------------------------------------===//
// Formatting helpers
//===----------------------------------------------------------------------===//

/// The Python repr of a shape tuple: "()", "(3,)", "(4, 13)".
std::string formatShape(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

/// Makes untrusted header text safe to print: non-printable bytes become
/// \xNN and long text is cut.
std::string printable(std::string_view text, size_t maxChars = 120) {
  std::string s;
  for (size_t i = 0; i < text.size() && i < maxChars; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      s += static_cast<char>(c);
      continue;
    }
    char buf[8];
    std::snprintf(buf, sizeof(buf), "\\x%02x", c);
    s += buf;
  }
  if (text.size() > maxChars)
    s += "...";
  return s;
}

std::string describeArray(DType dtype, const std::vector<int64_t> &shape) {
  return std::string(dtypeName(dtype)) + " of shape " + formatShape(shape);
}

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

struct DescrEntry {
  std::string_view typeCode; // descr without its byte-order mark
  DType dtype;
  std::string_view written; // what numpy.save writes
};

constexpr DescrEntry kDescrs[] = {
    {"f2", DType::F16, "<f2"}, {"f4", DType::F32, "<f4"},
    {"f8", DType::F64, "<f8"}, {"b1", DType::I1, "|b1"},
    {"i1", DType::I8, "|i1"},  {"i4", DType::I32, "<i4"},
    {"i8", DType::I64, "<i8"},
    // NumPy has no bfloat16: numpy.save writes an ml_dtypes bfloat16 array
    // as 2-byte raw records, which only a bf16 input or output reads as bf16
    // (checkArrayMatches).
    {"V2", DType::BF16, "<V2"},
};

std::optional<std::string_view> descrForDType(DType dtype) {
  for (const DescrEntry &e : kDescrs)
    if (e.dtype == dtype)
      return e.written;
  return std::nullopt;
}

Error unsupportedDType(const std::string &name, std::string_view descr) {
  return makeError(ErrorCode::InvalidArgument,
                   name + ": unsupported dtype '" + printable(descr) + "' (" +
                       std::string(kSupportedList) + ")");
}

Result<DType> dtypeFromDescr(std::string_view descr, const std::string &name) {
  char order = '=';
  std::string_view typeCode = descr;
  if (!descr.empty() &&
      std::string_view("<>|=").find(descr[0]) != std::string_view::npos) {
    order = descr[0];
    typeCode = descr.substr(1);
  }
  for (const DescrEntry &e : kDescrs) {
    if (e.typeCode != typeCode)
      continue;
    // Byte order is meaningless for one-byte types, so '>i1' is fine.
    if (order == '>' && dtypeSize(e.dtype) > 1)
      return makeError(ErrorCode::InvalidArgument,
                       name + ": big-endian data is not supported (dtype '" +
                           std::string(descr) + "'); convert it with " +
                           "arr.astype('" + std::string(e.written) + "')");
    return e.dtype;
  }
  return unsupportedDType(name, descr);
}

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

/// Bytes needed by `shape` of `dtype`, refusing overflow and anything above
/// kMaxDataBytes. `context` prefixes the error ("x.npy: ").
Result<uint64_t> dataByteSize(const std::vector<int64_t> &shape, DType dtype,
                              const std::string &context) {
  for (int64_t dim : shape)
    if (dim == 0)
      return uint64_t(0); // even if other dims would overflow
  uint64_t bytes = dtypeSize(dtype);
  for (int64_t dim : shape) {
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes) ||
        bytes > kMaxDataBytes)
      return makeError(
          ErrorCode::InvalidArgument,
          context + "array too large: shape " + formatShape(shape) + " of " +
              std::string(dtypeName(dtype)) + " exceeds the 2^40-byte limit");
  }
  return bytes;
}

//===----------------------------------------------------------------------===//
// Header dict parsing
//===----------------------------------------------------------------------===//

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// Parses the subset of Python literal syntax that .npy headers use:
///   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
/// Keys may come in any order, with any whitespace and an optional trailing
/// comma. Unknown, duplicate and missing keys are errors, as in NumPy.
class HeaderParser {
public:
  HeaderParser(std::string_view text, const std::string &name)
      : text(text), name(name) {}

  Result<NpyHeader> parse();

private:
  std::string_view text;
  const std::string &name;
  size_t pos = 0;
  bool seenDescr = false, seenFortranOrder = false, seenShape = false;

  Error malformed(const std::string &what) const {
    return makeError(ErrorCode::InvalidArgument,
                     name + ": malformed header: " + what +
                         " (header: " + printable(trimmed()) + ")");
  }
  std::string_view trimmed() const {
    size_t end = text.find_last_not_of(" \t\r\n");
    return end == std::string_view::npos ? text.substr(0, 0)
                                         : text.substr(0, end + 1);
  }
  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }
  bool isDigit() const { return !atEnd() && peek() >= '0' && peek() <= '9'; }
  void skipSpaces() {
    while (!atEnd() &&
           std::string_view(" \t\r\n").find(peek()) != std::string_view::npos)
      ++pos;
  }
  bool consume(char c) {
    if (atEnd() || peek() != c)
      return false;
    ++pos;
    return true;
  }
  /// "'x' at offset 7", or "the end of the header", for error messages.
  std::string found() const {
    if (atEnd())
      return "the end of the header";
    return "'" + printable(text.substr(pos, 1)) + "' at offset " +
           std::to_string(pos);
  }

  Status parseEntry(NpyHeader &header);
  Status markSeen(bool &seen, const std::string &key);
  Result<std::string> parseString(const std::string &what);
  Result<bool> parseBool(const std::string &key);
  Result<std::vector<int64_t>> parseShape();
  Result<int64_t> parseDim();
};

Result<NpyHeader> HeaderParser::parse() {
  NpyHeader header;
  skipSpaces();
  if (!consume('{'))
    return malformed("expected '{', found " + found());
  while (true) {
    skipSpaces();
    if (consume('}'))
      break;
    if (Status s = parseEntry(header); !s)
      return s.error();
    skipSpaces();
    if (consume('}'))
      break;
    if (!consume(','))
      return malformed("expected ',' or '}' after a value, found " + found());
  }
  skipSpaces();
  if (!atEnd())
    return malformed("unexpected text after the closing '}': " + found());
  if (!seenDescr)
    return malformed("missing key 'descr'");
  if (!seenFortranOrder)
    return malformed("missing key 'fortran_order'");
  if (!seenShape)
    return malformed("missing key 'shape'");
  return header;
}

Status HeaderParser::markSeen(bool &seen, const std::string &key) {
  if (seen)
    return malformed("key '" + key + "' appears twice");
  seen = true;
  return Status::ok();
}

Status HeaderParser::parseEntry(NpyHeader &header) {
  Result<std::string> key = parseString("a key");
  if (!key)
    return key.error();
  skipSpaces();
  if (!consume(':'))
    return malformed("expected ':' after key '" + printable(*key) +
                     "', found " + found());
  skipSpaces();
  if (*key == "descr") {
    if (Status s = markSeen(seenDescr, *key); !s)
      return s;
    if (peek() == '[')
      return makeError(ErrorCode::InvalidArgument,
                       name +
                           ": unsupported dtype: structured (record) "
                           "arrays are not supported (" +
                           std::string(kSupportedList) + ")");
    Result<std::string> descr = parseString("the value of 'descr'");
    if (!descr)
      return descr.error();
    header.descr = *descr;
    return Status::ok();
  }
  if (*key == "fortran_order") {
    if (Status s = markSeen(seenFortranOrder, *key); !s)
      return s;
    Result<bool> value = parseBool(*key);
    if (!value)
      return value.error();
    header.fortranOrder = *value;
    return Status::ok();
  }
  if (*key == "shape") {
    if (Status s = markSeen(seenShape, *key); !s)
      return s;
    Result<std::vector<int64_t>> shape = parseShape();
    if (!shape)
      return shape.error();
    header.shape = std::move(*shape);
    return Status::ok();
  }
  return malformed("unexpected key '" + printable(*key) +
                   "' (expected 'descr', 'fortran_order' and 'shape')");
}

Result<std::string> HeaderParser::parseString(const std::string &what) {
  char quote = peek();
  if (quote != '\'' && quote != '"')
    return malformed("expected a quoted string as " + what + ", found " +
                     found());
  size_t start = ++pos;
  while (!atEnd() && peek() != quote) {
    if (peek() == '\\')
      return malformed("escape sequences are not supported in strings, found " +
                       found());
    ++pos;
  }
  if (atEnd())
    return malformed("unterminated string starting at offset " +
                     std::to_string(start - 1));
  std::string value(text.substr(start, pos - start));
  ++pos; // closing quote
  return value;
}

Result<bool> HeaderParser::parseBool(const std::string &key) {
  std::string_view rest = text.substr(pos);
  for (auto [word, value] : {std::pair{std::string_view("True"), true},
                             std::pair{std::string_view("False"), false}}) {
    if (rest.substr(0, word.size()) == word) {
      pos += word.size();
      return value;
    }
  }
  return malformed("expected True or False as the value of '" + key +
                   "', found " + found());
}

Result<std::vector<int64_t>> HeaderParser::parseShape() {
  if (!consume('('))
    return malformed("expected a tuple such as (2, 3), (3,) or () as the "
                     "value of 'shape', found " +
                     found());
  std::vector<int64_t> shape;
  skipSpaces();
  if (consume(')'))
    return shape; // a scalar
  while (true) {
    Result<int64_t> dim = parseDim();
    if (!dim)
      return dim.error();
    shape.push_back(*dim);
    skipSpaces();
    if (consume(')')) {
      // In Python "(3)" is the integer 3, not a tuple; NumPy refuses it too.
      if (shape.size() == 1)
        return malformed("shape (" + std::to_string(shape[0]) +
                         ") is not a tuple; a 1-dimensional shape is "
                         "written (" +
                         std::to_string(shape[0]) + ",)");
      return shape;
    }
    if (!consume(','))
      return malformed("expected ',' or ')' in 'shape', found " + found());
    skipSpaces();
    if (consume(')'))
      return shape;
  }
}

Result<int64_t> HeaderParser::parseDim() {
  if (peek() == '-')
    return malformed("negative dimension in 'shape' at offset " +
                     std::to_string(pos));
  if (!isDigit())
    return malformed("expected a dimension (a non-negative integer) in "
                     "'shape', found " +
                     found());
  size_t start = pos;
  int64_t value = 0;
  while (isDigit()) {
    if (__builtin_mul_overflow(value, int64_t(10), &value) ||
        __builtin_add_overflow(value, int64_t(peek() - '0'), &value)) {
      while (isDigit())
        ++pos;
      return malformed("dimension " +
                       printable(text.substr(start, pos - start)) +
                       " in 'shape' does not fit in 64 bits");
    }
    ++pos;
  }
  // Python 2 wrote longs with an 'L' suffix, e.g. (3L, 4L).
  if (peek() == 'L' || peek() == 'l')
    ++pos;
  return value;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

uint32_t readLittleEndian(const uint8_t *p, size_t numBytes) {
  uint32_t value = 0;
  for (size_t i = numBytes; i-- > 0;)
    value = (value << 8) | p[i];
  return value;
}

/// Where the header dict lies in the file.
struct Preamble {
  size_t headerOffset;
  size_t headerLength;
};

Result<Preamble> parsePreamble(const uint8_t *bytes, size_t size,
                               const std::string &name) {
  if (size == 0)
    return makeError(ErrorCode::InvalidArgument,
                     name + ": not a NumPy .npy file (the file is empty)");
  size_t prefix = std::min(size, kMagic.size());
  if (std::memcmp(bytes, kMagic.data(), prefix) != 0)
    return makeError(ErrorCode::InvalidArgument,
                     name + ": not a NumPy .npy file (bad magic bytes)");
  if (size < kMagicLen)
    return makeError(ErrorCode::InvalidArgument,
                     name + ": truncated header: the file is " +
                         std::to_string(size) +
                         " bytes long, too short for the magic and version");
  uint8_t major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0)
    return makeError(ErrorCode::InvalidArgument,
                     name + ": unsupported .npy format version " +
                         std::to_string(major) + "." + std::to_string(minor) +
                         " (Stride reads 1.0, 2.0 and 3.0)");
  // Version 1.0 stores the header length in 2 bytes, 2.0 and 3.0 in 4.
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t headerOffset = kMagicLen + lengthBytes;
  if (size < headerOffset)
    return makeError(ErrorCode::InvalidArgument,
                     name + ": truncated header: the file is " +
                         std::to_string(size) +
                         " bytes long, too short for the " +
                         std::to_string(headerOffset) + "-byte preamble");
  size_t headerLength = readLittleEndian(bytes + kMagicLen, lengthBytes);
  if (size - headerOffset < headerLength)
    return makeError(ErrorCode::InvalidArgument,
                     name + ": truncated header: the header declares " +
                         std::to_string(headerLength) + " bytes, but only " +
                         std::to_string(size - headerOffset) + " bytes follow");
  return Preamble{headerOffset, headerLength};
}

/// Copies an F-order array into C order, walking the destination in C order
/// while tracking the matching source offset.
std::vector<uint8_t> fortranToCOrder(const uint8_t *src,
                                     const std::vector<int64_t> &shape,
                                     size_t elemSize, size_t totalBytes) {
  std::vector<uint8_t> dst(totalBytes);
  if (totalBytes == 0)
    return dst;
  size_t rank = shape.size();
  // Products cannot overflow: the total is at most kMaxDataBytes.
  std::vector<int64_t> srcStride(rank);
  int64_t stride = 1;
  for (size_t k = 0; k < rank; ++k) {
    srcStride[k] = stride;
    stride *= shape[k];
  }
  std::vector<int64_t> index(rank, 0);
  int64_t srcElem = 0;
  size_t numElems = totalBytes / elemSize;
  for (size_t i = 0; i < numElems; ++i) {
    std::memcpy(dst.data() + i * elemSize, src + srcElem * elemSize, elemSize);
    for (size_t k = rank; k-- > 0;) {
      srcElem += srcStride[k];
      if (++index[k] < shape[k])
        break;
      srcElem -= srcStride[k] * shape[k];
      index[k] = 0;
    }
  }
  return dst;
}

struct FileCloser {
  void operator()(std::FILE *f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

Result<std::vector<uint8_t>> readWholeFile(const std::string &path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file)
    return makeError(fileErrorCode(errno),
                     path + ": cannot open file: " + std::strerror(errno));
  std::vector<uint8_t> bytes;
  constexpr size_t kChunk = size_t(1) << 20;
  while (true) {
    size_t old = bytes.size();
    bytes.resize(old + kChunk);
    size_t got = std::fread(bytes.data() + old, 1, kChunk, file.get());
    bytes.resize(old + got);
    if (got == kChunk)
      continue;
    // errno is set by the failing read (e.g. EISDIR for a directory).
    if (std::ferror(file.get()))
      return makeError(fileErrorCode(errno),
                       path + ": cannot read file: " + std::strerror(errno));
    return bytes;
  }
}

} // namespace

int64_t HostArray::numElements() const {
  int64_t n = 1;
  for (int64_t dim : shape) {
    if (dim == 0)
      return 0;
    n *= dim;
  }
  return n;
}

Result<HostArray> parseNpy(const uint8_t *bytes, size_t size,
                           const std::string &name) {
  Result<Preamble> preamble = parsePreamble(bytes, size, name);
  if (!preamble)
    return preamble.error();
  std::string_view headerText(
      reinterpret_cast<const char *>(bytes + preamble->headerOffset),
      preamble->headerLength);
  Result<NpyHeader> header = HeaderParser(headerText, name).parse();
  if (!header)
    return header.error();
  Result<DType> dtype = dtypeFromDescr(header->descr, name);
  if (!dtype)
    return dtype.error();
  Result<uint64_t> needed = dataByteSize(header->shape, *dtype, name + ": ");
  if (!needed)
    return needed.error();

  size_t dataOffset = preamble->headerOffset + preamble->headerLength;
  size_t available = size - dataOffset;
  std::string declared = "the header declares shape " +
                         formatShape(header->shape) + " of " +
                         std::string(dtypeName(*dtype)) + " = " +
                         std::to_string(*needed) + " bytes";
  if (available < *needed)
    return makeError(ErrorCode::InvalidArgument,
                     name + ": truncated data: " + declared + ", but only " +
                         std::to_string(available) + " bytes follow");
  if (available > *needed)
    return makeError(ErrorCode::InvalidArgument,
                     name + ": " + std::to_string(available - *needed) +
                         " unexpected bytes after the data: " + declared +
                         ", but " + std::to_string(available) +
                         " bytes follow");

  HostArray array;
  array.dtype = *dtype;
  array.shape = std::move(header->shape);
  const uint8_t *data = bytes + dataOffset;
  // With fewer than two dims F order and C order are the same bytes.
  if (header->fortranOrder && array.shape.size() > 1)
    array.data = fortranToCOrder(data, array.shape, dtypeSize(*dtype), *needed);
  else
    array.data.assign(data, data + *needed);
  return array;
}

uint16_t bf16FromFloat(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value))
    return uint16_t(bits >> 16 | 0x40); // quiet, so it stays NaN
  return uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

float floatFromBf16(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

Result<HostArray> readNpyFile(const std::string &path) {
  Result<std::vector<uint8_t>> bytes = readWholeFile(path);
  if (!bytes)
    return bytes.error();
  return parseNpy(bytes->data(), bytes->size(), path);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

/// The header dict exactly as numpy.lib.format._write_array_header builds
/// it for a C-order array, including the spare room for the growth axis.
std::string headerDict(std::string_view descr,
                       const std::vector<int64_t> &shape) {
  std::string dict =
      "{'descr': '" + std::string(descr) +
      "', 'fortran_order': False, 'shape': " + formatShape(shape) + ", }";
  if (!shape.empty())
    dict.append(kGrowthAxisMaxDigits - std::to_string(shape[0]).size(), ' ');
  return dict;
}

/// Magic, version, length and padded header, as numpy's _wrap_header: the
/// padding is 1 to 64 spaces, then '\n'. Version 2.0 is used only when the
/// header does not fit a 16-bit length.
std::vector<uint8_t> wrapHeader(const std::string &dict) {
  size_t lengthBytes = 2;
  uint8_t major = 1;
  size_t textLength = dict.size() + 1; // with the final '\n'
  size_t padding =
      kHeaderAlign - (kMagicLen + lengthBytes + textLength) % kHeaderAlign;
  if (textLength + padding > 0xffff) {
    lengthBytes = 4;
    major = 2;
    padding =
        kHeaderAlign - (kMagicLen + lengthBytes + textLength) % kHeaderAlign;
  }
  uint64_t headerLength = textLength + padding;
  std::vector<uint8_t> out(kMagic.begin(), kMagic.end());
  out.push_back(major);
  out.push_back(0);
  for (size_t i = 0; i < lengthBytes; ++i)
    out.push_back(static_cast<uint8_t>(headerLength >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), padding, ' ');
  out.push_back('\n');
  return out;
}

} // namespace

Status checkNpyWritable(const HostArray &a, const std::string &name) {
  if (!descrForDType(a.dtype))
    return makeError(ErrorCode::InvalidArgument,
                     name + ": cannot write " +
                         std::string(dtypeName(a.dtype)) + " data (" +
                         std::string(kSupportedList) + ")");
  for (int64_t dim : a.shape)
    if (dim < 0)
      return makeError(ErrorCode::InvalidArgument,
                       name + ": cannot write: shape " + formatShape(a.shape) +
                           " has a negative dimension");
  Result<uint64_t> needed = dataByteSize(a.shape, a.dtype, name + ": ");
  if (!needed)
    return needed.error();
  if (a.data.size() != *needed)
    return makeError(ErrorCode::InvalidArgument,
                     name + ": cannot write: shape " + formatShape(a.shape) +
                         " of " + std::string(dtypeName(a.dtype)) + " needs " +
                         std::to_string(*needed) +
                         " bytes, but the array holds " +
                         std::to_string(a.data.size()) + " bytes of data");
  return Status::ok();
}

std::vector<uint8_t> serializeNpy(const HostArray &a) {
  if (!checkNpyWritable(a, ""))
    return {};
  std::vector<uint8_t> out =
      wrapHeader(headerDict(*descrForDType(a.dtype), a.shape));
  out.insert(out.end(), a.data.begin(), a.data.end());
  return out;
}

Status writeNpyFile(const std::string &path, const HostArray &a) {
  if (Status s = checkNpyWritable(a, path); !s)
    return s;
  std::vector<uint8_t> bytes = serializeNpy(a);
  FilePtr file(std::fopen(path.c_str(), "wb"));
  if (!file)
    return makeError(
        fileErrorCode(errno),
        path + ": cannot open file for writing: " + std::strerror(errno));
  if (std::fwrite(bytes.data(), 1, bytes.size(), file.get()) != bytes.size())
    return makeError(fileErrorCode(errno),
                     path + ": cannot write file: " + std::strerror(errno));
  // fclose flushes; a full disk may only show up here.
  if (std::fclose(file.release()) != 0)
    return makeError(fileErrorCode(errno),
                     path + ": cannot write file: " + std::strerror(errno));
  return Status::ok();
}

Status checkArrayMatches(const HostArray &a, DType expected,
                         const std::vector<int64_t> &expectedShape,
                         const std::string &fileName,
                         const std::string &argName) {
  if (a.dtype == expected && a.shape == expectedShape)
    return Status::ok();
  if (a.dtype == DType::BF16 && expected != DType::BF16)
    return makeError(ErrorCode::InvalidArgument,
                     fileName + ": input '" + argName + "' expects " +
                         describeArray(expected, expectedShape) +
                         ", but the file holds 2-byte raw records ('<V2') of "
                         "shape " + formatShape(a.shape) +
                         ", which Stride reads as ml_dtypes bfloat16 for a "
                         "bf16 input only");
  return makeError(ErrorCode::InvalidArgument,
                   fileName + ": input '" + argName + "' expects " +
                       describeArray(expected, expectedShape) +
                       ", but the file holds " +
                       describeArray(a.dtype, a.shape));
}

} // namespace stride
