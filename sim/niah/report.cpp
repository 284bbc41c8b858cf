// The engine-agnostic layer of `niah`: per-group accuracies, combination over heads and
// knockouts, from Monte Carlo outcomes or exact per-phase probabilities.
#include "phasesim/engines/engine.hpp"
#include "phasesim/niah/estimate.hpp"

namespace phasesim {

NiahResult monte_carlo_result(const NiahRun& run, const OutcomeTable& table) {
  NiahResult result;
  const std::int64_t P = run.needles.prompts;
  for (int r = 0; r < run.needles.groups; ++r) {
    std::int64_t successes = 0;
    std::int64_t without = 0;
    PairedDifference change;
    for (std::int64_t i = r * P; i < (r + 1) * P; ++i) {
      const bool all = combine_outcomes(table.row(i), run.combine);
      successes += all ? 1 : 0;
      if (!run.knockout) continue;
      const bool less = combine_outcomes(table.row(i), run.combine, *run.knockout);
      without += less ? 1 : 0;
      change.add(all, less);  // the same trials with and without the head
    }
    const auto e = estimate_proportion(successes, P);
    result.groups.push_back({r, e.mean, e.successes, e.trials, e.std_error, e.ci_low, e.ci_high});
    if (run.knockout) {
      const double accuracy = static_cast<double>(without) / static_cast<double>(P);
      result.knockout.push_back({r, accuracy, change.mean(), change.std_error()});
    }
  }
  result.summary = summarize(result.groups, table.trials());
  return result;
}

namespace {

// Exact: heads are independent given the needle position, so they combine phase by phase,
// and each group averages over the exact phase distribution of its needle positions.
NiahResult analytic_result(const NiahRun& run) {
  const auto per_head = analytic_phase_success(run.model);
  const auto S = static_cast<std::size_t>(run.model.geometry.stride);
  std::vector<std::vector<double>> per_phase(S);
  for (std::size_t phi = 0; phi < S; ++phi) {
    for (const auto& head : per_head) per_phase[phi].push_back(head[phi]);
  }
  auto group_accuracy = [&](const std::vector<std::int64_t>& counts, int excluded) {
    double sum = 0;
    for (std::size_t phi = 0; phi < S; ++phi) {
      if (counts[phi] == 0) continue;
      sum += static_cast<double>(counts[phi]) *
             combine_probabilities(per_phase[phi], run.combine, excluded);
    }
    return sum / static_cast<double>(run.needles.block_count);
  };
  NiahResult result;
  for (int r = 0; r < run.needles.groups; ++r) {
    const auto counts = phase_counts(run.needles, run.model.geometry, r);
    const double accuracy = group_accuracy(counts, -1);
    result.groups.push_back({r, accuracy, std::nullopt, std::nullopt, 0.0, accuracy, accuracy});
    if (run.knockout) {
      const double without = group_accuracy(counts, *run.knockout);
      result.knockout.push_back({r, without, without - accuracy, 0.0});
    }
  }
  result.summary = summarize(result.groups, std::nullopt);
  return result;
}

}  // namespace

NiahResult run_niah(const NiahRun& run, EngineKind kind, int threads) {
  validate_model(run.model);
  if (run.knockout) validate_knockout(*run.knockout, run.model.heads());
  check_engine(kind, run.model);
  if (kind == EngineKind::analytic) return analytic_result(run);
  return monte_carlo_result(run, simulate(kind, run.model, run.needles, threads));
}

}  // namespace phasesim
