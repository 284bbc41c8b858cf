#include "phasesim/core/simd_target.hpp"

#include <hwy/targets.h>

#include <cstdint>
#include <cstdlib>

#include "phasesim/core/error.hpp"

namespace phasesim {
namespace {

struct NamedTarget {
  std::string_view name;
  std::int64_t bit;
};

// Highway numbers its targets best first within an architecture: a lower bit is a better
// target, so "this one and below" disables every lower bit.
constexpr NamedTarget kNamedTargets[] = {
    {"avx3_dl", HWY_AVX3_DL}, {"avx3", HWY_AVX3},     {"avx2", HWY_AVX2},     {"sse4", HWY_SSE4},
    {"ssse3", HWY_SSSE3},     {"emu128", HWY_EMU128}, {"scalar", HWY_SCALAR},
};

// Only the targets this build compiled can be dispatched to.
bool compiled(const NamedTarget& target) { return (HWY_TARGETS & target.bit) != 0; }

}  // namespace

std::string simd_target_names() {
  std::string names;
  for (const auto& target : kNamedTargets) {
    if (compiled(target)) names += (names.empty() ? "" : ", ") + std::string(target.name);
  }
  return names;
}

void limit_simd_target(std::string_view name) {
  for (const auto& target : kNamedTargets) {
    if (target.name == name && compiled(target)) {
#if HWY_HAVE_RUNTIME_DISPATCH
      hwy::DisableTargets(target.bit - 1);
#endif  // else (the browser build) one target is compiled and called directly, without libhwy
      return;
    }
  }
  throw InputError("invalid SIMD target '" + std::string(name) +
                   "' (allowed in this build: " + simd_target_names() + ")");
}

void limit_simd_target_from_environment() {
  const char* value = std::getenv(kSimdTargetVariable);
  if (value == nullptr || *value == '\0') return;
  try {
    limit_simd_target(value);
  } catch (const InputError& e) {
    throw InputError(std::string(kSimdTargetVariable) + ": " + e.what());
  }
}

}  // namespace phasesim
