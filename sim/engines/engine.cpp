#include "phasesim/engines/engine.hpp"

#include <stdexcept>

#include "monte_carlo.hpp"
#include "phasesim/core/error.hpp"

namespace phasesim {

void EngineRegistry::add(std::unique_ptr<Engine> engine) {
  for (const auto& known : engines_) {
    if (known->name() == engine->name()) {
      throw std::logic_error("EngineRegistry: two engines called " + engine->name());
    }
  }
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

NiahResult run_niah(const NiahRun& run, const Engine& engine, const Parallel& parallel) {
  validate_model(run.model);
  if (run.knockout) validate_knockout(*run.knockout, run.model.heads());
  engine.check(run.model);
  return niah_result(run, engine.run(run, parallel));
}

namespace engines {

OutcomeTable outcomes_of(const NiahRun& run, const std::vector<Argmax>& argmaxes) {
  const int heads = run.model.heads();
  OutcomeTable table(run.needles.trials(), heads);
  for (std::int64_t i = 0; i < run.needles.trials(); ++i) {
    const std::int64_t needle = run.needles.position(run.model.seed, static_cast<std::uint32_t>(i));
    for (int h = 0; h < heads; ++h) {
      const auto& best = argmaxes[static_cast<std::size_t>(i * heads + h)];
      table.set(i, h, entry_contains(run.model.geometry(h), best.entry, needle));
    }
  }
  return table;
}

void require_full_vector(const NiahModel& model, const std::string& engine) {
  require(model.full_vector(), "invalid --engine " + engine + " without --dim (the full-vector " +
                                   "engine needs --dim D)");
}

}  // namespace engines
}  // namespace phasesim
