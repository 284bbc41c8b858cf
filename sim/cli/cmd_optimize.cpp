// phasesim optimize: the gate that maximizes J over the simplex (Theorem 1).
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/theory_options.hpp"
#include "phasesim/theorems/concentration.hpp"
#include "phasesim/theorems/optimize.hpp"

namespace phasesim::cli {
namespace {

struct OptimizeOptions {
  ObjectiveOptions objective;
  theorems::OptimizeSettings search;
  bool progress = false;
  std::string json;
};

void print_optimum(const theorems::Objective& objective, const theorems::GateOptimum& best,
                   std::ostream& out) {
  Table gate({"slot", "phase", "weight"});
  for (std::size_t s = 0; s < best.gate.size(); ++s) {
    gate.add_row({std::to_string(s),
                  std::to_string(objective.geometry.phase_of_slot(static_cast<int>(s))),
                  fixed(best.gate[s], 6)});
  }
  gate.print(out);
  Table summary({"quantity", "value"});
  summary.add_row({"objective J", fixed(best.objective, 9)});
  summary.add_row({"one-hot J (slot " + std::to_string(best.onehot_slot) + ")",
                   fixed(best.onehot_objective, 9)});
  summary.add_row({"max weight", fixed(best.summary.max_weight, 6)});
  summary.add_row({"entropy (nats)", fixed(best.summary.entropy, 6)});
  summary.add_row({"k_effective (slots above 1%)", std::to_string(best.summary.k_effective)});
  summary.add_row({"k* predicted (equal-split law)", std::to_string(best.k_star_predicted)});
  summary.add_row({"best start", best.best_start});
  out << '\n';
  summary.print(out);
}

int run_optimize(const OptimizeOptions& options, std::ostream& out) {
  const auto objective = options.objective.objective();
  const auto best = theorems::optimize_gate(
      objective, options.search,
      start_optimize("optimize", objective, options.search, options.progress, out));

  auto doc = new_document("optimize");
  put_objective(doc, options.objective);
  doc["weights"] = objective.weights();
  put_search(doc, options.search);
  doc["gate"] = best.gate;
  doc["objective"] = best.objective;
  doc["per_phase"] = best.per_phase;
  doc["onehot_objective"] = best.onehot_objective;
  doc["onehot_slot"] = best.onehot_slot;
  doc["max_weight"] = best.summary.max_weight;
  doc["entropy"] = best.summary.entropy;
  doc["k_effective"] = best.summary.k_effective;
  doc["k_star_predicted"] = best.k_star_predicted;
  if (objective.model == theorems::RetentionModel::normalized) {
    doc["max_weight_first_order"] = theorems::vertex_perturbation(objective).max_weight;
  }
  doc["equal_split_values"] = theorems::equal_split_law(objective).value;
  doc["best_start"] = best.best_start;
  doc["starts"] = best.starts;
  doc["iterations"] = best.iterations;

  if (wants_table(options.json)) {
    out << "optimal gate, W=" << objective.geometry.window << " S=" << objective.geometry.stride
        << " beta=" << objective.beta << " N=" << objective.entries << " ("
        << options.objective.model << " model, " << best.starts << " starts)\n";
    print_optimum(objective, best, out);
  }
  write_json(options.json, doc);
  return kSuccess;
}

}  // namespace

void add_optimize_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<OptimizeOptions>();
  auto* cmd = app.add_subcommand(
      "optimize", "The gate that maximizes J (L-BFGS on the logits, exact gradients, restarts)");
  add_objective_options(*cmd, options->objective, true,
                        "Phase weights w0,w1,... of J (default uniform)");
  add_search_options(*cmd, options->search,
                     "Random starts random:SEED+r:SCALE besides the equal splits");
  add_progress_option(*cmd, options->progress);
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    const auto objective = options->objective.objective();
    options->search.validate();
    check_optimize_work(objective, options->search);
    action = [options](std::ostream& out) { return run_optimize(*options, out); };
  });
}

}  // namespace phasesim::cli
