#pragma once
// The promise of every gate that parse_gates returns (include/phasesim/model/gate.hpp),
// checked by the two gate fuzz targets.
#include <cmath>
#include <vector>

#include "fuzz_input.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::fuzz {

inline void check_gates(const std::vector<Gate>& gates, int window) {
  check(!gates.empty(), "at least one gate");
  for (const auto& gate : gates) {
    check(gate.window() == window, "one weight per slot");
    double total = 0;
    for (double w : gate.weights) {
      check(std::isfinite(w) && w >= 0, "weights finite and >= 0");
      total += w;
    }
    check(std::abs(total - 1) < 1e-9, "weights sum to 1");
    check(replicate_gate(gate, 1).window() == window, "a replica has the same window");
  }
}

}  // namespace phasesim::fuzz
