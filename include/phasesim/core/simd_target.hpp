#pragma once
// Limiting the SIMD dispatch (Highway's, behind normal_block.hpp and the full engine's scan)
// to a named target and the ones below it, so that one machine runs the code paths an older
// CPU would take: the CPU-emulation step of scripts/run-tests.sh sets PHASESIM_SIMD_TARGET.
#include <string>
#include <string_view>

namespace phasesim {

/// The environment variable the CLI and the test program read once at start.
inline constexpr const char* kSimdTargetVariable = "PHASESIM_SIMD_TARGET";

/// The names limit_simd_target accepts, best first: the targets this build compiled, e.g.
/// "avx3, avx2, sse4, ssse3, scalar" with Debian's Highway 1.0.3 on x86-64 (a build's
/// portable fallback is "emu128" or "scalar").
std::string simd_target_names();

/// From now on dispatch picks `name` or, on a CPU without it, the best target below it
/// ("avx2" on an AVX-512 machine runs the AVX2 code). Throws InputError for a name not in
/// simd_target_names(). The limit holds for the whole process: call it before any work.
void limit_simd_target(std::string_view name);

/// Calls limit_simd_target with the value of PHASESIM_SIMD_TARGET when it is set and not
/// empty; the InputError then names the variable.
void limit_simd_target_from_environment();

}  // namespace phasesim
