#pragma once
// The engine contract. Every engine of `phasesim niah` is one object behind this interface,
// found by name in a registry (sim/ENGINES.md says what each computes and where it is exact):
//   analytic  exact per-phase probabilities by quadrature
//   fast      exact Monte Carlo in O(d + W) per trial where the model allows
//   full      Monte Carlo of the full-vector model: keys, pooled entries, argmax
//   gpu       the same full-vector scan as a CUDA kernel, draw for draw (when built with CUDA)
// An engine checks that it can run a model, says how it computes each head, and returns its
// output for a run; the report (phasesim/niah/report.hpp) is the same for every engine.
//
// Adding an engine is one file (a class derived from Engine and a factory) and one line in
// builtin_engines() (sim/engines/builtin_engines.cpp).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/niah/report.hpp"
#include "phasesim/niah/run.hpp"

namespace phasesim {

class Engine {
 public:
  virtual ~Engine() = default;

  /// The name `--engine` takes.
  virtual std::string name() const = 0;
  /// True for Monte Carlo engines (outcomes per trial), false for exact probabilities.
  virtual bool monte_carlo() const = 0;
  /// Throws InputError (one line: what is wrong and an engine that can) unless this engine
  /// computes `model` exactly as MODEL.md defines it, or as its documented approximation.
  virtual void check(const NiahModel& model) const = 0;
  /// Empty when the engine computes `model` exactly (or samples it exactly); otherwise the
  /// approximation it makes, e.g. the large-d limit of the analytic engine under --dim.
  virtual std::string approximation(const NiahModel& model) const = 0;
  /// How each head is computed, e.g. "quadrature", "conditional", "full-vector".
  virtual std::vector<std::string> paths(const NiahModel& model) const = 0;
  /// The time and memory run() is estimated to need (phasesim/core/budget.hpp), checked
  /// before it starts. The default suits engines that spend O(W) per trial and head.
  virtual WorkEstimate estimate(const NiahRun& run) const;
  /// The engine's output for a run whose model passed check(). Same seed, same output,
  /// whatever the parallel policy.
  virtual EngineOutput run(const NiahRun& run, const Parallel& parallel) const = 0;
};

/// The engines a program knows, by name, in the order they were added.
class EngineRegistry {
 public:
  /// Adds an engine; throws std::logic_error when its name is taken.
  void add(std::unique_ptr<Engine> engine);
  /// The engine called `name`; throws InputError naming --engine and the known names.
  const Engine& find(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<Engine>> engines_;
};

/// The engines phasesim ships: analytic, fast, full and gpu.
EngineRegistry builtin_engines();

/// The experiment end to end: validates the run, checks the engine once, runs it and
/// reports per group.
NiahResult run_niah(const NiahRun& run, const Engine& engine, const Parallel& parallel);

}  // namespace phasesim
