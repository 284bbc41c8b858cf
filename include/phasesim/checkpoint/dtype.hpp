#pragma once
// The element types of a safetensors file (the dtype strings of its header) and the exact
// decoding of the ones phasesim reads: F32, F16, BF16 and F8_E4M3 for values, F8_E8M0 for
// the block scales of FP8 weights. Bytes are little-endian whatever the host, as the format
// says. Every decoded value is exact in a float: each is a float with fewer bits.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace phasesim::checkpoint {

/// Every dtype a safetensors header may name (the format's list, sub-byte floats included).
enum class Dtype {
  BOOL,
  U8,
  I8,
  F8_E5M2,
  F8_E4M3,
  F8_E8M0,
  I16,
  U16,
  F16,
  BF16,
  I32,
  U32,
  F32,
  F64,
  I64,
  U64,
  F4,
  F6_E2M3,
  F6_E3M2,
};

/// The dtype a header names, or unset for a name the format does not have.
std::optional<Dtype> dtype_named(std::string_view name);
/// "F8_E4M3": the header's name.
const char* dtype_name(Dtype dtype);
/// Bits per element (4 for F4, 6 for the F6 types).
int dtype_bits(Dtype dtype);
/// "BOOL, U8, ...": every name, for messages.
std::string dtype_names();

/// The bytes of `elements` elements (sub-byte types packed, rounded up to a byte), or unset
/// when that count overflows 64 bits.
std::optional<std::uint64_t> dtype_bytes(Dtype dtype, std::uint64_t elements);

/// True for the dtypes read as values: F32, F16, BF16, F8_E4M3.
bool readable_value(Dtype dtype);
/// "F32, F16, BF16, F8_E4M3": what readable_value accepts, for messages.
inline constexpr const char* kReadableValues = "F32, F16, BF16, F8_E4M3";

/// IEEE binary32 from its bits.
float f32_from_bits(std::uint32_t bits);
/// bfloat16: the upper half of a binary32.
float bf16_from_bits(std::uint16_t bits);
/// IEEE binary16 (subnormals, infinities and NaN included).
float f16_from_bits(std::uint16_t bits);
/// FP8 E4M3 as OCP's "fn" variant that safetensors means: bias 7, no infinities, S.1111.111
/// is NaN, largest finite 448, subnormals m/8 * 2^-6.
float f8_e4m3_from_bits(std::uint8_t bits);
/// FP8 E8M0 (a scale): 2^(e - 127), and NaN for e = 255.
float e8m0_from_bits(std::uint8_t bits);

/// The element at `bytes` (little-endian) of a readable_value dtype or F8_E8M0, as a double.
double decode(Dtype dtype, const std::uint8_t* bytes);

}  // namespace phasesim::checkpoint
