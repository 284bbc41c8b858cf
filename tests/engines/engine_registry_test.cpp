// A new engine is one file and one registration line: this file defines a small engine,
// registers it next to phasesim's own, and runs it through the shared agreement suite. The
// engine is also an independent check of the fast engine's exact-maximum trick: it draws
// every distractor entry of the standardized channel one by one, O(N_c) per trial.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "phasesim/core/contract.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/engines/analytic_engine.hpp"
#include "support/niah_fixture.hpp"

using namespace phasesim;
using namespace phasesim::engines;
using namespace phasesim::niah;

namespace {

class BruteForceEngine final : public Engine {
 public:
  std::string name() const override { return "brute-force"; }
  bool monte_carlo() const override { return true; }
  void check(const NiahModel& model) const override {
    require(!model.full_vector() && model.content_noise == 0,
            "invalid --engine brute-force (standardized channel without content noise only)");
  }
  std::string approximation(const NiahModel&) const override { return ""; }
  std::vector<std::string> paths(const NiahModel& model) const override {
    return std::vector<std::string>(static_cast<std::size_t>(model.heads()), "every-entry");
  }
  EngineOutput run(const NiahRun& run, const Parallel& parallel) const override {
    const auto& m = run.model;
    OutcomeTable table(run.needles.trials(), m.heads());
    parallel_for(parallel, run.needles.trials(), [&](std::int64_t i) {
      const auto trial = static_cast<std::uint32_t>(i);
      const std::int64_t needle = run.needles.position(m.seed, trial);
      for (int h = 0; h < m.heads(); ++h) table.set(i, h, retrieves(m, trial, needle, h));
    });
    return {{}, std::move(table), {}};
  }

 private:
  // X_s = beta u_s + sqrt(1 - u_s^2) Z_s for the entries holding the needle, against every
  // other entry's N(0, 1) logit, each drawn on its own.
  static bool retrieves(const NiahModel& m, std::uint32_t trial, std::int64_t needle, int h) {
    const auto u = normalized_weights(m.gates[static_cast<std::size_t>(h)]);
    const auto& g = m.geometry(h);
    const auto slots = g.slots_of_phase(g.phase_of_position(needle));
    const RandomStream normals(m.seed, trial, static_cast<std::uint32_t>(h), Stream::channel);
    double best = -std::numeric_limits<double>::infinity();
    std::uint32_t draw = 0;
    for (int s : slots) {
      const double us = u[static_cast<std::size_t>(s)];
      best = std::max(best,
                      m.beta_effective() * us + std::sqrt(1 - us * us) * normals.normal(draw++, 0));
    }
    const auto distractors = m.entries(h) - static_cast<std::int64_t>(slots.size());
    for (std::int64_t j = 0; j < distractors; ++j) {
      if (normals.normal(draw++, 0) >= best) return false;
    }
    return !slots.empty();
  }
};

EngineRegistry with_brute_force() {
  auto registry = builtin_engines();
  registry.add(std::make_unique<BruteForceEngine>());  // the one registration line
  return registry;
}

}  // namespace

TEST_CASE("a registered engine runs through the agreement suite: brute force = analytic = fast") {
  const auto registry = with_brute_force();
  NiahSpec s;
  s.gates = "random:3:0.7";
  s.beta = 6;
  s.context = 2048;
  s.groups = 4;
  s.prompts = 1500;
  const auto runs = test::check_engines_agree(s, registry);
  CHECK(runs.size() == 3);  // analytic, fast and brute-force; full and gpu need --dim
  s.geometry = {6, 4};
  s.gates = "uniform;last";
  s.combine = "vote:2";
  test::check_engines_agree(s, registry);
}

TEST_CASE("the registry finds engines by name and refuses duplicates") {
  auto registry = with_brute_force();
  CHECK(registry.find("brute-force").name() == "brute-force");
  CHECK(registry.names().back() == "brute-force");
  CHECK_THROWS_WITH(
      registry.find("cpu"),
      "invalid --engine cpu (use analytic, fast, full, full-double, gpu or brute-force)");
  CHECK(&registry.get<AnalyticEngine>() == &registry.find("analytic"));
  // A taken name and a missing type break the registry's preconditions: a bug in the program
  // that registers engines, caught where contracts are on (Debug and sanitizer builds).
  if (PHASESIM_CONTRACTS) {
    CHECK_THROWS_WITH_AS(registry.add(std::make_unique<BruteForceEngine>()),
                         doctest::Contains("precondition failed: std::none_of("), ContractError);
    CHECK_THROWS_AS(EngineRegistry().get<AnalyticEngine>(), ContractError);
  }
}
