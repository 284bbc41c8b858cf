#include "phasesim/engine.hpp"

#include "fast_engine.hpp"
#include "full_engine.hpp"
#include "phasesim/error.hpp"
#include "phasesim/phase_channel.hpp"
#include "trial_loop.hpp"

namespace phasesim {

EngineKind parse_engine(std::string_view name) {
  if (name == "analytic") return EngineKind::analytic;
  if (name == "fast") return EngineKind::fast;
  if (name == "full") return EngineKind::full;
  throw InputError("invalid --engine " + std::string(name) + " (use analytic, fast or full)");
}

std::string engine_name(EngineKind kind) {
  switch (kind) {
    case EngineKind::analytic:
      return "analytic";
    case EngineKind::fast:
      return "fast";
    case EngineKind::full:
      return "full";
  }
  return "unknown";
}

void check_engine(EngineKind kind, const NiahModel& model) {
  switch (kind) {
    case EngineKind::analytic:
      require(model.content_noise == 0,
              "invalid --content-noise " + format_number(model.content_noise) +
                  " with --engine analytic (the analytic channel has no content noise; use "
                  "--engine fast)");
      return;
    case EngineKind::fast:
      for (const auto& gate : model.gates) engines::fast_path(model, gate);
      return;
    case EngineKind::full:
      require(model.full_vector(),
              "invalid --engine full without --dim (the full-vector engine needs --dim D)");
      return;
  }
}

std::vector<std::string> engine_paths(EngineKind kind, const NiahModel& model) {
  std::vector<std::string> paths;
  for (const auto& gate : model.gates) {
    switch (kind) {
      case EngineKind::analytic:
        paths.push_back("quadrature");
        break;
      case EngineKind::fast:
        paths.push_back(engines::fast_path_name(engines::fast_path(model, gate)));
        break;
      case EngineKind::full:
        paths.push_back("full-vector");
        break;
    }
  }
  return paths;
}

OutcomeTable::OutcomeTable(std::int64_t trials, int heads)
    : trials_(trials), heads_(heads), outcomes_(static_cast<std::size_t>(trials * heads), 0) {}

OutcomeTable simulate(EngineKind kind, const NiahModel& model, const NeedlePlan& needles,
                      int threads) {
  check_engine(kind, model);
  switch (kind) {
    case EngineKind::fast:
      return engines::run_trials(engines::FastEngine(model), model, needles, threads);
    case EngineKind::full:
      return engines::run_trials(engines::FullEngine(model), model, needles, threads);
    case EngineKind::analytic:
      break;
  }
  throw std::logic_error("simulate: the analytic engine has no Monte Carlo outcomes");
}

std::vector<std::vector<double>> analytic_phase_success(const NiahModel& model) {
  std::vector<std::vector<double>> success;
  for (const auto& gate : model.gates) {
    success.push_back(phase_success(model.geometry, gate, model.beta_effective(), model.entries()));
  }
  return success;
}

}  // namespace phasesim
