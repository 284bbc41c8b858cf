#pragma once
// niah and compare: the NIAH protocol on any engine, for one architecture or several on the
// same needles.
#include <optional>
#include <string>
#include <vector>

#include "phasesim/commands/command.hpp"
#include "phasesim/compare/compare.hpp"
#include "phasesim/engines/plan.hpp"
#include "phasesim/niah/run.hpp"

namespace phasesim::commands {

/// `niah`: per-group needle-in-a-haystack accuracy of one model (the one-layer shorthand or
/// --arch).
class Niah {
 public:
  struct Options {
    niah::NiahSpec spec;  ///< every model and protocol option but --arch
    std::optional<std::string> arch;
    std::string engine = "fast";
    int threads = 0;
    bool progress = false;
  };
  using Result = niah::NiahResult;

  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Niah(Options options, const Environment& environment);
  const Options& options() const { return options_; }
  Work work() const;
  std::vector<std::string> warnings() const { return plan_.warnings(); }
  Result run(const Context& context) const;
  Json document(const Result& result) const;
  const engines::NiahPlan& plan() const { return plan_; }

 private:
  Options options_;
  std::shared_ptr<const engines::EngineRegistry> engines_;  // the plan's engine lives there
  engines::NiahPlan plan_;
};

/// `compare`: architectures on the same needles (paired trials).
class Compare {
 public:
  struct Options {
    std::vector<std::string> architectures;
    niah::NiahSpec spec;  ///< the parameterization and the protocol
    std::string engine = "fast";
    int threads = 0;
  };
  using Result = std::vector<compare::ArchitectureComparison>;

  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Compare(Options options, const Environment& environment);
  const Options& options() const { return options_; }
  Work work() const { return {plan_.estimate()}; }
  Result run(const Context& context) const;
  Json document(const Result& result) const;
  const compare::ComparePlan& plan() const { return plan_; }

 private:
  Options options_;
  std::shared_ptr<const engines::EngineRegistry> engines_;
  compare::ComparePlan plan_;
};

}  // namespace phasesim::commands
