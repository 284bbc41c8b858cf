#include "phasesim/engines/engine.hpp"

#include <algorithm>

#include "monte_carlo.hpp"
#include "phasesim/core/contract.hpp"
#include "phasesim/core/error.hpp"

namespace phasesim::engines {

WorkEstimate Engine::estimate(const niah::NiahRun& run) const {
  const auto& m = run.model;
  const double heads = m.heads(), window = m.max_window();
  const auto trials = static_cast<double>(run.needles.trials());
  // Measured on the fast engine (benchmarks/commands_benchmark.cpp): about 0.15 us per trial
  // and head plus 2 ns per slot; the gates and their per-thread copies, and one outcome per
  // trial and head.
  return {trials * heads * (1.5e-7 + 2e-9 * window), 32 * heads * window + 32 * trials * heads};
}

void EngineRegistry::add(std::unique_ptr<Engine> engine) {
  // std::none_of, not std::ranges: the browser build's libc++ has no ranges algorithms.
  PHASESIM_EXPECT(std::none_of(engines_.begin(), engines_.end(),
                               [&](const auto& known) { return known->name() == engine->name(); }));
  engines_.push_back(std::move(engine));
}

const Engine& EngineRegistry::find(std::string_view name) const {
  for (const auto& engine : engines_) {
    if (engine->name() == name) return *engine;
  }
  std::string known;
  const auto all = names();
  for (std::size_t i = 0; i < all.size(); ++i) {
    known += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i];
  }
  throw InputError("invalid --engine " + std::string(name) + " (use " + known + ")");
}

std::vector<std::string> EngineRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& engine : engines_) names.push_back(engine->name());
  return names;
}

niah::OutcomeTable outcomes_of(const niah::NiahRun& run,
                               const std::vector<niah::Argmax>& argmaxes) {
  const int heads = run.model.heads();
  niah::OutcomeTable table(run.needles.trials(), heads);
  for (std::int64_t i = 0; i < run.needles.trials(); ++i) {
    const std::int64_t needle = run.needles.position(run.model.seed, static_cast<std::uint32_t>(i));
    for (int h = 0; h < heads; ++h) {
      const auto& best = argmaxes[static_cast<std::size_t>(i * heads + h)];
      table.set(i, h, run.model.geometry(h).holds(best.entry, needle));
    }
  }
  return table;
}

void require_full_vector(const niah::NiahModel& model, const std::string& engine) {
  require(model.full_vector(), "invalid --engine " + engine + " without --dim (the full-vector " +
                                   "engine needs --dim D)");
}

void refuse_raw_blocks(const niah::NiahModel& model, const std::string& engine) {
  for (int h = 0; h < model.heads(); ++h) {
    require(!model.read_path(h).raw_blocks,
            "invalid --engine " + engine + " with --raw-blocks (head " + std::to_string(h + 1) +
                " reads the raw tokens of its selected blocks, which the full-vector engines "
                "do not materialize; use --engine analytic or fast)");
  }
}

}  // namespace phasesim::engines
