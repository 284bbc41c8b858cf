// phasesim theorem concentration|lockin|diversity: a prediction of theory/THEORY.md for
// the given parameters, the numerical check, and a verdict (exit 0 agree, 3 disagree).
#include <cmath>
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/theory_options.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/model/gate.hpp"
#include "phasesim/theorems/concentration.hpp"
#include "phasesim/theorems/diversity.hpp"
#include "phasesim/theorems/dynamics_batch.hpp"
#include "phasesim/theorems/optimize.hpp"

namespace phasesim::cli {
namespace {

// What every theorem prints and stores: prediction, regime, check and verdict.
struct Verdict {
  std::string prediction, regime, check;
  bool inside = true, agree = true;
};

int finish(Json& doc, const Verdict& v, const std::string& title, const std::string& json,
           std::ostream& out) {
  doc["prediction"] = v.prediction;
  doc["regime"] = v.inside ? "inside" : "outside";
  doc["regime_detail"] = v.regime;
  doc["check"] = v.check;
  doc["agree"] = v.agree;
  doc["verdict"] = v.agree ? "agree" : "disagree";
  if (wants_table(json)) {
    out << title << "\n"
        << "prediction: " << v.prediction << "\n"
        << "regime:     " << (v.inside ? "inside" : "outside") << " (" << v.regime << ")\n"
        << "check:      " << v.check << "\n"
        << "verdict:    " << (v.agree ? "agree" : "DISAGREE") << '\n';
  }
  write_json(json, doc);
  return v.agree ? kSuccess : kPredictionFailed;
}

// ---- concentration (T1) ----

struct ConcentrationOptions {
  ObjectiveOptions objective;
  OptimizeSettings search;
  double threshold = 0.99;
  std::string json;
};

int run_concentration(const ConcentrationOptions& options, std::ostream& out) {
  const auto objective = options.objective.objective();
  const bool linear = objective.model == RetentionModel::linear;
  const double beta_star = critical_beta(objective.entries);
  const int k_star = equal_split_law(objective).k_star;
  const auto best = optimize_gate(objective, options.search);
  // The optimizer may stop a hair short of a vertex; J above the one-hot J by more than
  // quadrature noise is what would refute the linear vertex theorem.
  const bool beats_onehot = best.objective > best.onehot_objective + 1e-9;

  Verdict v;
  v.prediction = linear
                     ? "one-hot gates maximize J (max weight 1, J = one-hot J)"
                     : "the optimum is concentrated: max weight >= " + fixed(options.threshold, 2);
  const double first_order = linear ? 1.0 : vertex_perturbation(objective).max_weight;
  v.inside = linear ? objective.beta <= beta_star : k_star == 1 && first_order >= options.threshold;
  v.regime = linear ? "T1a: beta " + fixed(objective.beta, 3) + (v.inside ? " <= " : " > ") +
                          "beta*(N) = " + fixed(beta_star, 4)
                    : "T1b: equal-split law k* = " + std::to_string(k_star) +
                          ", first-order max weight near the vertex " +
                          (std::isnan(first_order) ? std::string("n/a") : fixed(first_order, 6));
  v.check = "optimizer: max weight " + fixed(best.summary.max_weight, 6) + ", k_effective " +
            std::to_string(best.summary.k_effective) + ", J " + fixed(best.objective, 9) +
            ", one-hot J " + fixed(best.onehot_objective, 9);
  v.agree = best.summary.max_weight >= options.threshold && !(linear && beats_onehot);

  auto doc = new_document("theorem concentration");
  put_objective(doc, options.objective);
  doc["weights"] = objective.weights();
  put_search(doc, options.search);
  doc["threshold"] = options.threshold;
  doc["beta_star"] = beta_star;
  doc["k_star_predicted"] = k_star;
  if (!linear) doc["max_weight_first_order"] = first_order;
  doc["gate"] = best.gate;
  doc["objective"] = best.objective;
  doc["onehot_objective"] = best.onehot_objective;
  doc["max_weight"] = best.summary.max_weight;
  doc["k_effective"] = best.summary.k_effective;
  const auto title = "theorem concentration (theory/THEORY.md T1), " + options.objective.model +
                     " model, W=" + std::to_string(objective.geometry.window) +
                     " S=" + std::to_string(objective.geometry.stride) +
                     " beta=" + format_number(objective.beta) +
                     " N=" + std::to_string(objective.entries);
  return finish(doc, v, title, options.json, out);
}

// ---- lock-in (T2) ----

// Four runs by default: lock-in is a statement about every init.
DynamicsOptions four_inits() {
  DynamicsOptions options;
  options.inits = 4;
  return options;
}

struct LockinOptions {
  ObjectiveOptions objective;
  DynamicsOptions dynamics = four_inits();
  int reweight_steps = 500;
  std::string json;
};

// The first phase after phi (cyclically) that has slots, or -1 when there is none.
int other_phase(const Geometry& geometry, int phi) {
  for (int k = 1; k < geometry.stride; ++k) {
    const int candidate = (phi + k) % geometry.stride;
    if (geometry.multiplicity(candidate) > 0) return candidate;
  }
  return -1;
}

struct LockinRun {
  RunSpec spec;
  int reweighted_to = -1;
  DynamicsRun result;
  bool locked() const {
    const int a = result.initial.argmax;
    return (reweighted_to < 0 || result.at_reweight.argmax == a) && result.final.argmax == a;
  }
};

LockinRun lockin_run(const LockinOptions& options, const Objective& objective, RunSpec spec) {
  LockinRun run{std::move(spec), -1, {}};
  const auto logits = initial_logits(run.spec.init, objective.geometry.window);
  const auto start = summarize_gate(gate_from_logits(logits, "init").weights);
  auto settings = options.dynamics.settings();
  settings.content.seed = run.spec.content_seed;
  settings.record_every = settings.steps + options.reweight_steps;
  run.reweighted_to =
      options.reweight_steps > 0
          ? other_phase(objective.geometry, objective.geometry.phase_of_slot(start.argmax))
          : -1;
  if (run.reweighted_to >= 0) {
    settings.reweight_at = settings.steps;
    settings.reweight.assign(static_cast<std::size_t>(objective.geometry.stride), 0.0);
    settings.reweight[static_cast<std::size_t>(run.reweighted_to)] = 1.0;
    settings.steps += options.reweight_steps;
  }
  run.result = run_dynamics(objective, logits, settings);
  return run;
}

int run_lockin(const LockinOptions& options, std::ostream& out) {
  const auto objective = options.objective.objective();
  const auto specs = options.dynamics.runs(objective.geometry.window);
  std::vector<LockinRun> runs(specs.size());
  const auto count = static_cast<std::int64_t>(runs.size());
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t k = 0; k < count; ++k) {
    const auto i = static_cast<std::size_t>(k);
    runs[i] = lockin_run(options, objective, specs[i]);
  }
  int locked = 0, ordered = 0;
  Json list = Json::array();
  for (const auto& r : runs) {
    locked += r.locked() ? 1 : 0;
    ordered += r.result.order_condition ? 1 : 0;
    list.push_back({{"init", r.spec.init},
                    {"content_seed", r.spec.content_seed},
                    {"init_argmax", r.result.initial.argmax},
                    {"argmax_before_reweight", r.result.at_reweight.argmax},
                    {"max_weight_before_reweight", r.result.at_reweight.max_weight},
                    {"reweighted_to_phase", r.reweighted_to},
                    {"final_argmax", r.result.final.argmax},
                    {"final_max_weight", r.result.final.max_weight},
                    {"order_condition", r.result.order_condition},
                    {"locked", r.locked()}});
  }
  const int k_star = equal_split_law(objective).k_star;
  Verdict v;
  v.prediction = "every run's winner is its initial argmax slot, and it stays the argmax for " +
                 std::to_string(options.reweight_steps) +
                 " more steps after all phase weight moves to a phase it does not cover";
  v.inside = k_star == 1;
  v.regime = "equal-split law k* = " + std::to_string(k_star) +
             (v.inside ? ": the threshold regime" : ": optimum split over k* slots") +
             "; condition (M) held along " + std::to_string(ordered) + " of " +
             std::to_string(runs.size()) + " runs";
  v.check = std::to_string(locked) + " of " + std::to_string(runs.size()) + " runs locked in";
  v.agree = locked == static_cast<int>(runs.size());

