#pragma once
// frontier: the Pareto frontier of a design space of one-layer compressors (KV cost and read
// cost against the worst phase and the mean), the presets marked against it.
#include <optional>
#include <string>
#include <vector>

#include "phasesim/commands/command.hpp"
#include "phasesim/frontier/frontier.hpp"

namespace phasesim::commands {

class Frontier {
 public:
  struct Options {
    frontier::FrontierSpec spec;
    std::optional<std::string> out;  ///< a folder for the frontier's architecture files
    int threads = 0;
    bool progress = false;
  };
  struct Result {
    frontier::FrontierResult frontier;
    std::vector<std::string> files;  ///< written under --out
  };

  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Frontier(Options options, const Environment& environment);
  const Options& options() const { return options_; }
  Work work() const { return {plan_.estimate, plan_.candidates.size(), "rows"}; }
  std::vector<std::string> warnings() const { return plan_.warnings; }
  Result run(const Context& context) const;
  Json document(const Result& result) const;
  const frontier::FrontierPlan& plan() const { return plan_; }

 private:
  Options options_;
  std::shared_ptr<const engines::EngineRegistry> engines_;  // the plans' engines live there
  frontier::FrontierPlan plan_;
};

}  // namespace phasesim::commands
