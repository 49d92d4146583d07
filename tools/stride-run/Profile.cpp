//===- Profile.cpp - stride-run's per-step profile and memory report ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Profile.h"

#include <cstdio>
#include <sstream>

namespace stride {

namespace {

constexpr StepKind kKinds[] = {StepKind::Kernel, StepKind::LibraryCall,
                               StepKind::Copy, StepKind::Fill};

/// The time and count of the steps of one kind.
struct KindTotal {
  double ms = 0;
  size_t steps = 0;
};

double totalMs(const ProfileReport &profile) {
  double total = 0;
  for (const StepProfile &s : profile.steps)
    total += s.medianMs;
  return total;
}

KindTotal totalOf(const ProfileReport &profile, StepKind kind) {
  KindTotal t;
  for (const StepProfile &s : profile.steps)
    if (s.step.kind == kind) {
      t.ms += s.medianMs;
      ++t.steps;
    }
  return t;
}

double shareOf(double ms, double total) { return total > 0 ? ms / total : 0; }

/// "1.5 MiB (1572864 bytes)".
std::string bytesText(uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.1f MiB (%llu bytes)",
                double(bytes) / (1 << 20), static_cast<unsigned long long>(bytes));
  return text;
}

/// `text` as a JSON string.
std::string jsonString(const std::string &text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      s += '\\';
      s += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      s += escaped;
    } else {
      s += c;
    }
  }
  return s + "\"";
}

/// A number as JSON: fixed precision, enough for a microsecond's fraction.
std::string jsonNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", v);
  return text;
}

} // namespace

std::string formatMemoryLine(const MemoryReport &memory) {
  const MemorySummary &b = memory.buffers;
  return "device memory: constants " + bytesText(b.constantBytes) +
         ", arena of temporaries and outputs " + bytesText(b.arenaBytes) +
         ", other temporaries " + bytesText(b.temporaryBytes) +
         ", inputs " + bytesText(b.inputBytes) + ", other outputs " +
         bytesText(b.outputBytes) + "; peak allocated by the runtime " +
         bytesText(memory.peakBytes);
}

std::string formatProfileText(const ProfileReport &profile) {
  std::ostringstream os;
  char line[512];
  double total = totalMs(profile);
  os << "profile of " << profile.module << " on " << profile.device << ": "
     << profile.iterations << " runs step by step after " << profile.warmup
     << " warm-up runs; median per step\n";
  std::snprintf(line, sizeof(line), "%5s  %-12s  %10s  %6s  %s\n", "step",
                "kind", "ms", "share", "name");
  os << line;
  for (size_t i = 0; i < profile.steps.size(); ++i) {
    const StepProfile &s = profile.steps[i];
    std::snprintf(line, sizeof(line), "%5zu  %-12s  %10.4f  %5.1f%%  %s\n",
                  i + 1, stepKindName(s.step.kind), s.medianMs,
                  100 * shareOf(s.medianMs, total), s.step.name.c_str());
    os << line;
  }
  std::snprintf(line, sizeof(line), "%5s  %-12s  %10.4f  %5.1f%%  %zu steps\n",
                "", "total", total, total > 0 ? 100.0 : 0.0,
                profile.steps.size());
  os << line;
  for (StepKind kind : kKinds) {
    KindTotal t = totalOf(profile, kind);
    std::snprintf(line, sizeof(line), "%5s  %-12s  %10.4f  %5.1f%%  %zu steps\n",
                  "", stepKindName(kind), t.ms, 100 * shareOf(t.ms, total),
                  t.steps);
    os << line;
  }
  os << formatMemoryLine(profile.memory) << "\n";
  return os.str();
}

std::string formatProfileJson(const ProfileReport &profile) {
  std::ostringstream os;
  double total = totalMs(profile);
  os << "{\n  \"module\": " << jsonString(profile.module)
     << ",\n  \"device\": " << jsonString(profile.device)
     << ",\n  \"warmup\": " << profile.warmup
     << ",\n  \"iterations\": " << profile.iterations << ",\n  \"steps\": [";
  for (size_t i = 0; i < profile.steps.size(); ++i) {
    const StepProfile &s = profile.steps[i];
    os << (i ? ",\n" : "\n") << "    {\"index\": " << i + 1
       << ", \"kind\": " << jsonString(stepKindName(s.step.kind))
       << ", \"name\": " << jsonString(s.step.name)
       << ", \"median_ms\": " << jsonNumber(s.medianMs)
       << ", \"share\": " << jsonNumber(shareOf(s.medianMs, total)) << "}";
  }
  os << "\n  ],\n  \"total_ms\": " << jsonNumber(total) << ",\n  \"kinds\": {";
  bool first = true;
  for (StepKind kind : kKinds) {
    KindTotal t = totalOf(profile, kind);
    os << (first ? "\n" : ",\n") << "    " << jsonString(stepKindName(kind))
       << ": {\"steps\": " << t.steps << ", \"ms\": " << jsonNumber(t.ms)
       << ", \"share\": " << jsonNumber(shareOf(t.ms, total)) << "}";
    first = false;
  }
  const MemorySummary &b = profile.memory.buffers;
  os << "\n  },\n  \"memory\": {\"constant_bytes\": " << b.constantBytes
     << ", \"arena_bytes\": " << b.arenaBytes
     << ", \"temporary_bytes\": " << b.temporaryBytes
     << ", \"input_bytes\": " << b.inputBytes
     << ", \"output_bytes\": " << b.outputBytes
     << ", \"peak_bytes\": " << profile.memory.peakBytes << "}\n}\n";
  return os.str();
}

} // namespace stride