  auto doc = new_document("theorem lockin");
  put_objective(doc, options.objective);
  put_dynamics(doc, options.dynamics);
  doc["reweight_steps"] = options.reweight_steps;
  doc["k_star_predicted"] = k_star;
  doc["runs"] = list;
  doc["lock_in_count"] = locked;
  doc["runs_total"] = runs.size();
  const auto title =
      "theorem lockin (theory/THEORY.md T2), W=" + std::to_string(objective.geometry.window) +
      " S=" + std::to_string(objective.geometry.stride) + " beta=" + format_number(objective.beta) +
      " N=" + std::to_string(objective.entries);
  return finish(doc, v, title, options.json, out);
}

// ---- diversity (T3) ----

struct DiversityTheoremOptions {
  DiversityModelOptions t3{{4, 12.0, 0.9, {1000.0}}, {64, 128, 256, 512, 1024}};
  double tolerance = 0.05;
  std::string json;
};

int run_diversity_theorem(const DiversityTheoremOptions& options, std::ostream& out) {
  const auto& m = options.t3.model;
  std::vector<DiversityRow> rows;
  Json rows_json = Json::array();
  double worst_closed_form = 0;  // inclusion-exclusion against the recursion
  for (int n : options.t3.heads) {
    rows.push_back(diversity_row(m, n));
    const auto& r = rows.back();
    worst_closed_form =
        std::max(worst_closed_form,
                 std::abs(p_all_covered_inclusion_exclusion(m.stride, n) - r.p_all_covered));
    rows_json.push_back({{"heads", n},
                         {"gap", r.gap},
                         {"gap_times_n", r.gap_times_n},
                         {"constant_c", r.constant_c},
                         {"p_all_covered", r.p_all_covered},
                         {"expected_blind", r.expected_blind}});
  }
  const auto& last = rows.back();
  const double relative = std::abs(last.gap_times_n - last.constant_c) / last.constant_c;
  const std::vector<DiversityRow> tail(rows.end() - std::min<std::ptrdiff_t>(2, rows.size()),
                                       rows.end());
  const double local_slope = log_log_slope(tail);
  Verdict v;
  v.prediction = "E[L_random] - L_balanced = C/N + O(1/N^2) with C = " + fixed(m.constant(), 6) +
                 ": N*gap -> C and the log-log slope -> -1";
  v.inside = last.heads >= 16 * m.stride;
  v.regime = "expansion in 1/N: largest N = " + std::to_string(last.heads) +
             (v.inside ? " >= 16 S" : " < 16 S, where O(1/N^2) terms can dominate");
  v.check = "N*gap = " + fixed(last.gap_times_n, 6) + " at N = " + std::to_string(last.heads) +
            " (relative error " + fixed(relative, 4) + "), slope over the last two N " +
            (std::isnan(local_slope) ? std::string("n/a") : fixed(local_slope, 4));
  v.agree = relative <= options.tolerance &&
            (std::isnan(local_slope) || std::abs(local_slope + 1) <= options.tolerance) &&
            (m.stride > 20 || worst_closed_form < 1e-9);

  auto doc = new_document("theorem diversity");
  options.t3.put(doc);
  doc["tolerance"] = options.tolerance;
  doc["rows"] = rows_json;
  doc["constant_c"] = m.constant();
  doc["relative_error"] = relative;
  doc["slope"] = log_log_slope(rows);
  doc["local_slope"] = local_slope;
  doc["inclusion_exclusion_error"] = worst_closed_form;
  const auto title = "theorem diversity (theory/THEORY.md T3), S=" + std::to_string(m.stride) +
                     " beta_o=" + format_number(m.beta_out) + " p=" + format_number(m.success) +
                     " M=" + format_number(m.loss.answers);
  return finish(doc, v, title, options.json, out);
}

// ---- registration ----

void add_concentration(CLI::App& theorem, Action& action) {
  auto options = std::make_shared<ConcentrationOptions>();
  auto* cmd = theorem.add_subcommand(
      "concentration", "T1: the optimal gate is concentrated (one-hot in the linear model)");
  add_objective_options(*cmd, options->objective, true,
                        "Phase weights w0,w1,... of J (default uniform)");
  add_search_options(*cmd, options->search, "Random starts of the optimizer");
  cmd->add_option("--threshold", options->threshold, "Max weight that counts as concentrated")
      ->capture_default_str();
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    options->objective.objective();
    options->search.validate();
    require(options->threshold > 0 && options->threshold <= 1,
            "invalid --threshold " + format_number(options->threshold) + " (must be in (0, 1])");
    action = [options](std::ostream& out) { return run_concentration(*options, out); };
  });
}

