// phasesim frontier: the frontier's designs, cheapest first, then the presets marked against
// it; each row's cost, quality and the engine that computed it.
#include <ostream>

#include "cli/door.hpp"
#include "phasesim/commands/frontier.hpp"

namespace phasesim::cli {
namespace {

std::string how(const frontier::Candidate& c, const frontier::Row& row) {
  if (!row.summary.trials) return c.plan.engine().name();
  return c.plan.engine().name() + ", " + std::to_string(*row.summary.trials) + " trials";
}

std::string mark(const frontier::Row& row) {
  if (row.on_frontier) return "on the frontier";
  if (row.below_floor) return "below the floor";
  return "beaten by " + row.dominated_by;
}

void print_rows(const frontier::FrontierPlan& plan, const frontier::FrontierResult& result,
                bool presets, std::ostream& out) {
  std::vector<std::string> header{presets ? "preset" : "design", "kv/token", "read/query", "worst",
                                  "mean"};
  if (plan.spec.weight) header.push_back("score");
  header.push_back("engine");
  if (presets) header.push_back("against the frontier");
  Table table(header);
  const auto add = [&](const frontier::Row& row) {
    const auto& c = plan.candidates[row.candidate];
    const bool exact = !row.summary.trials;
    std::vector<std::string> cells{c.name, fixed(row.cost.entries_per_token, 4),
                                   fixed(row.read_entries, 0),
                                   with_error(row.summary.worst, row.worst_std_error, exact),
                                   with_error(row.summary.mean, row.summary.mean_std_error, exact)};
    if (plan.spec.weight) cells.push_back(fixed(row.score, 4));
    cells.push_back(how(c, row));
    if (presets) cells.push_back(mark(row));
    table.add_row(cells);
  };
  if (presets) {
    for (const auto& row : result.rows)
      if (plan.candidates[row.candidate].preset) add(row);
  } else {
    for (const auto f : result.frontier) add(result.rows[f]);
  }
  table.print(out);
}

void print_frontier(const commands::Frontier& command, const commands::Frontier::Result& result,
                    std::ostream& out) {
  const auto& plan = command.plan();
  const auto& spec = plan.spec;
  const auto designs = frontier::designs(spec.space).size();
  out << "frontier: " << counted(designs, "design") << ", context " << spec.model.context
      << ", beta " << spec.model.beta.value_or(kDefaultBeta) << ", "
      << counted(spec.model.needle_tokens, "needle token");
  if (spec.floor) out << ", floor " << *spec.floor;
  if (spec.weight) out << ", weight " << *spec.weight << " on the mean";
  out << "\n";
  print_rows(plan, result.frontier, false, out);
  if (spec.presets) {
    out << "\n";
    print_rows(plan, result.frontier, true, out);
  }
  out << "\n" << counted(result.frontier.frontier.size(), "design") << " on the frontier";
  if (spec.floor) {
    std::size_t below = 0;
    for (const auto& row : result.frontier.rows)
      below += !plan.candidates[row.candidate].preset && row.below_floor;
    out << ", " << below << " below the floor";
  }
  out << "; kv/token: entries stored per token of context; read/query: entries the attention "
         "reads per query (selected entries, a raw-block cache's block scores and selected raw "
         "tokens, and the sliding window's tokens)\n";
  for (const auto& file : result.files) out << "wrote " << file << "\n";
}

}  // namespace

void add_frontier_command(CLI::App& app, Action& action, const commands::Environment& environment) {
  add_command<commands::Frontier>(
      app, action, environment,
      {[](const commands::Frontier& command, const commands::Frontier::Result& result, double,
          std::ostream& out) { print_frontier(command, result, out); }});
}

}  // namespace phasesim::cli
