// The block generator (phasesim/core/normal_block.hpp) against RandomStream, on every SIMD
// target this CPU runs: the Philox words bit for bit, the float pairs bit for bit against the
// scalar definition (normal_pair_float, which the CUDA kernel runs), and within float rounding
// of the double normal_pair.
#include "phasesim/core/normal_block.hpp"

#include <doctest/doctest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "phasesim/core/error.hpp"
#include "phasesim/core/simd_target.hpp"

using namespace phasesim;

namespace {

// Runs body once per SIMD target compiled in and supported here (AVX-512, AVX2, SSE4, SSSE3
// and the scalar fallback on an AVX-512 x86 machine), then restores the normal dispatch.
template <typename Body>
void for_each_target(Body body) {
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    CAPTURE(hwy::TargetName(target));
    body();
  }
  hwy::SetSupportedTargetsForTest(0);
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The float pair may differ from the double one by (float_normal.hpp): the uniforms' float
// rounding (u to 2^-23 relative, a to 2^-24 plus the 2^-31 of the dropped low word), log to
// 1.4 ulp, sinpi/cospi to 1.5 ulp, and the products: each component by at most 9 x 2^-24
// times the radius r, plus the radius' error from the rounding of u, which is 2^-23 / r where
// r is large and at most sqrt(2^-22) = 2^-11 where r is near 0 (u near 1). The tolerance takes
// each term twice. (On 40 million pairs the largest error was 0.21 of it.)
double pair_tolerance(double radius) {
  return radius * 0x1p-20 + std::min(0x1p-22 / radius, 0x1p-10);
}

}  // namespace

TEST_CASE("the block generator draws RandomStream's Philox words, bit for bit" *
          doctest::test_suite("bitexact")) {
  const RandomStream stream(0x123456789abcdefULL, 41, 3, Stream::key);
  for_each_target([&] {
    for (const std::uint32_t first : {0u, 7u, 4294967290u}) {  // the last wraps the block
      std::vector<std::uint32_t> words(4 * 45);
      philox_row(stream, 99, first, 45, words.data());
      for (std::uint32_t i = 0; i < 45; ++i) {
        const auto expected = stream.bits(99, first + i);
        for (int k = 0; k < 4; ++k) CHECK(words[4 * i + k] == expected[k]);
      }
    }
  });
}

TEST_CASE("normal_rows and normal_sequence write normal_pair_float, bit for bit" *
          doctest::test_suite("bitexact")) {
  const RandomStream stream(77, 5, 1, Stream::key);
  for_each_target([&] {
    // Short rows (several to a Philox batch: up to 31 on AVX-512) and long ones, 13 rows so
    // that short ones end in a part batch, with padding between rows and none.
    for (const int cols : {1, 2, 3, 5, 8, 12, 16, 31, 64, 100}) {
      for (const int pad : {0, 3}) {
        CAPTURE(cols);
        CAPTURE(pad);
        const int rows = 13, stride = cols + pad;
        std::vector<float> out(static_cast<std::size_t>(rows * stride + 1), -7.0f);
        normal_rows(stream, 1000, rows, cols, 0.25f, out.data(), stride);
        CHECK(out.back() == -7.0f);
        for (int r = 0; r < rows; ++r) {
          for (int c = 0; c < stride; ++c) {
            const float got = out[static_cast<std::size_t>(r * stride + c)];
            if (c >= cols) {
              CHECK(got == -7.0f);  // padding untouched
              continue;
            }
            const auto pair = stream.normal_pair_float(1000 + r, c / 2, 0.25f);
            CHECK(same_bits(got, c % 2 == 0 ? pair.x : pair.y));
          }
        }
      }
    }
    std::vector<float> seq(1001, -7.0f);
    normal_sequence(stream, 4294967000u, 2, 1000, 1.0f, seq.data());
    for (std::uint32_t i = 0; i < 1000; ++i) {
      const auto pair = stream.normal_pair_float(4294967000u + i / 2, 2);
      CHECK(same_bits(seq[i], i % 2 == 0 ? pair.x : pair.y));
    }
    CHECK(seq[1000] == -7.0f);
  });
}

