#include "cli/theory_tables.hpp"

#include <cmath>
#include <ostream>

#include "cli/output.hpp"

namespace phasesim::cli {

void print_verdict(const theorems::Verdict& v, std::ostream& out) {
  out << v.title << "\n"
      << "prediction: " << v.prediction << "\n"
      << "regime:     " << (v.inside ? "inside" : "outside") << " (" << v.regime << ")\n"
      << "check:      " << v.check << "\n"
      << "verdict:    "
      << (v.agree    ? "agree"
          : v.inside ? "DISAGREE"
                     : "DISAGREE, outside the regime (expected)")
      << '\n';
}

std::string slope_line(double slope) {
  return "log-log slope of the gap, least squares over all N: " +
         (std::isfinite(slope) ? format_fixed(slope, 4) : "n/a (needs two N with a gap above 0)") +
         " (theorem diversity checks the slope over the last two N)";
}

}  // namespace phasesim::cli
