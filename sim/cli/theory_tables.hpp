#pragma once
// What the theorem commands' tables share.
#include <iosfwd>
#include <string>

#include "phasesim/theorems/checks.hpp"

namespace phasesim::cli {

/// "log-log slope of the gap, least squares over all N: -1.1777 (...)", saying which of the
/// two slopes it is; n/a when it is not defined (one N, or no gap: S = 1).
std::string slope_line(double slope);

/// A theorem's verdict as the table of `theorem`: title, prediction, regime, check, verdict.
void print_verdict(const theorems::Verdict& verdict, std::ostream& out);

}  // namespace phasesim::cli
