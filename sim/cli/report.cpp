#include "cli/report.hpp"

#include <ostream>
#include <string>

#include "cli/output.hpp"

namespace phasesim::cli {
namespace {

template <typename T, typename Format>
std::string join(const std::vector<T>& values, Format format) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + format(values[i]);
  return text.empty() ? "-" : text;
}

}  // namespace

void print_coverage_table(const std::vector<PhaseCoverage>& phases, std::ostream& out) {
  Table table({"phase", "slots", "multiplicity", "coverage", "best_weight", "best_normalized"});
  for (const auto& p : phases) {
    table.add_row({std::to_string(p.phase), join(p.slots, [](int s) { return std::to_string(s); }),
                   std::to_string(p.multiplicity), fixed(p.coverage), fixed(p.best_weight),
                   fixed(p.best_normalized)});
  }
  table.print(out);
}

void print_phase_channel_table(const std::vector<PhaseCoverage>& phases, const Gate& gate,
                               const std::vector<double>& success, std::ostream& out) {
  const auto u = normalized_weights(gate);
  Table table({"phase", "u of its slots", "p_success"});
  for (const auto& p : phases) {
    const auto u_text =
        join(p.slots, [&](int s) { return fixed(u[static_cast<std::size_t>(s)], 4); });
    table.add_row(
        {std::to_string(p.phase), u_text, fixed(success[static_cast<std::size_t>(p.phase)])});
  }
  table.print(out);
}

}  // namespace phasesim::cli
