#include "phasesim/checkpoint/dtype.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "phasesim/core/contract.hpp"

namespace phasesim::checkpoint {
namespace {

struct DtypeInfo {
  Dtype dtype;
  const char* name;
  int bits;
};

constexpr std::array<DtypeInfo, 19> kDtypes{{
    {Dtype::BOOL, "BOOL", 8},       {Dtype::U8, "U8", 8},           {Dtype::I8, "I8", 8},
    {Dtype::F8_E5M2, "F8_E5M2", 8}, {Dtype::F8_E4M3, "F8_E4M3", 8}, {Dtype::F8_E8M0, "F8_E8M0", 8},
    {Dtype::I16, "I16", 16},        {Dtype::U16, "U16", 16},        {Dtype::F16, "F16", 16},
    {Dtype::BF16, "BF16", 16},      {Dtype::I32, "I32", 32},        {Dtype::U32, "U32", 32},
    {Dtype::F32, "F32", 32},        {Dtype::F64, "F64", 64},        {Dtype::I64, "I64", 64},
    {Dtype::U64, "U64", 64},        {Dtype::F4, "F4", 4},           {Dtype::F6_E2M3, "F6_E2M3", 6},
    {Dtype::F6_E3M2, "F6_E3M2", 6},
}};

const DtypeInfo& info(Dtype dtype) {
  for (const auto& d : kDtypes) {
    if (d.dtype == dtype) return d;
  }
  PHASESIM_ASSERT(false);
  return kDtypes.front();
}

}  // namespace

std::optional<Dtype> dtype_named(std::string_view name) {
  for (const auto& d : kDtypes) {
    if (name == d.name) return d.dtype;
  }
  return std::nullopt;
}

const char* dtype_name(Dtype dtype) { return info(dtype).name; }

int dtype_bits(Dtype dtype) { return info(dtype).bits; }

std::string dtype_names() {
  std::string names;
  for (const auto& d : kDtypes) names += (names.empty() ? "" : ", ") + std::string(d.name);
  return names;
}

std::optional<std::uint64_t> dtype_bytes(Dtype dtype, std::uint64_t elements) {
  const auto bits = static_cast<std::uint64_t>(dtype_bits(dtype));
  if (elements > std::numeric_limits<std::uint64_t>::max() / bits) return std::nullopt;
  return (elements * bits + 7) / 8;
}

bool readable_value(Dtype dtype) {
  return dtype == Dtype::F32 || dtype == Dtype::F16 || dtype == Dtype::BF16 ||
         dtype == Dtype::F8_E4M3;
}

float f32_from_bits(std::uint32_t bits) {
  float value = 0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

float bf16_from_bits(std::uint16_t bits) { return f32_from_bits(std::uint32_t{bits} << 16); }

float f16_from_bits(std::uint16_t bits) {
  const float sign = (bits & 0x8000U) != 0 ? -1.0F : 1.0F;
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  if (exponent == 0x1F) {
    return mantissa == 0 ? sign * std::numeric_limits<float>::infinity()
                         : std::numeric_limits<float>::quiet_NaN();
  }
  // Subnormal: m * 2^-24; normal: (1024 + m) * 2^(e - 25). Both exact in a float.
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);
  return sign * std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
}

float f8_e4m3_from_bits(std::uint8_t bits) {
  const float sign = (bits & 0x80U) != 0 ? -1.0F : 1.0F;
  const int exponent = (bits >> 3) & 0xF;
  const int mantissa = bits & 0x7;
  if (exponent == 0xF && mantissa == 0x7) return std::numeric_limits<float>::quiet_NaN();
  // Subnormal: m/8 * 2^-6 = m * 2^-9; normal: (8 + m) * 2^(e - 10).
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -9);
  return sign * std::ldexp(static_cast<float>(8 + mantissa), exponent - 10);
}

float e8m0_from_bits(std::uint8_t bits) {
  if (bits == 0xFF) return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0F, static_cast<int>(bits) - 127);
}

double decode(Dtype dtype, const std::uint8_t* bytes) {
  switch (dtype) {
    case Dtype::F32:
      return f32_from_bits(std::uint32_t{bytes[0]} | std::uint32_t{bytes[1]} << 8 |
                           std::uint32_t{bytes[2]} << 16 | std::uint32_t{bytes[3]} << 24);
    case Dtype::F16:
      return f16_from_bits(static_cast<std::uint16_t>(bytes[0] | bytes[1] << 8));
    case Dtype::BF16:
      return bf16_from_bits(static_cast<std::uint16_t>(bytes[0] | bytes[1] << 8));
    case Dtype::F8_E4M3:
      return f8_e4m3_from_bits(bytes[0]);
    case Dtype::F8_E8M0:
      return e8m0_from_bits(bytes[0]);
    default:
      PHASESIM_EXPECT(false);  // callers check readable_value first
      return 0;
  }
}

}  // namespace phasesim::checkpoint
