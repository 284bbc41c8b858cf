// The dtypes of a safetensors header and the exact decoding of F32, F16, BF16, F8_E4M3 and
// F8_E8M0: known bit patterns (IEEE 754, the bfloat16 layout, OCP's FP8 E4M3 "fn" and E8M0),
// every code of the 8-bit formats, and the byte counts of packed sub-byte types.
#include "phasesim/checkpoint/dtype.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace phasesim::checkpoint;

TEST_CASE("F16 decodes normals, subnormals, zeros, infinities and NaN exactly") {
  CHECK(f16_from_bits(0x3C00) == 1.0F);
  CHECK(f16_from_bits(0xC000) == -2.0F);
  CHECK(f16_from_bits(0x3555) == 0x1.554p-2F);  // the half nearest 1/3
  CHECK(f16_from_bits(0x7BFF) == 65504.0F);     // the largest half
  CHECK(f16_from_bits(0x0400) == 0x1p-14F);     // the smallest normal
  CHECK(f16_from_bits(0x0001) == 0x1p-24F);     // the smallest subnormal
  CHECK(f16_from_bits(0x03FF) == 0x3FFp-24F);   // the largest subnormal
  CHECK(f16_from_bits(0x0000) == 0.0F);
  CHECK(std::signbit(f16_from_bits(0x8000)));
  CHECK(f16_from_bits(0x7C00) == std::numeric_limits<float>::infinity());
  CHECK(f16_from_bits(0xFC00) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(f16_from_bits(0x7E00)));
  CHECK(std::isnan(f16_from_bits(0x7C01)));
}

TEST_CASE("BF16 is the upper half of a float") {
  CHECK(bf16_from_bits(0x3F80) == 1.0F);
  CHECK(bf16_from_bits(0xC040) == -3.0F);
  CHECK(bf16_from_bits(0x3E80) == 0.25F);
  CHECK(bf16_from_bits(0x7F7F) == 0x1.FEp127F);  // the largest bfloat16
  CHECK(bf16_from_bits(0x0001) == 0x1p-133F);    // a subnormal
  CHECK(std::isinf(bf16_from_bits(0x7F80)));
  CHECK(std::isnan(bf16_from_bits(0x7FC0)));
}

TEST_CASE("F8_E4M3 (fn): bias 7, no infinities, 448 at the top, NaN at S.1111.111") {
  CHECK(f8_e4m3_from_bits(0x38) == 1.0F);
  CHECK(f8_e4m3_from_bits(0x40) == 2.0F);
  CHECK(f8_e4m3_from_bits(0x44) == 3.0F);
  CHECK(f8_e4m3_from_bits(0xB0) == -0.5F);
  CHECK(f8_e4m3_from_bits(0x7E) == 448.0F);
  CHECK(f8_e4m3_from_bits(0xFE) == -448.0F);
  CHECK(f8_e4m3_from_bits(0x78) == 256.0F);   // exponent 15 holds numbers, not infinity
  CHECK(f8_e4m3_from_bits(0x08) == 0x1p-6F);  // the smallest normal
  CHECK(f8_e4m3_from_bits(0x01) == 0x1p-9F);  // the smallest subnormal
  CHECK(f8_e4m3_from_bits(0x07) == 7 * 0x1p-9F);
  CHECK(std::isnan(f8_e4m3_from_bits(0x7F)));
  CHECK(std::isnan(f8_e4m3_from_bits(0xFF)));
  // The positive codes 0x00..0x7E rise strictly; every code but the two NaNs is finite.
  int nans = 0;
  for (int b = 0; b < 256; ++b) {
    const float v = f8_e4m3_from_bits(static_cast<std::uint8_t>(b));
    nans += std::isnan(v) ? 1 : 0;
    if (b > 0 && b <= 0x7E) CHECK(v > f8_e4m3_from_bits(static_cast<std::uint8_t>(b - 1)));
    if (b >= 0x80 && b != 0xFF) CHECK(v == -f8_e4m3_from_bits(static_cast<std::uint8_t>(b - 0x80)));
  }
  CHECK(nans == 2);
}

TEST_CASE("F8_E8M0 is a power of two, 2^(e - 127), NaN at 255") {
  CHECK(e8m0_from_bits(127) == 1.0F);
  CHECK(e8m0_from_bits(120) == 0x1p-7F);
  CHECK(e8m0_from_bits(0) == 0x1p-127F);
  CHECK(e8m0_from_bits(254) == 0x1p127F);
  CHECK(std::isnan(e8m0_from_bits(255)));
}

TEST_CASE("decode reads little-endian bytes whatever the host") {
  const std::uint8_t f32[] = {0x00, 0x00, 0xC0, 0x3F};  // 1.5f
  CHECK(decode(Dtype::F32, f32) == 1.5);
  const std::uint8_t half[] = {0x00, 0xC0};  // F16 -2, BF16 -2
  CHECK(decode(Dtype::F16, half) == -2.0);
  CHECK(decode(Dtype::BF16, half) == -2.0);
  const std::uint8_t fp8[] = {0x44};
  CHECK(decode(Dtype::F8_E4M3, fp8) == 3.0);
  CHECK(decode(Dtype::F8_E8M0, fp8) == std::ldexp(1.0, 0x44 - 127));
}

TEST_CASE("dtype names, sizes and byte counts, sub-byte types packed") {
  CHECK(dtype_named("F8_E4M3") == Dtype::F8_E4M3);
  CHECK(dtype_named("BF16") == Dtype::BF16);
  CHECK(!dtype_named("bf16"));
  CHECK(!dtype_named("Q4_K"));
  for (const char* name :
       {"BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0", "I16", "U16", "F16", "BF16", "I32",
        "U32", "F32", "F64", "I64", "U64", "F4", "F6_E2M3", "F6_E3M2"}) {
    REQUIRE(dtype_named(name));
    CHECK(std::string(dtype_name(*dtype_named(name))) == name);
  }
  CHECK(dtype_bytes(Dtype::F32, 3) == 12U);
  CHECK(dtype_bytes(Dtype::F4, 3) == 2U);  // 12 bits round up to 2 bytes
  CHECK(dtype_bytes(Dtype::F6_E2M3, 4) == 3U);
  CHECK(!dtype_bytes(Dtype::F64, std::numeric_limits<std::uint64_t>::max() / 4));
  CHECK(readable_value(Dtype::F8_E4M3));
  CHECK(!readable_value(Dtype::F8_E8M0));  // a scale, not a value
  CHECK(!readable_value(Dtype::I8));
}
