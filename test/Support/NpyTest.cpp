//===- NpyTest.cpp - Tests for NumPy .npy reading and writing -------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/Npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace stride;

namespace {

using Bytes = std::vector<uint8_t>;

const std::string kName = "x.npy";

/// np.save of np.arange(6, dtype=np.float32).reshape(2, 3). NumPy was not
/// available when this was written, so the bytes were built per the format
/// spec and numpy.lib.format._write_array_header (1.24+, which adds 21 -
/// len(repr(shape[0])) spare spaces); older NumPy writes the same bytes here
/// since the padding still rounds to a 128-byte header.
const Bytes kGoldenArange = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27,
    0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x34,
    0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f,
    0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20,
    0x28, 0x32, 0x2c, 0x20, 0x33, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x40, 0x40,
    0x00, 0x00, 0x80, 0x40, 0x00, 0x00, 0xa0, 0x40,
};

template <typename T> Bytes toBytes(const std::vector<T> &values) {
  Bytes bytes(values.size() * sizeof(T));
  if (!bytes.empty())
    std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T> std::vector<T> fromBytes(const Bytes &bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty())
    std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

template <typename T>
HostArray makeArray(DType dtype, std::vector<int64_t> shape,
                    const std::vector<T> &values) {
  return HostArray{dtype, std::move(shape), toBytes(values)};
}

/// A .npy file with the given header dict and payload, padded the NumPy way.
Bytes buildNpy(const std::string &dict, const Bytes &payload,
               uint8_t major = 1) {
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t text = dict.size() + 1;
  size_t padding = 64 - (8 + lengthBytes + text) % 64;
  size_t headerLength = text + padding;
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  for (size_t i = 0; i < lengthBytes; ++i)
    out.push_back(static_cast<uint8_t>(headerLength >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), padding, ' ');
  out.push_back('\n');
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

std::string dictFor(const std::string &descr, const std::string &shape,
                    bool fortran = false) {
  return "{'descr': '" + descr +
         "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

Result<HostArray> parse(const Bytes &bytes) {
  return parseNpy(bytes.data(), bytes.size(), kName);
}

/// The error message of a parse that must fail.
std::string parseError(const Bytes &bytes) {
  Result<HostArray> r = parse(bytes);
  if (r)
    return "<parse unexpectedly succeeded>";
  return r.error().message;
}

std::string tempPath(const std::string &leaf) {
  return ::testing::TempDir() + "stride_npy_test_" + leaf;
}

void expectRoundTrip(const HostArray &a) {
  Bytes bytes = serializeNpy(a);
  ASSERT_FALSE(bytes.empty());
  // Header (magic through '\n') is 64-byte aligned, like NumPy's.
  size_t headerEnd = bytes.size() - a.data.size();
  EXPECT_EQ(headerEnd % 64, 0u);
  EXPECT_EQ(bytes[headerEnd - 1], '\n');
  Result<HostArray> back = parse(bytes);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->dtype, a.dtype);
  EXPECT_EQ(back->shape, a.shape);
  EXPECT_EQ(back->data, a.data);
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST(NpyRoundTrip, EveryWritableDType) {
  expectRoundTrip(makeArray<uint16_t>(DType::F16, {2, 2},
                                      {0x3c00, 0xc000, 0x7c00, 0x0001}));
  expectRoundTrip(makeArray<float>(DType::F32, {2, 3},
                                   {0.f, 1.5f, -2.f, 3e30f, -0.f, 1e-40f}));
  expectRoundTrip(makeArray<double>(DType::F64, {3}, {1.0, -2.5, 1e300}));
  expectRoundTrip(makeArray<uint8_t>(DType::I1, {4}, {0, 1, 1, 0}));
  expectRoundTrip(makeArray<int8_t>(DType::I8, {2, 2}, {-128, -1, 0, 127}));
  expectRoundTrip(
      makeArray<int32_t>(DType::I32, {1, 2, 2}, {INT32_MIN, -1, 7, INT32_MAX}));
  expectRoundTrip(makeArray<int64_t>(DType::I64, {2}, {INT64_MIN, INT64_MAX}));
  expectRoundTrip(makeArray<uint16_t>(DType::BF16, {3},
                                      {0x3f80, 0xc000, 0x7fc0}));
}

TEST(NpyRoundTrip, DescrsAreNumPys) {
  struct Case {
    DType dtype;
    const char *descr;
  } cases[] = {{DType::F16, "'<f2'"}, {DType::F32, "'<f4'"},
               {DType::F64, "'<f8'"}, {DType::I1, "'|b1'"},
               {DType::I8, "'|i1'"},  {DType::I32, "'<i4'"},
               {DType::I64, "'<i8'"}, {DType::BF16, "'<V2'"}};
  for (const Case &c : cases) {
    HostArray a{c.dtype, {0}, {}};
    Bytes bytes = serializeNpy(a);
    std::string text(bytes.begin(), bytes.end());
    EXPECT_NE(text.find(std::string("'descr': ") + c.descr), std::string::npos)
        << text;
  }
}

TEST(NpyRoundTrip, ThroughFiles) {
  HostArray a = makeArray<int32_t>(DType::I32, {2, 3}, {1, 2, 3, 4, 5, 6});
  std::string path = tempPath("file.npy");
  Status written = writeNpyFile(path, a);
  ASSERT_TRUE(written) << written.error().message;
  Result<HostArray> back = readNpyFile(path);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->dtype, DType::I32);
  EXPECT_EQ(back->shape, a.shape);
  EXPECT_EQ(back->data, a.data);
  std::remove(path.c_str());
}

TEST(NpyRoundTrip, Scalar) {
  HostArray a = makeArray<double>(DType::F64, {}, {42.5});
  EXPECT_EQ(a.numElements(), 1);
  expectRoundTrip(a);
  Bytes bytes = serializeNpy(a);
  std::string text(bytes.begin(), bytes.end());
  EXPECT_NE(text.find("'shape': (), }"), std::string::npos);

  Result<HostArray> r =
      parse(buildNpy(dictFor("<f8", "()"), toBytes<double>({7.0})));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->shape.empty());
  EXPECT_EQ(fromBytes<double>(r->data), std::vector<double>{7.0});
}

TEST(NpyRoundTrip, ZeroSize) {
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{0}, {3, 0, 5}, {0, 4}}) {
    HostArray a{DType::F32, shape, {}};
    EXPECT_EQ(a.numElements(), 0);
    expectRoundTrip(a);
  }
  Result<HostArray> r = parse(buildNpy(dictFor("<f4", "(0,)"), {}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->shape, std::vector<int64_t>{0});
  EXPECT_TRUE(r->data.empty());
  // A zero dim makes the array empty even when the other dims are huge.
  r = parse(buildNpy(dictFor("<f4", "(0, 4611686018427387904, 4)"), {}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->data.empty());
}

//===----------------------------------------------------------------------===//
// Golden bytes
//===----------------------------------------------------------------------===//

TEST(NpyGolden, SerializeMatchesNumPy) {
  HostArray a = makeArray<float>(DType::F32, {2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(serializeNpy(a), kGoldenArange);
}

TEST(NpyGolden, ParseNumPyOutput) {
  Result<HostArray> r = parse(kGoldenArange);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->dtype, DType::F32);
  EXPECT_EQ(r->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r->numElements(), 6);
  EXPECT_EQ(fromBytes<float>(r->data), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(NpyGolden, LargeShapeUsesSameLayout) {
  // Growth padding uses shape[0]'s digits, keeping the header 64-aligned.
  HostArray a{DType::I8, {123456, 0}, {}};
  Bytes bytes = serializeNpy(a);
  EXPECT_EQ(bytes.size() % 64, 0u);
  EXPECT_EQ(bytes[6], 1);
}

//===----------------------------------------------------------------------===//
// Reading variants
//===----------------------------------------------------------------------===//

TEST(NpyRead, FortranOrder2D) {
  // Column-major bytes of [[0, 1, 2], [3, 4, 5]].
  Bytes bytes = buildNpy(dictFor("<i4", "(2, 3)", /*fortran=*/true),
                         toBytes<int32_t>({0, 3, 1, 4, 2, 5}));
  Result<HostArray> r = parse(bytes);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(fromBytes<int32_t>(r->data),
            (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(NpyRead, FortranOrder3D) {
  // Element (i, j, k) holds 100i + 10j + k; lay it out column-major.
  const int64_t d0 = 2, d1 = 3, d2 = 4;
  std::vector<int64_t> fortran, expectedC;
  for (int64_t k = 0; k < d2; ++k)
    for (int64_t j = 0; j < d1; ++j)
      for (int64_t i = 0; i < d0; ++i)
        fortran.push_back(100 * i + 10 * j + k);
  for (int64_t i = 0; i < d0; ++i)
    for (int64_t j = 0; j < d1; ++j)
      for (int64_t k = 0; k < d2; ++k)
        expectedC.push_back(100 * i + 10 * j + k);
  Result<HostArray> r =
      parse(buildNpy(dictFor("<i8", "(2, 3, 4)", true), toBytes(fortran)));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(fromBytes<int64_t>(r->data), expectedC);
}

TEST(NpyRead, FortranOrder1DAndEmpty) {
  Result<HostArray> r =
      parse(buildNpy(dictFor("|i1", "(3,)", true), Bytes{1, 2, 3}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->data, (Bytes{1, 2, 3}));
  r = parse(buildNpy(dictFor("<f4", "(0, 3)", true), {}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->data.empty());
}

TEST(NpyRead, Versions2And3) {
  for (uint8_t major : {2, 3}) {
    Result<HostArray> r =
        parse(buildNpy(dictFor("<f4", "(2,)"), toBytes<float>({1, 2}), major));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(fromBytes<float>(r->data), (std::vector<float>{1, 2}));
  }
}

TEST(NpyRead, RobustHeaderDict) {
  Bytes payload = toBytes<float>({1, 2, 3, 4, 5, 6});
  for (std::string dict : {
           "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}",
           "{ 'descr' : \"<f4\" ,\n 'fortran_order':False,'shape':( 2 ,3 , ) }",
           "{'descr': '=f4', 'fortran_order': False, 'shape': (2L, 3L), }",
           "{'descr': 'f4', 'fortran_order': False, 'shape': (2, 3)}",
           "{'descr':'<f4','fortran_order':False,'shape':(2,3),}\t\r",
       }) {
    Result<HostArray> r = parse(buildNpy(dict, payload));
    ASSERT_TRUE(r) << dict << ": " << r.error().message;
    EXPECT_EQ(r->dtype, DType::F32);
    EXPECT_EQ(r->shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(r->data, payload);
  }
}

TEST(NpyRead, ByteOrderMarksForOneByteTypes) {
  for (std::string descr : {"|b1", "<b1", "=b1", ">b1"}) {
    Result<HostArray> r = parse(buildNpy(dictFor(descr, "(2,)"), Bytes{0, 1}));
    ASSERT_TRUE(r) << descr << ": " << r.error().message;
    EXPECT_EQ(r->dtype, DType::I1);
  }
  Result<HostArray> r = parse(buildNpy(dictFor("|i1", "(1,)"), Bytes{0xff}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->dtype, DType::I8);
}

TEST(NpyRead, UnpaddedHeader) {
  // NumPy does not require alignment when reading, and neither do we.
  std::string dict = dictFor("|i1", "(2,)");
  Bytes bytes = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(dict.size()),
      0};
  bytes.insert(bytes.end(), dict.begin(), dict.end());
  bytes.push_back(5);
  bytes.push_back(6);
  Result<HostArray> r = parse(bytes);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->data, (Bytes{5, 6}));
}

//===----------------------------------------------------------------------===//
// Reading errors
//===----------------------------------------------------------------------===//

TEST(NpyErrors, BadMagic) {
  Bytes bytes = kGoldenArange;
  bytes[1] = 'X';
  EXPECT_EQ(parseError(bytes),
            "x.npy: not a NumPy .npy file (bad magic bytes)");
  EXPECT_EQ(parseError(Bytes{'P', 'K', 3, 4}),
            "x.npy: not a NumPy .npy file (bad magic bytes)");
  EXPECT_EQ(parseError(Bytes{}),
            "x.npy: not a NumPy .npy file (the file is empty)");
}

TEST(NpyErrors, UnsupportedVersion) {
  Bytes bytes = kGoldenArange;
  bytes[6] = 4;
  EXPECT_EQ(parseError(bytes), "x.npy: unsupported .npy format version 4.0 "
                               "(Stride reads 1.0, 2.0 and 3.0)");
}

TEST(NpyErrors, TruncatedHeader) {
  EXPECT_EQ(parseError(Bytes(kGoldenArange.begin(), kGoldenArange.begin() + 7)),
            "x.npy: truncated header: the file is 7 bytes long, too short "
            "for the magic and version");
  EXPECT_EQ(parseError(Bytes(kGoldenArange.begin(), kGoldenArange.begin() + 9)),
            "x.npy: truncated header: the file is 9 bytes long, too short "
            "for the 10-byte preamble");
  EXPECT_EQ(
      parseError(Bytes(kGoldenArange.begin(), kGoldenArange.begin() + 50)),
      "x.npy: truncated header: the header declares 118 bytes, but only 40 "
      "bytes follow");
}

TEST(NpyErrors, TruncatedData) {
  Bytes bytes = buildNpy(dictFor("<f4", "(4, 13)"), Bytes(100, 0));
  EXPECT_EQ(parseError(bytes),
            "x.npy: truncated data: the header declares shape (4, 13) of f32 "
            "= 208 bytes, but only 100 bytes follow");
}

TEST(NpyErrors, TrailingData) {
  Bytes bytes = buildNpy(dictFor("<f4", "(3,)"), Bytes(16, 0));
  EXPECT_EQ(parseError(bytes),
            "x.npy: 4 unexpected bytes after the data: the header declares "
            "shape (3,) of f32 = 12 bytes, but 16 bytes follow");
}

TEST(NpyErrors, BigEndian) {
  Bytes bytes = buildNpy(dictFor(">f4", "(2,)"), Bytes(8, 0));
  EXPECT_EQ(parseError(bytes),
            "x.npy: big-endian data is not supported (dtype '>f4'); convert "
            "it with arr.astype('<f4')");
}

TEST(NpyErrors, UnsupportedDType) {
  Bytes bytes = buildNpy(dictFor("<c8", "(2,)"), Bytes(16, 0));
  EXPECT_EQ(parseError(bytes),
            "x.npy: unsupported dtype '<c8' (Stride supports f16, f32, f64, "
            "bool, int8, int32, int64, and bf16 as '<V2' (an ml_dtypes "
            "bfloat16 array saved by numpy.save))");
  for (std::string descr :
       {"<u2", "|u1", "|O", "<U5", "<f16", "", "<", "|V4", "<V1"})
    EXPECT_EQ(parseError(buildNpy(dictFor(descr, "(1,)"), Bytes(8, 0)))
                  .rfind("x.npy: unsupported dtype '" + descr + "'", 0),
              0u)
        << descr;
}

//===----------------------------------------------------------------------===//
// bf16: ml_dtypes' '<V2' and rounding from f32
//===----------------------------------------------------------------------===//

TEST(NpyBFloat16, VoidOfTwoBytesReadsAsBFloat16) {
  // numpy.save(f, numpy.array([1, -2, 0.5], dtype=ml_dtypes.bfloat16))
  for (std::string descr : {"<V2", "|V2"}) {
    Result<HostArray> r = parse(
        buildNpy(dictFor(descr, "(3,)"), toBytes<uint16_t>({0x3f80, 0xc000, 0x3f00})));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->dtype, DType::BF16);
    EXPECT_EQ(r->shape, std::vector<int64_t>{3});
    EXPECT_EQ(r->data, toBytes<uint16_t>({0x3f80, 0xc000, 0x3f00}));
  }
}

TEST(NpyBFloat16, WrittenAsVoidAndReadBack) {
  HostArray a = makeArray<uint16_t>(DType::BF16, {2, 2},
                                    {0x3f80, 0x4000, 0xff80, 0x7fc1});
  std::string path = tempPath("bf16.npy");
  Status written = writeNpyFile(path, a);
  ASSERT_TRUE(written) << written.error().message;
  Result<HostArray> back = readNpyFile(path);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->dtype, DType::BF16);
  EXPECT_EQ(back->shape, a.shape);
  EXPECT_EQ(back->data, a.data);
  Bytes bytes = serializeNpy(a);
  std::string text(bytes.begin(), bytes.end());
  EXPECT_NE(text.find("{'descr': '<V2', 'fortran_order': False, 'shape': "
                      "(2, 2), }"),
            std::string::npos)
      << text;
}

TEST(NpyBFloat16, VoidForAnotherDTypeIsRefused) {
  HostArray a{DType::BF16, {2, 3}, Bytes(12)};
  Status s = checkArrayMatches(a, DType::F16, {2, 3}, "w.npy", "w");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "w.npy: input 'w' expects f16 of shape (2, 3), but the file holds "
            "2-byte raw records ('<V2') of shape (2, 3), which Stride reads as "
            "ml_dtypes bfloat16 for a bf16 input only");
  EXPECT_TRUE(checkArrayMatches(a, DType::BF16, {2, 3}, "w.npy", "w"));
}

float floatOfBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST(NpyBFloat16, RoundsToNearestTiesToEven) {
  EXPECT_EQ(bf16FromFloat(1.0f), 0x3f80);
  EXPECT_EQ(bf16FromFloat(-2.0f), 0xc000);
  // Below, at and above the halfway point between 0x3f80 and 0x3f81.
  EXPECT_EQ(bf16FromFloat(floatOfBits(0x3f807fff)), 0x3f80);
  EXPECT_EQ(bf16FromFloat(floatOfBits(0x3f808000)), 0x3f80); // tie: even
  EXPECT_EQ(bf16FromFloat(floatOfBits(0x3f808001)), 0x3f81);
  EXPECT_EQ(bf16FromFloat(floatOfBits(0x3f818000)), 0x3f82); // tie: even
  EXPECT_EQ(bf16FromFloat(floatOfBits(0xbf818000)), 0xbf82);
  // The largest finite values round up to infinity past bf16's range.
  EXPECT_EQ(bf16FromFloat(floatOfBits(0x7f7fffff)), 0x7f80);
  EXPECT_EQ(bf16FromFloat(floatOfBits(0x7f7f7fff)), 0x7f7f);
  EXPECT_EQ(bf16FromFloat(INFINITY), 0x7f80);
  EXPECT_EQ(bf16FromFloat(-INFINITY), 0xff80);
  // Subnormals round like any other value.
  EXPECT_EQ(bf16FromFloat(floatOfBits(0x00018000)), 0x0002);
  EXPECT_EQ(floatFromBf16(0x3f82), floatOfBits(0x3f820000));
}

TEST(NpyBFloat16, NaNStaysNaN) {
  // A NaN whose payload sits in the low half only would round to infinity
  // without the quiet bit.
  for (uint32_t bits : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu}) {
    uint16_t b = bf16FromFloat(floatOfBits(bits));
    EXPECT_TRUE(std::isnan(floatFromBf16(b))) << std::hex << bits;
    EXPECT_EQ(b & 0x8000, (bits >> 16) & 0x8000) << std::hex << bits;
  }
}

TEST(NpyErrors, StructuredDType) {
  Bytes bytes = buildNpy(
      "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
      Bytes(4, 0));
  EXPECT_EQ(parseError(bytes).rfind("x.npy: unsupported dtype: structured "
                                    "(record) arrays are not supported",
                                    0),
            0u);
}

TEST(NpyErrors, MalformedHeaderDict) {
  struct Case {
    std::string dict;
    std::string expected; // the message after "x.npy: malformed header: "
  } cases[] = {
      {"'descr': '<f4'", "expected '{', found ''' at offset 0"},
      {"{'descr': '<f4', 'fortran_order': False}", "missing key 'shape'"},
      {"{'fortran_order': False, 'shape': (1,)}", "missing key 'descr'"},
      {"{'descr': '<f4', 'shape': (1,)}", "missing key 'fortran_order'"},
      {"{'descr': '<f4', 'descr': '<f4'}", "key 'descr' appears twice"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
       "unexpected key 'x' (expected 'descr', 'fortran_order' and 'shape')"},
      {"{'descr' '<f4'}", "expected ':' after key 'descr', found ''' at "
                          "offset 9"},
      {"{'descr': <f4}",
       "expected a quoted string as the value of 'descr', found '<' at "
       "offset 10"},
      {"{'descr': '<f4}", "unterminated string starting at offset 10"},
      {"{'descr': '<f4', 'fortran_order': false}",
       "expected True or False as the value of 'fortran_order', found 'f' "
       "at offset 34"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [1]}",
       "expected a tuple such as (2, 3), (3,) or () as the value of 'shape', "
       "found '[' at offset 50"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3)}",
       "shape (3) is not a tuple; a 1-dimensional shape is written (3,)"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}",
       "negative dimension in 'shape' at offset 51"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}",
       "expected ',' or ')' in 'shape', found '3' at offset 53"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}",
       "expected a dimension (a non-negative integer) in 'shape', found 'x' "
       "at offset 54"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(99999999999999999999,)}",
       "dimension 99999999999999999999 in 'shape' does not fit in 64 bits"},
      {"{'descr': '<f4' 'fortran_order': False}",
       "expected ',' or '}' after a value, found ''' at offset 16"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x",
       "unexpected text after the closing '}': 'x' at offset 56"},
      {"{'descr': '<f4', ", "expected a quoted string as a key, found the "
                            "end of the header"},
  };
  for (const Case &c : cases) {
    std::string msg = parseError(buildNpy(c.dict, Bytes(4, 0)));
    std::string prefix =
        "x.npy: malformed header: " + c.expected + " (header: ";
    EXPECT_EQ(msg.rfind(prefix, 0), 0u)
        << "dict: " << c.dict << "\n got: " << msg;
  }
}

