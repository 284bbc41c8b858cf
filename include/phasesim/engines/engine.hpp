#pragma once
// The engine contract. Every engine of `phasesim niah` is one object behind this interface,
// found in a registry (sim/ENGINES.md says what each computes and where it is exact):
//   analytic     exact per-phase probabilities by quadrature
//   fast         exact Monte Carlo in O(d + W) per trial where the model allows
//   full         Monte Carlo of the full-vector model in float: keys, pooled entries, argmax
//   full-double  the same scan in double, the reference of precision-check
//   gpu          the full scan as a CUDA kernel, draw for draw (when built with CUDA)
// An engine checks that it can run a model, estimates its work, says how it computes each
// head, and returns its output for a run; the report (phasesim/niah/report.hpp) is the same
// for every engine. An engine runs only a checked plan (plan.hpp: prepare, run_engine).
//
// Adding an engine is one file (a class derived from Engine and a factory) and one line in
// builtin_engines() (sim/engines/builtin_engines.cpp).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/contract.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/niah/report.hpp"
#include "phasesim/niah/run.hpp"

namespace phasesim::engines {

class NiahPlan;

class Engine {
 public:
  virtual ~Engine() = default;

  /// The name `--engine` takes.
  virtual std::string name() const = 0;
  /// True for Monte Carlo engines (outcomes per trial), false for exact probabilities.
  virtual bool monte_carlo() const = 0;
  /// Throws InputError (one line: what is wrong and an engine that can) unless this engine
  /// computes `model` exactly as MODEL.md defines it, or as its documented approximation.
  virtual void check(const niah::NiahModel& model) const = 0;
  /// Empty when the engine computes `model` exactly (or samples it exactly); otherwise the
  /// approximation it makes, e.g. the large-d limit of the analytic engine under --dim.
  virtual std::string approximation(const niah::NiahModel& model) const = 0;
  /// How each head is computed, e.g. "quadrature", "conditional", "full-vector".
  virtual std::vector<std::string> paths(const niah::NiahModel& model) const = 0;
  /// The time and memory run() is estimated to need (phasesim/core/budget.hpp), checked
  /// before it starts. The default suits engines that spend O(W) per trial and head.
  virtual WorkEstimate estimate(const niah::NiahRun& run) const;

 protected:
  /// The engine's output for a run whose model passed check(), called by run_engine() only.
  /// Same seed, same output, whatever the parallel policy.
  virtual niah::EngineOutput run(const niah::NiahRun& run, const Parallel& parallel) const = 0;

 private:
  friend niah::EngineOutput run_engine(const NiahPlan& plan, const Parallel& parallel);
};

/// The engines a program knows, by name, in the order they were added.
class EngineRegistry {
 public:
  /// Adds an engine. Expects its name not to be taken.
  void add(std::unique_ptr<Engine> engine);
  /// The engine called `name` (what a user gives --engine); throws InputError naming
  /// --engine and the known names.
  const Engine& find(std::string_view name) const;
  /// The engine of type E, for code that needs what one engine computes (the training lab's
  /// exact prediction needs the analytic engine's probabilities). Expects one was added.
  template <typename E>
  const E& get() const {
    const E* typed = nullptr;
    for (std::size_t i = 0; i < engines_.size() && !typed; ++i) {
      typed = dynamic_cast<const E*>(engines_[i].get());
    }
    PHASESIM_EXPECT(typed != nullptr);
    return *typed;
  }
  std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<Engine>> engines_;
};

/// The engines phasesim ships: analytic, fast, full, full-double and gpu.
EngineRegistry builtin_engines();

}  // namespace phasesim::engines
