#pragma once
// train and diagnose: the training lab, and from a per-group NIAH table back to the model.
#include <optional>
#include <string>

#include "phasesim/commands/command.hpp"
#include "phasesim/diagnose/diagnose.hpp"
#include "phasesim/diagnose/table.hpp"
#include "phasesim/training/train.hpp"

namespace phasesim::commands {

/// `train`: trains a tiny compressed-attention layer and reads it with the NIAH protocol.
class Train {
 public:
  struct Options {
    training::LabSpec spec;  ///< every option but those below (--batches as text)
    std::string batches = training::to_string(training::LabSpec{}.batches);
    int threads = 0;
    bool progress = false;
    std::optional<std::string> save_gates;
    std::optional<std::string> save_arch;
  };
  using Result = training::LabResult;

  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Train(Options options, const Environment& environment);
  const Options& options() const { return options_; }
  /// The checked spec, --batches read.
  const training::LabSpec& spec() const { return spec_; }
  Work work() const { return {spec_.estimate()}; }
  /// Trains (Context::training_log every --log-every steps), then writes --save-gates and
  /// --save-arch.
  Result run(const Context& context) const;
  Json document(const Result& result) const;

 private:
  Options options_;
  training::LabSpec spec_;
};

/// `diagnose`: from a per-group table back to the period, the phases and the model.
class Diagnose {
 public:
  struct Options {
    FileInput table;  ///< a file, or (Python, the page) CSV text under a name
    diagnose::DiagnoseSpec spec;
    int threads = 0;
  };
  using Result = diagnose::Diagnosis;

  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Diagnose(Options options, const Environment& environment);
  const Options& options() const { return options_; }
  const diagnose::CountTable& counts() const { return counts_; }
  /// The period tests' (stats::period_test_estimate), which dominate, and the fits' under
  /// the read path (diagnose::fit_estimate).
  Work work() const {
    auto estimate = stats::period_test_estimate(options_.spec.period, counts_.size());
    estimate += diagnose::fit_estimate(counts_, options_.spec);
    return {estimate};
  }
  Result run(const Context& context) const;
  Json document(const Result& result) const;

 private:
  Options options_;
  diagnose::CountTable counts_;
};

}  // namespace phasesim::commands