TEST(NpyErrors, MalformedHeaderQuotesTheHeaderSafely) {
  std::string msg = parseError(buildNpy(std::string("{\x01\xff}", 4), Bytes{}));
  EXPECT_EQ(msg, "x.npy: malformed header: expected a quoted string as a key, "
                 "found '\\x01' at offset 1 (header: {\\x01\\xff})");
}

TEST(NpyErrors, OverflowingShape) {
  Bytes bytes =
      buildNpy(dictFor("<f4", "(4611686018427387904, 4)"), Bytes(16, 0));
  EXPECT_EQ(parseError(bytes),
            "x.npy: array too large: shape (4611686018427387904, 4) of f32 "
            "exceeds the 2^40-byte limit");
  // Above 2^40 bytes without overflowing 64 bits.
  bytes = buildNpy(dictFor("|i1", "(1048576, 1048577)"), Bytes(16, 0));
  EXPECT_EQ(parseError(bytes),
            "x.npy: array too large: shape (1048576, 1048577) of i8 exceeds "
            "the 2^40-byte limit");
}

TEST(NpyErrors, HostileInputNeverCrashes) {
  // Every truncation and many random corruptions of a valid file must give a
  // clean error or a valid array (run under ASan/UBSan to catch overreads).
  Bytes valid = buildNpy(dictFor("<i4", "(2, 3)", true),
                         toBytes<int32_t>({0, 3, 1, 4, 2, 5}));
  for (size_t n = 0; n < valid.size(); ++n) {
    Bytes cut(valid.begin(), valid.begin() + n);
    EXPECT_FALSE(parse(cut)) << n;
  }
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 20000; ++trial) {
    Bytes bytes = valid;
    int flips = 1 + trial % 4;
    for (int f = 0; f < flips; ++f)
      bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
    Result<HostArray> r = parse(bytes);
    if (r)
      EXPECT_EQ(r->data.size(),
                static_cast<size_t>(r->numElements()) * dtypeSize(r->dtype));
    else
      EXPECT_EQ(r.error().message.rfind("x.npy: ", 0), 0u);
  }
}

