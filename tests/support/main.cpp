#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

#include "phasesim/core/error.hpp"
#include "phasesim/core/simd_target.hpp"

// The in-process tests honour PHASESIM_SIMD_TARGET as the CLI does, so that the CPU-emulation
// step of scripts/run-tests.sh runs them on the lower SIMD target too.
int main(int argc, char** argv) {
  try {
    phasesim::limit_simd_target_from_environment();
  } catch (const phasesim::InputError& e) {
    std::cerr << "phasesim_tests: " << e.what() << '\n';
    return 2;
  }
  return doctest::Context(argc, argv).run();
}
