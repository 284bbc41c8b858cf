#pragma once
// The table `niah` prints: the header line, per-group accuracies with bars, the summary
// and the knockout.
#include <iosfwd>
#include <string>

#include "phasesim/niah/report.hpp"

namespace phasesim::cli {

void print_niah_table(const niah::NiahRun& run, const std::string& engine,
                      const niah::NiahResult& result, double seconds, std::ostream& out);

}  // namespace phasesim::cli
