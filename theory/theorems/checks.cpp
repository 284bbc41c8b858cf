#include "phasesim/theorems/checks.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "phasesim/core/error.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/theorems/concentration.hpp"

namespace phasesim::theorems {
namespace {

// J above the one-hot J by more than quadrature noise is what would refute the linear
// vertex theorem (the optimizer may stop a hair short of a vertex).
constexpr double kOnehotSlack = 1e-9;
// The 1/N expansion of T3 is checked where O(1/N^2) is small: N >= 16 S, and the known
// second-order term D_N / N^2 moves N gap and the slope by at most this share of the
// tolerance, which leaves the rest for the O(1/N^3) remainder.
constexpr int kHeadsPerPhase = 16;
constexpr double kSecondOrderShare = 0.5;
// T2(d), lock-in under re-weighting, is about a concentrated gate: inside where every run's
// gate has this max weight before the re-weighting (the defaults reach 0.99).
constexpr double kConcentratedBeforeReweight = 0.9;
// Inclusion-exclusion cancels badly beyond S = 20; below it must match the recursion.
constexpr int kInclusionExclusionStrides = 20;
constexpr double kInclusionExclusionSlack = 1e-9;

std::string fixed_or_na(double value, int digits) {
  return std::isnan(value) ? std::string("n/a") : format_fixed(value, digits);
}

std::string point(const Objective& o) {
  return "W=" + std::to_string(o.geometry.window) + " S=" + std::to_string(o.geometry.stride) +
         " beta=" + format_number(o.beta) + " N=" + std::to_string(o.entries);
}

Verdict concentration_verdict(const Objective& objective, const ConcentrationCheck& c,
                              double threshold) {
  const bool linear = objective.model == RetentionModel::linear;
  const auto& best = c.optimum;
  const bool beats_onehot = best.objective > best.onehot_objective + kOnehotSlack;
  const double first_order = c.max_weight_first_order.value_or(1.0);
  Verdict v;
  v.title = "theorem concentration (theory/THEORY.md T1), " + to_string(objective.model) +
            " model, " + point(objective);
  v.prediction = linear
                     ? "one-hot gates maximize J (max weight 1, J = one-hot J)"
                     : "the optimum is concentrated: max weight >= " + format_fixed(threshold, 2);
  v.inside = linear ? objective.beta <= c.beta_star : c.k_star == 1 && first_order >= threshold;
  v.regime = linear ? "T1a: beta " + format_fixed(objective.beta, 3) + (v.inside ? " <= " : " > ") +
                          "beta*(N) = " + format_fixed(c.beta_star, 4)
                    : "T1b: equal-split law k* = " + std::to_string(c.k_star) +
                          ", first-order max weight near the vertex " + fixed_or_na(first_order, 6);
  v.check = "optimizer: max weight " + format_fixed(best.summary.max_weight, 6) + ", k_effective " +
            std::to_string(best.summary.k_effective) + ", J " + format_fixed(best.objective, 9) +
            ", one-hot J " + format_fixed(best.onehot_objective, 9);
  v.agree = best.summary.max_weight >= threshold && !(linear && beats_onehot);
  return v;
}

// The least max weight of the runs' gates just before the re-weighting (1 when none is
// re-weighted).
double least_concentration(const LockinCheck& c) {
  double least = 1;
  for (const auto& r : c.runs) {
    if (r.reweighted_to >= 0) least = std::min(least, r.result.at_reweight.max_weight);
  }
  return least;
}

Verdict lockin_verdict(const Objective& objective, const LockinCheck& c,
                       const LockinSettings& settings) {
  const auto total = counted(c.runs.size(), "run");
  // T2 is proved for gradient ascent on the logits; the mirror-ascent (replicator) flow
  // weighs the fitness differently and can let another slot overtake.
  const bool gradient = settings.dynamics.rule == UpdateRule::gradient;
  const double concentrated = least_concentration(c);
  const bool ready = concentrated >= kConcentratedBeforeReweight;
  Verdict v;
  v.title = "theorem lockin (theory/THEORY.md T2), " + point(objective);
  v.prediction = "every run's winner is its initial argmax slot, and it stays the argmax for " +
                 std::to_string(settings.reweight_steps) +
                 " more steps after all phase weight moves to a phase it does not cover";
  v.inside = c.k_star == 1 && gradient && ready;
  v.regime = "equal-split law k* = " + std::to_string(c.k_star) +
             (c.k_star == 1 ? ": the threshold regime" : ": optimum split over k* slots") +
             (gradient ? "" : "; --update replicator: T2 holds for gradient ascent only") +
             (ready ? ""
                    : "; a gate of max weight " + format_fixed(concentrated, 4) + " < " +
                          format_fixed(kConcentratedBeforeReweight, 2) +
                          " at the re-weighting: T2(d) is about a concentrated gate (more "
                          "--steps)") +
             "; condition (M) held along " + std::to_string(c.ordered) + " of " + total;
  v.check = std::to_string(c.locked) + " of " + total + " locked in";
  v.agree = c.locked == static_cast<int>(c.runs.size());
  return v;
}

Verdict diversity_verdict(const DiversityModel& m, const DiversityCheck& c, double tolerance) {
  const auto& last = c.rows.back();
  const double allowed = kSecondOrderShare * tolerance;
  const bool large = last.heads >= kHeadsPerPhase * m.stride;
  const bool small_correction = c.second_order_share <= allowed && c.second_order_slope <= allowed;
  Verdict v;
  v.title = "theorem diversity (theory/THEORY.md T3), S=" + std::to_string(m.stride) +
            " beta_o=" + format_number(m.beta_out) + " p=" + format_number(m.success) +
            " M=" + format_number(m.loss.answers);
  v.prediction =
      "E[L_random] - L_balanced = C/N + O(1/N^2) with C = " + format_fixed(m.constant(), 6) +
      ": N*gap -> C and the log-log slope -> -1";
  v.inside = large && small_correction;
  v.regime = "expansion in 1/N: largest N = " + std::to_string(last.heads) +
             (large ? " >= 16 S" : " < 16 S, where O(1/N^2) terms can dominate") +
             "; the O(1/N^2) term D_N/N^2 moves N*gap by " +
             format_fixed(100 * c.second_order_share, 2) + "% and the last slope by " +
             format_fixed(100 * c.second_order_slope, 2) + "%, " +
             (small_correction ? "within " : "more than ") + format_fixed(100 * allowed, 2) +
             "% (half the tolerance)" + (small_correction ? "" : ": the claim is about larger N");
  v.check = "N*gap = " + format_fixed(last.gap_times_n, 6) +
            " at N = " + std::to_string(last.heads) + " (relative error " +
            format_fixed(c.relative_error, 4) + "), slope over the last two N " +
            fixed_or_na(c.local_slope, 4);
  v.agree = c.relative_error <= tolerance && std::abs(c.local_slope + 1) <= tolerance &&
            (m.stride > kInclusionExclusionStrides ||
             c.inclusion_exclusion_error < kInclusionExclusionSlack);
  return v;
}

// T3 compares N gap with C: a C of 0 (no evidence reaches the output) or one that underflows
// (an output loss saturated far beyond its range) leaves nothing to compare.
void check_constant(const DiversityModel& m) {
  const double a = m.beta_out * m.success;
  if (a == 0) {
    const auto zero = m.success == 0 ? "--success " + format_number(m.success)
                                     : "--beta-out " + format_number(m.beta_out);
    throw InputError("invalid " + zero +
                     " (the output sees no retrieval, beta_o p = 0: the gap is 0 at every N "
                     "and T3 has nothing to check; give --beta-out and --success above 0)");
  }
  const double c = m.constant();
  require(std::isnormal(c),
          "invalid --beta-out " + format_number(m.beta_out) + " (with --success " +
              format_number(m.success) + " and --answers " + format_number(m.loss.answers) +
              " the output loss is saturated at beta_o p / S = " + format_number(a / m.stride) +
              ": C = " + format_number(c) +
              " underflows, so T3 has nothing to check; keep beta_o p / S below about 700)");
}

}  // namespace

Json verdict_json(const Verdict& verdict) {
  return {{"prediction", verdict.prediction}, {"regime", verdict.inside ? "inside" : "outside"},
          {"regime_detail", verdict.regime},  {"check", verdict.check},
          {"agree", verdict.agree},           {"verdict", verdict.agree ? "agree" : "disagree"}};
}

void ConcentrationCheckSettings::validate() const {
  search.validate();
  require(threshold > 0 && threshold <= 1,
          "invalid --threshold " + format_number(threshold) + " (must be in (0, 1])");
}

void validate_concentration_model(const Objective& objective) {
  require(objective.model != RetentionModel::channels,
          "invalid --model channels (theorem concentration checks normalized or linear; the "
          "equal-split law of channel shares is a conjecture: use optimize or phase-diagram)");
}

ConcentrationCheck check_concentration(const Objective& objective,
                                       const ConcentrationCheckSettings& settings,
                                       const Parallel& parallel) {
  validate_concentration_model(objective);
  settings.validate();
  ConcentrationCheck c;
  c.beta_star = critical_beta(objective.entries, objective.top_k);
  if (objective.top_k > 1) {  // the extreme-value heuristic: the k-th of N as the max of N/k
    c.beta_star_heuristic =
        critical_beta(std::max<std::int64_t>(2, objective.entries / objective.top_k));
  }
  c.optimum = optimize_gate(objective, settings.search, parallel);
  c.k_star = c.optimum.k_star_predicted;  // equal_split_law's, computed there
  if (objective.model == RetentionModel::normalized) {
    c.max_weight_first_order = vertex_perturbation(objective).max_weight;
  }
  c.verdict = concentration_verdict(objective, c, settings.threshold);
  return c;
}

Json check_json(const ConcentrationCheck& check) {
  Json doc = {{"beta_star", check.beta_star}, {"k_star_predicted", check.k_star}};
  if (check.beta_star_heuristic) doc["beta_star_n_over_k"] = *check.beta_star_heuristic;
  if (check.max_weight_first_order) doc["max_weight_first_order"] = *check.max_weight_first_order;
  doc["gate"] = check.optimum.gate;
  doc["objective"] = check.optimum.objective;
  doc["onehot_objective"] = check.optimum.onehot_objective;
  doc["max_weight"] = check.optimum.summary.max_weight;
  doc["k_effective"] = check.optimum.summary.k_effective;
  doc.update(verdict_json(check.verdict));
  return doc;
}

LockinCheck check_lockin(const Objective& objective, const LockinSettings& settings,
                         const std::vector<RunSpec>& specs, const Parallel& parallel) {
  LockinCheck c;
  c.runs = lockin_runs(objective, settings, specs, parallel);
  for (const auto& r : c.runs) {
    c.locked += r.locked() ? 1 : 0;
    c.ordered += r.result.order_condition ? 1 : 0;
  }
  c.k_star = equal_split_law(objective).k_star;
  c.verdict = lockin_verdict(objective, c, settings);
  return c;
}

Json check_json(const LockinCheck& check) {
  Json runs = Json::array();
  for (const auto& r : check.runs) runs.push_back(lockin_run_json(r));
  Json doc = {{"k_star_predicted", check.k_star},
              {"runs", runs},
              {"lock_in_count", check.locked},
              {"runs_total", check.runs.size()}};
  doc.update(verdict_json(check.verdict));
  return doc;
}

void DiversityCheckSettings::validate() const {
  require(tolerance > 0 && std::isfinite(tolerance),
          "invalid --tolerance " + format_number(tolerance) + " (must be > 0)");
}

void validate_diversity_check(const DiversityModel& model, const std::vector<int>& heads,
                              const DiversityCheckSettings& settings) {
  settings.validate();
  require(heads.size() >= 2, "invalid --heads " + heads_list(heads) +
                                 " (the slope check needs at least two N, e.g. 512,1024)");
  require(std::is_sorted(heads.begin(), heads.end(), std::less_equal<>()),
          "invalid --heads " + heads_list(heads) +
              " (give N in increasing order: the check is at the last, largest N)");
  require(model.stride >= 2, "invalid --stride " + std::to_string(model.stride) +
                                 " (one phase: every head covers it, the gap is 0 at every N "
                                 "and T3 has nothing to check; use --stride 2 or more)");
  check_constant(model);
}

DiversityCheck check_diversity(const DiversityModel& model, const std::vector<int>& heads,
                               const DiversityCheckSettings& settings, const Parallel& parallel) {
  validate_diversity_check(model, heads, settings);
  DiversityCheck c;
  for (int n : heads) {
    c.rows.push_back(diversity_row(model, n, parallel));
    const double error =
        std::abs(p_all_covered_inclusion_exclusion(model.stride, n) - c.rows.back().p_all_covered);
    c.inclusion_exclusion_error = std::max(c.inclusion_exclusion_error, error);
  }
  const auto& last = c.rows.back();
  c.constant_c = model.constant();
  c.relative_error = std::abs(last.gap_times_n - last.constant_c) / last.constant_c;
  c.slope = log_log_slope(c.rows);
  const auto two = std::min<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(c.rows.size()));
  const std::vector<DiversityRow> last_two(c.rows.end() - two, c.rows.end());
  c.local_slope = log_log_slope(last_two);
  // What the known second-order term alone does to the two numbers the check compares.
  const auto& before = *(c.rows.end() - 2);
  c.second_order_share = std::abs(last.gap_second_order * last.heads - c.constant_c) / c.constant_c;
  c.second_order_slope =
      std::abs(portable::log(last.gap_second_order / before.gap_second_order) /
                   portable::log(static_cast<double>(last.heads) / before.heads) +
               1);
  c.verdict = diversity_verdict(model, c, settings.tolerance);
  return c;
}

Json check_json(const DiversityCheck& check) {
  Json rows = Json::array();
  for (const auto& r : check.rows) {
    rows.push_back({{"heads", r.heads},
                    {"gap", r.gap},
                    {"gap_times_n", r.gap_times_n},
                    {"constant_c", r.constant_c},
                    {"p_all_covered", r.p_all_covered},
                    {"expected_blind", r.expected_blind}});
  }
  Json doc = {{"rows", rows},
              {"constant_c", check.constant_c},
              {"relative_error", check.relative_error},
              {"slope", check.slope},
              {"local_slope", check.local_slope},
              {"inclusion_exclusion_error", check.inclusion_exclusion_error},
              {"second_order_share", check.second_order_share},
              {"second_order_slope", check.second_order_slope}};
  doc.update(verdict_json(check.verdict));
  return doc;
}

}  // namespace phasesim::theorems