TEST(NpyErrors, FileErrors) {
  std::string missing = tempPath("does_not_exist.npy");
  Result<HostArray> r = readNpyFile(missing);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            missing + ": cannot open file: No such file or directory");

  std::string dir = ::testing::TempDir();
  r = readNpyFile(dir);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, dir + ": cannot read file: Is a directory")
      << r.error().message;

  std::string badDir = tempPath("no_such_dir/out.npy");
  Status s = writeNpyFile(badDir, HostArray{DType::I8, {0}, {}});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            badDir + ": cannot open file for writing: No such file or "
                     "directory");
}

//===----------------------------------------------------------------------===//
// Writing errors
//===----------------------------------------------------------------------===//

TEST(NpyWrite, RefusesInconsistentArrays) {
  HostArray shortData = makeArray<float>(DType::F32, {2, 3}, {1, 2, 3, 4, 5});
  EXPECT_TRUE(serializeNpy(shortData).empty());
  Status s = checkNpyWritable(shortData, kName);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "x.npy: cannot write: shape (2, 3) of f32 "
                               "needs 24 bytes, but the array holds 20 "
                               "bytes of data");
  s = checkNpyWritable(HostArray{DType::F32, {-1, 2}, {}}, kName);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "x.npy: cannot write: shape (-1, 2) has a negative dimension");
}

//===----------------------------------------------------------------------===//
// checkArrayMatches
//===----------------------------------------------------------------------===//

TEST(NpyCheckArrayMatches, Messages) {
  HostArray a{DType::F64, {4, 13}, Bytes(4 * 13 * 8)};
  Status s = checkArrayMatches(a, DType::F32, {4, 13, 33}, "x.npy", "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "x.npy: input 'x' expects f32 of shape (4, 13, "
                               "33), but the file holds f64 of shape (4, 13)");

  s = checkArrayMatches(a, DType::F32, {4, 13}, "a.npy", "w");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "a.npy: input 'w' expects f32 of shape (4, "
                               "13), but the file holds f64 of shape (4, 13)");

  HostArray scalar{DType::I32, {}, Bytes(4)};
  s = checkArrayMatches(scalar, DType::I32, {3}, "s.npy", "n");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "s.npy: input 'n' expects i32 of shape (3,), "
                               "but the file holds i32 of shape ()");

  EXPECT_TRUE(checkArrayMatches(a, DType::F64, {4, 13}, "x.npy", "x"));
  EXPECT_TRUE(checkArrayMatches(scalar, DType::I32, {}, "s.npy", "n"));
}

} // namespace
