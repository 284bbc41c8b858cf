#pragma once
// gpu-check and precision-check: one engine against another on the same trials, draw for draw
// (phasesim/engines/parity.hpp). Both are the CLI's only (the README says why: a check of
// this machine, not a result to compute from Python).
#include <string>

#include "phasesim/commands/command.hpp"
#include "phasesim/engines/parity.hpp"
#include "phasesim/engines/plan.hpp"

namespace phasesim::commands {

/// What the two checks share: the model and run options niah takes, two plans of them (the
/// reference engine's, then the candidate's), the check and its document.
class ParityRun {
 public:
  struct Result {
    engines::ParityCheck check;
    engines::ParityLabels labels;
  };

  /// Both engines' estimates (what a long run's note and a sweep's total count).
  Work work() const {
    auto estimate = reference_.estimate();
    estimate += candidate_.estimate();
    return {estimate};
  }
  Result run(const Context& context) const;
  Json document(const Result& result) const;
  const niah::NiahRun& niah_run() const { return reference_.run(); }

 protected:
  /// The plans of `reference` and `candidate` (engines by name); `require` throws InputError
  /// when the candidate cannot run here, after the reference's plan is checked; `labels` is
  /// called when the check runs (the device's name needs the device).
  ParityRun(const niah::NiahSpec& spec, int threads, const Environment& environment,
            const std::string& reference, const std::string& candidate,
            const std::function<void()>& require, std::function<engines::ParityLabels()> labels);

 private:
  niah::NiahSpec spec_;
  int threads_;
  std::shared_ptr<const engines::EngineRegistry> engines_;
  engines::NiahPlan reference_, candidate_;
  std::function<engines::ParityLabels()> labels_;
};

/// `gpu-check`: the gpu engine against the CPU full engine on a small full-vector run.
class GpuCheck : public ParityRun {
 public:
  /// Two random heads, d = 64, L = 4096, 8 groups x 64 prompts.
  struct Options {
    niah::NiahSpec spec = small_run();
    int threads = 0;
    static niah::NiahSpec small_run();
  };
  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  GpuCheck(Options options, const Environment& environment);
  const Options& options() const { return options_; }

 private:
  Options options_;
};

/// `precision-check`: the float full engine against full-double on the same trials.
class PrecisionCheck : public ParityRun {
 public:
  /// The paper's protocol at a shorter context, so that the double path stays quick: W = 8,
  /// S = 4, uniform gate, d = 64, query noise 1.47, L = 8192, 8 groups x 64 prompts.
  struct Options {
    niah::NiahSpec spec = protocol();
    int threads = 0;
    static niah::NiahSpec protocol();
  };
  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  PrecisionCheck(Options options, const Environment& environment);
  const Options& options() const { return options_; }

 private:
  Options options_;
};

}  // namespace phasesim::commands
