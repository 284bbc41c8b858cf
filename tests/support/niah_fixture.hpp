#pragma once
// The one test fixture of the engines: runs are prepared from a NiahSpec (engines/plan.hpp),
// as the CLI prepares them, and run by engines found by name in a registry. check_engines_agree is
// the agreement suite: every engine that can run a case against the exact answer and
// against each other, in units of the Monte Carlo standard error (5 sigma, fixed seeds).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "phasesim/core/error.hpp"
#include "phasesim/engines/plan.hpp"

namespace phasesim::engines {
std::unique_ptr<Engine> make_fast_engine();  // registered by builtin_engines()
std::unique_ptr<Engine> make_full_engine();
}  // namespace phasesim::engines

namespace phasesim::test {

/// The engines phasesim ships.
inline const engines::EngineRegistry& shipped_engines() {
  static const engines::EngineRegistry registry = engines::builtin_engines();
  return registry;
}

/// fast and full alone: full-double, about 20 times full's time, adds nothing to a comparison
/// of fast against full (precision-check measures full against it).
inline const engines::EngineRegistry& fast_and_full() {
  static const engines::EngineRegistry registry = [] {
    engines::EngineRegistry r;
    r.add(engines::make_fast_engine());
    r.add(engines::make_full_engine());
    return r;
  }();
  return registry;
}

/// A spec in the full-vector parameterization.
inline niah::NiahSpec full_vector(niah::NiahSpec spec, int dim, double query_noise) {
  spec.beta.reset();
  spec.dim = dim;
  spec.query_noise = query_noise;
  return spec;
}

/// An architecture from TOML text, as a file would give it ("test.toml" in messages).
inline niah::Architecture architecture(std::string_view toml) {
  return niah::parse_architecture(toml, "test.toml");
}

/// The plan of a spec on an engine, bounded for the default threads.
inline engines::NiahPlan plan(const niah::NiahSpec& spec, const engines::Engine& engine) {
  return engines::prepare(spec, engine, Parallel{}.team());
}

inline engines::NiahPlan plan(const niah::NiahSpec& spec, std::string_view engine) {
  return plan(spec, shipped_engines().find(engine));
}

/// The report of a spec on an engine.
inline niah::NiahResult run_spec(const niah::NiahSpec& spec, const engines::Engine& engine) {
  return engines::run_niah(plan(spec, engine), Parallel{});
}

inline niah::NiahResult run_spec(const niah::NiahSpec& spec, std::string_view engine) {
  return run_spec(spec, shipped_engines().find(engine));
}

/// |estimate - exact| within 5 standard errors of a proportion whose true value is `exact`.
inline void check_near_exact(double estimate, double exact, std::int64_t trials) {
  const double sigma = std::sqrt(exact * (1 - exact) / static_cast<double>(trials));
  CHECK(std::abs(estimate - exact) <= 5 * sigma);
}

/// Monte Carlo groups (and knockout) against exact per-group probabilities.
inline void check_against_exact(const niah::NiahResult& mc, const niah::NiahResult& exact) {
  REQUIRE(mc.groups.size() == exact.groups.size());
  for (std::size_t r = 0; r < mc.groups.size(); ++r) {
    CAPTURE(r);
    CAPTURE(mc.groups[r].accuracy);
    CAPTURE(exact.groups[r].accuracy);
    const auto trials = *mc.groups[r].trials;
    check_near_exact(mc.groups[r].accuracy, exact.groups[r].accuracy, trials);
    if (!mc.knockout) continue;
    const auto& without = mc.knockout->groups[r];
    const auto& exact_without = exact.knockout->groups[r];
    check_near_exact(without.accuracy, exact_without.accuracy, trials);
    // Removing a head can only lose trials: -change is the probability of losing one.
    check_near_exact(-without.change, -exact_without.change, trials);
  }
}

/// Two independent Monte Carlo estimates per group within 5 combined standard errors (the
/// pooled two-proportion test, which stays valid when both estimates are 0 or 1).
inline void check_agree(const niah::NiahResult& a, const niah::NiahResult& b) {
  REQUIRE(a.groups.size() == b.groups.size());
  for (std::size_t r = 0; r < a.groups.size(); ++r) {
    const auto& x = a.groups[r];
    const auto& y = b.groups[r];
    const auto n = static_cast<double>(*x.trials);
    const auto m = static_cast<double>(*y.trials);
    const double pooled = static_cast<double>(*x.successes + *y.successes) / (n + m);
    const double sigma = std::sqrt(pooled * (1 - pooled) * (1 / n + 1 / m));
    CAPTURE(r);
    CAPTURE(x.accuracy);
    CAPTURE(y.accuracy);
    CHECK(std::abs(x.accuracy - y.accuracy) <= 5 * sigma);
  }
}

/// One engine's result for the agreement suite.
struct EngineRun {
  const engines::Engine* engine;
  niah::NiahResult result;
};

/// The agreement suite for one case. Every engine of `registry` that can run the case runs
/// it (an engine that cannot says why in a message: e.g. gpu without a device). Each Monte
/// Carlo engine is checked against every engine that is exact for the case, and against
/// every other Monte Carlo engine on an independent seed. Returns the runs, for further
/// checks. Fails when no pair of engines could be compared.
inline std::vector<EngineRun> check_engines_agree(
    const niah::NiahSpec& spec, const engines::EngineRegistry& registry = shipped_engines()) {
  const auto run = niah::make_run(spec);
  std::vector<EngineRun> exact, sampled;
  for (const auto& name : registry.names()) {
    const auto& engine = registry.find(name);
    try {
      engine.check(run.model);
    } catch (const InputError& e) {
      MESSAGE("engine " << name << " skipped: " << std::string(e.what()));
      continue;
    }
    auto seeded = spec;
    if (engine.monte_carlo()) seeded.seed += 1000 * sampled.size();  // independent errors
    const bool is_exact = !engine.monte_carlo() && engine.approximation(run.model).empty();
    if (engine.monte_carlo() || is_exact) {
      (engine.monte_carlo() ? sampled : exact).push_back({&engine, run_spec(seeded, engine)});
    }
  }
  std::size_t comparisons = 0;
  for (std::size_t i = 0; i < sampled.size(); ++i) {
    for (const auto& reference : exact) {
      CAPTURE(sampled[i].engine->name());
      CAPTURE(reference.engine->name());
      check_against_exact(sampled[i].result, reference.result);
      ++comparisons;
    }
    for (std::size_t j = i + 1; j < sampled.size(); ++j) {
      CAPTURE(sampled[i].engine->name());
      CAPTURE(sampled[j].engine->name());
      check_agree(sampled[i].result, sampled[j].result);
      ++comparisons;
    }
  }
  CHECK(comparisons > 0);
  exact.insert(exact.end(), sampled.begin(), sampled.end());
  return exact;
}

}  // namespace phasesim::test
