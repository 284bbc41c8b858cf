#pragma once
// The theorem commands: optimize, phase-diagram, dynamics, diversity and the three checks of
// `theorem`, each over its theorems::*Command (the struct that validates, runs and builds the
// document, phasesim/theorems/commands.hpp) and its option table.
#include "phasesim/commands/command.hpp"
#include "phasesim/theorems/commands.hpp"

namespace phasesim::commands {

/// What the theorem commands share: their options are a theorems::*Command (and --progress),
/// validated when made; the run and the document are the struct's.
template <class Spec, class R>
class TheoryCommand {
 public:
  struct Options {
    Spec command;
    bool progress = false;
  };
  using Result = R;

  TheoryCommand(Options options, const Environment&) : options_(std::move(options)) {
    options_.command.validate();
  }
  const Options& options() const { return options_; }
  Result run(const Context& context) const { return options_.command.run(context.parallel); }
  Json document(const Result& result) const { return options_.command.document(result); }

 protected:
  Options options_;
};

/// `optimize`: the gate that maximizes J (T1).
class Optimize : public TheoryCommand<theorems::OptimizeCommand, theorems::GateOptimum> {
 public:
  using TheoryCommand::TheoryCommand;
  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Work work() const;
};

/// `phase-diagram`: the optimum over (beta, N).
class PhaseDiagram
    : public TheoryCommand<theorems::PhaseDiagramCommand, std::vector<theorems::PhaseCell>> {
 public:
  using TheoryCommand::TheoryCommand;
  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Work work() const;
};

/// `dynamics`: gradient ascent on the gate logits (T2).
class Dynamics : public TheoryCommand<theorems::DynamicsCommand, theorems::DynamicsBatch> {
 public:
  using TheoryCommand::TheoryCommand;
  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Work work() const;
};

/// `diversity`: the 1/N gain and blind phases (T3), and joint training of heads.
class Diversity
    : public TheoryCommand<theorems::DiversityCommand, theorems::DiversityCommand::Result> {
 public:
  using TheoryCommand::TheoryCommand;
  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Work work() const { return {options_.command.estimate()}; }
};

/// `theorem concentration` (T1).
class TheoremConcentration
    : public TheoryCommand<theorems::ConcentrationCommand, theorems::ConcentrationCheck> {
 public:
  using TheoryCommand::TheoryCommand;
  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Work work() const;
};

/// `theorem lockin` (T2).
class TheoremLockin : public TheoryCommand<theorems::LockinCommand, theorems::LockinCheck> {
 public:
  using TheoryCommand::TheoryCommand;
  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Work work() const;
};

/// `theorem diversity` (T3).
class TheoremDiversity
    : public TheoryCommand<theorems::DiversityTheoremCommand, theorems::DiversityCheck> {
 public:
  using TheoryCommand::TheoryCommand;
  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Work work() const { return {options_.command.estimate(), 0, {}, true}; }
};

}  // namespace phasesim::commands
