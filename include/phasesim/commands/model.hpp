#pragma once
// channel and coverage: the retrieval channel of one needle, and how gates cover the phases.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "phasesim/commands/command.hpp"
#include "phasesim/model/gate.hpp"
#include "phasesim/model/geometry.hpp"
#include "phasesim/niah/architecture.hpp"
#include "phasesim/niah/run.hpp"

namespace phasesim::commands {

/// `channel`: P(needle retrieved) in the standardized channel, by adaptive quadrature.
class Channel {
 public:
  struct Options {
    double beta = 5.0;
    std::int64_t entries = 32768;
    std::vector<double> u{1.0};
  };
  using Result = Json;  ///< the document

  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Channel(Options options, const Environment& environment);
  const Options& options() const { return options_; }
  Work work() const { return {}; }
  Result run(const Context& context) const;
  Json document(const Result& result) const { return result; }

 private:
  Options options_;
};

/// `coverage`: slots, multiplicity and coverage of each phase under one gate, or under every
/// cache of an architecture; with an index gate (the read path's stage 1, MODEL.md section
/// 10) its coverage too, what selection sees beside what attention sees.
class Coverage {
 public:
  struct Options {
    int window = Geometry{}.window;
    int stride = Geometry{}.stride;
    std::string gates = niah::NiahSpec{}.gates;
    std::optional<std::string> index_gates;
    std::optional<std::string> arch;
  };
  using Result = Json;  ///< the document

  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Coverage(Options options, const Environment& environment);
  const Options& options() const { return options_; }
  Work work() const;
  Result run(const Context& context) const;
  Json document(const Result& result) const { return result; }

  Geometry geometry() const { return {options_.window, options_.stride}; }
  /// The shorthand's gate (unset with --arch).
  const std::optional<Gate>& gate() const { return gate_; }
  /// The shorthand's index gate (--index-gates), when given.
  const std::optional<Gate>& index_gate() const { return index_gate_; }
  /// --arch's architecture (unset without it).
  const std::optional<niah::Architecture>& architecture() const { return architecture_; }

 private:
  Options options_;
  std::optional<Gate> gate_;
  std::optional<Gate> index_gate_;
  std::optional<niah::Architecture> architecture_;
};

}  // namespace phasesim::commands