TEST_CASE("Box-Muller on philox_row's words gives normal_rows' pairs, bit for bit" *
          doctest::test_suite("bitexact")) {
  const RandomStream stream(5, 8, 2, Stream::key);
  for_each_target([&] {
    for (const int pairs : {1, 7, 8, 33, 64}) {  // partial and whole vectors on every target
      CAPTURE(pairs);
      std::vector<std::uint32_t> words(static_cast<std::size_t>(4 * pairs));
      philox_row(stream, 12, 0, pairs, words.data());
      std::vector<float> got(static_cast<std::size_t>(2 * pairs + 1), -7.0f);
      std::vector<float> expected(static_cast<std::size_t>(2 * pairs));
      box_muller_words(words.data(), pairs, 0.5f, got.data());
      normal_rows(stream, 12, 1, 2 * pairs, 0.5f, expected.data(), 2 * pairs);
      for (int c = 0; c < 2 * pairs; ++c) CHECK(same_bits(got[c], expected[c]));
      CHECK(got.back() == -7.0f);  // nothing written past the last pair
    }
  });
}

TEST_CASE("the float pairs are RandomStream::normal_pair to float rounding") {
  const RandomStream stream(2024, 9, 0, Stream::query_noise);
  const std::uint32_t pairs = 200000;
  std::vector<float> out(2 * pairs);
  normal_sequence(stream, 0, 0, 2 * pairs, 1.0f, out.data());
  double worst = 0;  // largest error in units of the tolerance
  for (std::uint32_t i = 0; i < pairs; ++i) {
    const auto exact = stream.normal_pair(i, 0);
    const double radius = std::hypot(exact.x, exact.y);
    const double error =
        std::max(std::abs(out[2 * i] - exact.x), std::abs(out[2 * i + 1] - exact.y));
    worst = std::max(worst, error / pair_tolerance(radius));
  }
  CAPTURE(worst);
  CHECK(worst <= 1.0);
  CHECK(worst > 0.01);  // and the tolerance is tight: float rounding uses a visible part of it
}

TEST_CASE("the float formula's pieces: log, sin and cos of pi a, uniforms") {
  namespace fn = float_normal;
  double log_error = 0;
  for (std::uint32_t bits = 0x1F000000u; bits <= 0x3F800000u; bits += 997) {
    const float u = fn::from_bits(bits);
    const double exact = std::log(static_cast<double>(u));
    if (exact != 0) log_error = std::max(log_error, std::abs(fn::log_unit(u) - exact) / -exact);
  }
  CHECK(fn::log_unit(1.0f) == 0.0f);
  CHECK(log_error < 2 * 0x1p-24);  // measured 1.34 x 2^-24
  double trig_error = 0;
  for (int k = -100000; k <= 100000; ++k) {
    const float a = static_cast<float>(k) / 100000;
    const auto p = fn::sincospi(a);
    const double pi_a = 3.14159265358979323846 * a;
    trig_error =
        std::max({trig_error, std::abs(p.x - std::sin(pi_a)), std::abs(p.y - std::cos(pi_a))});
  }
  CHECK(trig_error < 2 * 0x1p-24);  // measured 1.49 x 2^-24
  CHECK(fn::uniform(0, 0) == 0x1p-65f);
  CHECK(fn::uniform(0xFFFFFFFFu, 0xFFFFFFFFu) == 1.0f);
  CHECK(fn::signed_uniform(0x80000000u) == -1.0f);
  CHECK(fn::signed_uniform(0x7FFFFFFFu) == 1.0f);
}

TEST_CASE("the dispatch picks a SIMD target") {
  CHECK_FALSE(simd_target().empty());
  MESSAGE("block generator target: " << simd_target());
}

TEST_CASE("limit_simd_target refuses a name this build has no target for, naming those it has") {
  const auto names = simd_target_names();
  CHECK(names.find("avx2") != std::string::npos);  // Highway compiles AVX2 on every x86-64
  CHECK_THROWS_WITH_AS(
      limit_simd_target("avx9"),
      ("invalid SIMD target 'avx9' (allowed in this build: " + names + ")").c_str(), InputError);
  CHECK_THROWS_AS(limit_simd_target(""), InputError);
}
