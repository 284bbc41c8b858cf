#include "phasesim/engines/engine.hpp"

#include "fast_engine.hpp"
#include "full_engine.hpp"
#include "gpu_engine.hpp"
#include "phasesim/channel/phase_channel.hpp"
#include "phasesim/core/error.hpp"
#include "trial_loop.hpp"

namespace phasesim {

EngineKind parse_engine(std::string_view name) {
  if (name == "analytic") return EngineKind::analytic;
  if (name == "fast") return EngineKind::fast;
  if (name == "full") return EngineKind::full;
  if (name == "gpu") return EngineKind::gpu;
  throw InputError("invalid --engine " + std::string(name) + " (use analytic, fast, full or gpu)");
}

std::string engine_name(EngineKind kind) {
  switch (kind) {
    case EngineKind::analytic:
      return "analytic";
    case EngineKind::fast:
      return "fast";
    case EngineKind::full:
      return "full";
    case EngineKind::gpu:
      return "gpu";
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
    case EngineKind::gpu: {
      const auto reason = gpu_unavailable_reason();
      require(reason.empty(), "invalid --engine gpu: " + reason);
      require(model.full_vector(),
              "invalid --engine gpu without --dim (the full-vector engine needs --dim D)");
      return;
    }
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
      case EngineKind::gpu:
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
    case EngineKind::gpu:
      return full_vector_outcomes(model, needles,
                                  full_vector_argmaxes(kind, model, needles, threads));
    case EngineKind::analytic:
      break;
  }
  throw std::logic_error("simulate: the analytic engine has no Monte Carlo outcomes");
}

std::vector<Argmax> full_vector_argmaxes(EngineKind kind, const NiahModel& model,
                                         const NeedlePlan& needles, int threads) {
  check_engine(kind, model);
  if (kind == EngineKind::gpu) return engines::gpu_argmaxes(model, needles);
  if (kind != EngineKind::full) {
    throw std::logic_error("full_vector_argmaxes: only the full and gpu engines have argmaxes");
  }
  const engines::FullEngine engine(model);
  const int heads = model.heads();
  std::vector<Argmax> argmaxes(static_cast<std::size_t>(needles.trials() * heads));
  engines::for_each_trial(engine, model, needles, threads,
                          [&](std::uint32_t trial, std::int64_t needle, auto& workspace) {
                            for (int h = 0; h < heads; ++h) {
                              argmaxes[static_cast<std::size_t>(trial) * heads + h] =
                                  engine.argmax(trial, needle, h, workspace);
                            }
                          });
  return argmaxes;
}

OutcomeTable full_vector_outcomes(const NiahModel& model, const NeedlePlan& needles,
                                  const std::vector<Argmax>& argmaxes) {
  OutcomeTable table(needles.trials(), model.heads());
  for (std::int64_t i = 0; i < needles.trials(); ++i) {
    const std::int64_t needle = needles.position(model.seed, static_cast<std::uint32_t>(i));
    for (int h = 0; h < model.heads(); ++h) {
      const auto& best = argmaxes[static_cast<std::size_t>(i * model.heads() + h)];
      table.set(i, h, entry_contains(model.geometry, best.entry, needle));
    }
  }
  return table;
}

std::int64_t full_vector_keys_per_trial(const NiahModel& model) {
  std::int64_t keys = 0;
  for (const auto& head : engines::full_vector_heads(model)) keys += scanned_keys(head);
  return keys;
}

std::vector<std::vector<double>> analytic_phase_success(const NiahModel& model) {
  std::vector<std::vector<double>> success;
  for (const auto& gate : model.gates) {
    success.push_back(phase_success(model.geometry, gate, model.beta_effective(), model.entries()));
  }
  return success;
}

}  // namespace phasesim