void add_lockin(CLI::App& theorem, Action& action) {
  auto options = std::make_shared<LockinOptions>();
  auto* cmd = theorem.add_subcommand(
      "lockin", "T2: the winner is the initial argmax and stays when the phases are re-weighted");
  add_objective_options(*cmd, options->objective);
  add_dynamics_options(*cmd, options->dynamics, "Runs from K inits (random:SEED+i:SCALE)");
  cmd->add_option("--reweight-steps", options->reweight_steps,
                  "Steps after moving all phase weight to a phase the winner does not cover")
      ->capture_default_str();
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    const auto objective = options->objective.objective();
    validate_dynamics_options(options->dynamics, objective);
    require_at_least(options->reweight_steps, 0, "--reweight-steps");
    action = [options](std::ostream& out) { return run_lockin(*options, out); };
  });
}

void add_diversity(CLI::App& theorem, Action& action) {
  auto options = std::make_shared<DiversityTheoremOptions>();
  auto* cmd = theorem.add_subcommand("diversity", "T3: the diversification gain is C/N + O(1/N^2)");
  add_diversity_model_options(*cmd, options->t3);
  cmd->add_option("--tolerance", options->tolerance,
                  "Allowed relative error of N*gap against C, and of the slope against -1")
      ->capture_default_str();
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    options->t3.validate();
    require(options->tolerance > 0 && std::isfinite(options->tolerance),
            "invalid --tolerance " + format_number(options->tolerance) + " (must be > 0)");
    action = [options](std::ostream& out) { return run_diversity_theorem(*options, out); };
  });
}

}  // namespace

void add_theorem_command(CLI::App& app, Action& action) {
  auto* theorem = app.add_subcommand(
      "theorem", "State a prediction of theory/THEORY.md, check it, give a verdict (exit 0/3)");
  theorem->require_subcommand(1);
  add_concentration(*theorem, action);
  add_lockin(*theorem, action);
  add_diversity(*theorem, action);
}

}  // namespace phasesim::cli
