// phasesim compare: the table of several architectures on the same needles (paired trials):
// KV cost, mean, worst, gap and the paired difference of each against the first.
#include <ostream>

#include "cli/door.hpp"
#include "phasesim/commands/niah.hpp"

namespace phasesim::cli {
namespace {

void print_summary(const std::vector<compare::ArchitectureComparison>& comparison, bool exact,
                   std::ostream& out) {
  Table table({"architecture", "kv cost", "of full", "mean", "worst", "gap", "worst/mean",
               "mean - first", "worst - first"});
  for (const auto& c : comparison) {
    const auto& s = c.result.summary;
    table.add_row({c.label, fixed(c.cost.entries_per_token, 4), fixed(c.cost.relative(), 4),
                   fixed(s.mean, 4), fixed(s.worst, 4), fixed(s.gap, 4),
                   s.worst_over_mean ? fixed(*s.worst_over_mean, 3) : "-",
                   with_error(c.mean_difference, c.mean_difference_std_error, exact),
                   with_error(c.worst_difference, c.worst_difference_std_error, exact)});
  }
  table.print(out);
}

void print_groups(const std::vector<compare::ArchitectureComparison>& comparison,
                  std::ostream& out) {
  std::vector<std::string> header{"group"};
  for (const auto& c : comparison) header.push_back(c.label);
  Table table(header);
  for (std::size_t r = 0; r < comparison.front().result.groups.size(); ++r) {
    std::vector<std::string> row{std::to_string(r)};
    for (const auto& c : comparison) row.push_back(fixed(c.result.groups[r].accuracy, 4));
    table.add_row(row);
  }
  table.print(out);
}

void print_comparison(const std::vector<compare::ArchitectureComparison>& comparison,
                      const std::string& engine, std::ostream& out) {
  const auto& first = comparison.front().run;
  const auto& m = first.model;
  const bool exact = !comparison.front().result.summary.trials;
  out << "compare: " << counted(comparison.size(), "architecture") << " on the same needles, ";
  if (m.full_vector()) {
    out << "dim " << *m.dim << ", query noise " << m.query_noise;
  } else {
    out << "beta " << *m.beta;
  }
  out << ", context " << m.context << ", " << counted(first.needles.groups, "group");
  if (!exact) out << " x " << counted(first.needles.prompts, "prompt");
  out << ", combine " << first.combine.text << ", engine " << engine << ", seed " << m.seed << "\n";
  print_summary(comparison, exact, out);
  out << "\naccuracy per group" << (exact ? " (exact)" : "") << ":\n";
  print_groups(comparison, out);
  out << "\nkv cost: entries per token summed over heads and layers, and as a fraction of full "
         "attention with as many heads; differences are against "
      << comparison.front().label
      << (exact ? " (exact)" : ", on the same trials, with their standard errors") << "\n";
}

}  // namespace

void add_compare_command(CLI::App& app, Action& action, const commands::Environment& environment) {
  add_command<commands::Compare>(
      app, action, environment,
      {[](const commands::Compare& compare, const commands::Compare::Result& comparison, double,
          std::ostream& out) {
        print_comparison(comparison, compare.plan().engine().name(), out);
      }});
}

}  // namespace phasesim::cli
