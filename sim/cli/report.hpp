#pragma once
// Tables shared by several commands (coverage, channel, demo).
#include <iosfwd>
#include <vector>

#include "phasesim/coverage.hpp"

namespace phasesim::cli {

void print_coverage_table(const std::vector<PhaseCoverage>& phases, std::ostream& out);

/// One row per phase: the normalized weights of its slots and the success probability.
void print_phase_channel_table(const std::vector<PhaseCoverage>& phases, const Gate& gate,
                               const std::vector<double>& success, std::ostream& out);

}  // namespace phasesim::cli
