#pragma once
// `phasesim compare` as a library (MODEL.md sections 4, 5 and 9): several architectures on
// the same needles. Every architecture runs with the same seed and one needle plan that is
// interior for all of their heads, so trial t puts its needle at the same position for all
// of them: paired trials. Heads draw their random numbers by (seed, trial, head index), so
// architectures that share a head (the same geometry and gate at the same index) draw the
// same numbers for it: common random numbers. Each architecture is reported with its KV
// cost, its per-group accuracies and summary, and its paired difference against the first.
//
//   CompareSpec spec{{load_architecture("a.toml"), load_architecture("b.toml")}, model};
//   const auto plan = prepare_compare(spec, engine, threads);  // checked, one needle plan
//   const auto comparison = run_compare(plan, Parallel{});     // one per architecture
#include <string>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/engines/plan.hpp"
#include "phasesim/niah/architecture.hpp"

namespace phasesim::compare {

struct CompareSpec {
  std::vector<niah::Architecture> architectures;  ///< the first is the reference
  /// Parameterization, context, groups, prompts, combine and seed; its geometry, gates,
  /// heads, architecture and knockout are not used.
  niah::NiahSpec model;
};

/// The difference of one group against the first architecture, on the same trials.
struct PairedGroup {
  int group = 0;
  double difference = 0;  ///< accuracy minus the first architecture's
  double std_error = 0;   ///< of the paired difference; 0 for exact engines
};

struct ArchitectureComparison {
  std::string label;  ///< the architecture's name, made distinct from the others'
  niah::NiahRun run;
  niah::NiahResult result;
  niah::KvCost cost;
  std::vector<PairedGroup> groups;
  double mean_difference = 0;  ///< over groups (groups independent)
  double mean_difference_std_error = 0;
  double worst_difference = 0;  ///< worst group minus the first's worst group
  /// Paired when both worst groups are the same group, independent otherwise; conditional on
  /// which groups came out worst, like the summary's.
  double worst_difference_std_error = 0;
};

/// One checked plan per architecture on one engine, all with the needle plan that is
/// interior for every head of every architecture; the work of the whole comparison is
/// within the limits too.
class ComparePlan {
 public:
  const std::vector<engines::NiahPlan>& plans() const { return plans_; }
  const engines::Engine& engine() const { return plans_.front().engine(); }
  /// The architectures' estimates summed.
  const WorkEstimate& estimate() const { return estimate_; }

 private:
  friend ComparePlan prepare_compare(const CompareSpec& spec, const engines::Engine& engine,
                                     int threads);
  ComparePlan(std::vector<engines::NiahPlan> plans, WorkEstimate estimate)
      : plans_(std::move(plans)), estimate_(estimate) {}

  std::vector<engines::NiahPlan> plans_;
  WorkEstimate estimate_;
};

/// The comparison's plan on `engine` for `threads` threads. Throws InputError (naming the
/// file where one is at fault) on bad input, an engine that cannot compute an architecture,
/// or work beyond the limits.
ComparePlan prepare_compare(const CompareSpec& spec, const engines::Engine& engine, int threads);

/// Runs every architecture and compares each with the first, trial by trial for Monte Carlo
/// engines, exactly for exact ones.
std::vector<ArchitectureComparison> run_compare(const ComparePlan& plan, const Parallel& parallel);

/// The `compare` document: the shared parameters, then per architecture its label,
/// architecture, KV cost, engine paths, groups, summary and difference against the first.
Json compare_document(const std::vector<ArchitectureComparison>& comparison,
                      const engines::Engine& engine);

}  // namespace phasesim::compare
