// Checks Prelude.h's stride_div_row_bf16(a, b, 1 / b) against the bf16
// rounding of the IEEE quotient a / b, bit for bit, on the CPU (the
// emulator's build of the prelude): quotients constructed to fall within
// 48 float ulps of a bf16 rounding midpoint (where the fast path must step
// aside), random bit patterns, and special values, for divisors in and out
// of the fast path's range. Built by div-row-bf16.test with the CUDA source
// of a stridec module (KERNELS), whose prelude holds the function.
//
//   div-row-bf16 [exhaustive B...]   (every float a, for each divisor B)
#include KERNELS

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

static uint32_t bitsOf(float f) { return std::bit_cast<uint32_t>(f); }
static float floatOf(uint32_t u) { return std::bit_cast<float>(u); }

static long long checked = 0, differ = 0;

static void check(float a, float b) {
  const float fast = stride_div_row_bf16(a, b, 1.0f / b);
  const float exact = stride_round_bf16(a / b);
  ++checked;
  bool same = std::isnan(fast) ? std::isnan(exact) : bitsOf(fast) == bitsOf(exact);
  if (!same && ++differ <= 10)
    std::printf("differ: a %a (0x%08x) b %a: %a, IEEE %a\n", a, bitsOf(a), b,
                fast, exact);
}

int main(int argc, char **argv) {
  std::mt19937 rng(17);
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 0x1p-149f, -0x1p-149f,
                            0x1p-126f, 0x1.fffffep127f, 0x1p-60f, 0x1p60f,
                            0x1p-61f, 0x1p61f, INFINITY, -INFINITY, NAN};
  std::vector<float> divisors = {1.0f,     3.0f,      -2.5f,   1234.567f,
                                 7.1e-5f,  0x1p-60f,  0x1p60f, 1e-30f,
                                 1e30f,    0x1p-130f, 0.0f,    -0.0f,
                                 INFINITY, NAN};
  if (argc > 1 && std::strcmp(argv[1], "exhaustive") == 0) {
    for (int i = 2; i < argc; ++i)
      for (uint64_t u = 0; u <= 0xffffffffu; ++u)
        check(floatOf(static_cast<uint32_t>(u)), std::strtof(argv[i], nullptr));
    std::printf("checked %lld quotients over %d divisors: %lld differ\n",
                checked, argc - 2, differ);
    return differ != 0;
  }
  std::uniform_real_distribution<float> unit(0.5f, 2.0f);
  for (int i = 0; i < 16; ++i)
    divisors.push_back(std::ldexp(unit(rng), static_cast<int>(rng() % 80) - 40));
  for (float b : divisors) {
    for (float a : specials)
      check(a, b);
    // Quotients near a midpoint: q's lower half within 48 of 0x8000, over
    // exponents across the range, and the a that gives each, with its
    // float neighbours.
    for (int i = 0; i < 20000; ++i) {
      uint32_t exponent = 1 + rng() % 253, low = 0x8000 - 48 + rng() % 97;
      uint32_t q = (rng() & 0x80000000u) | exponent << 23 |
                   (rng() & 0x7f0000u) | low;
      float a = floatOf(q) * b;
      for (int step = -3; step <= 3; ++step)
        check(floatOf(bitsOf(a) + step), b);
    }
    for (int i = 0; i < 100000; ++i)
      check(floatOf(rng()), b);
  }
  std::printf("checked %lld quotients over %zu divisors: %lld differ\n",
              checked, divisors.size(), differ);
  return differ != 0;
}
