#pragma once
// The block generator's benchmarks, one set per SIMD target: registered at run time, for the
// targets this CPU runs (generator_benchmark.cpp).

namespace phasesim {

void register_generator_benchmarks();

}  // namespace phasesim
