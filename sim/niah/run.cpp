#include "phasesim/niah/run.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "phasesim/core/error.hpp"

namespace phasesim {
namespace {

constexpr int kMaxHeads = 4096;  // the head index shares a 32-bit counter word with the stream
constexpr int kMaxDim = 65536;

void validate_parameterization(const NiahModel& m) {
  require(!(m.beta && m.dim),
          "invalid --beta with --dim (give --beta for the standardized channel, or --dim "
          "[--query-noise] for the full-vector model)");
  require(m.beta || m.dim, "invalid model (give --beta or --dim)");
  if (m.beta) {
    require(std::isfinite(*m.beta) && *m.beta >= 0,
            "invalid --beta " + format_number(*m.beta) + " (must be finite and >= 0)");
    require(m.query_noise == 0,
            "invalid --query-noise without --dim (the query noise belongs "
            "to the full-vector model)");
    return;
  }
  require(*m.dim >= 2 && *m.dim <= kMaxDim, "invalid --dim " + std::to_string(*m.dim) +
                                                " (must be in [2, " + std::to_string(kMaxDim) +
                                                "])");
  require(std::isfinite(m.query_noise) && m.query_noise >= 0,
          "invalid --query-noise " + format_number(m.query_noise) + " (must be finite and >= 0)");
}

}  // namespace

double NiahModel::beta_effective() const {
  if (beta) return *beta;
  return std::sqrt(static_cast<double>(*dim) / (1 + query_noise * query_noise));
}

int NiahModel::max_window() const {
  int window = 0;
  for (const auto& g : geometries) window = std::max(window, g.window);
  return window;
}

bool NiahModel::one_geometry() const {
  return std::all_of(geometries.begin(), geometries.end(), [&](const Geometry& g) {
    const auto& first = geometries.front();
    return g.window == first.window && g.stride == first.stride && g.offset == first.offset;
  });
}

void validate_model(const NiahModel& m) {
  require(m.heads() >= 1 && m.heads() <= kMaxHeads,
          "invalid --heads " + std::to_string(m.heads()) + " (must be in [1, 4096])");
  require(m.geometries.size() == m.gates.size(),
          "invalid model (" + std::to_string(m.geometries.size()) + " geometries for " +
              std::to_string(m.heads()) + " heads: give one per head)");
  for (int h = 0; h < m.heads(); ++h) {
    const auto& gate = m.gates[static_cast<std::size_t>(h)];
    m.geometry(h).validate();
    require(gate.window() == m.geometry(h).window,
            "invalid gate '" + gate.spec + "' (has " + std::to_string(gate.window()) +
                " weights, the window needs " + std::to_string(m.geometry(h).window) + ")");
  }
  validate_parameterization(m);
  require(
      std::isfinite(m.content_noise) && m.content_noise >= 0,
      "invalid --content-noise " + format_number(m.content_noise) + " (must be finite and >= 0)");
}

void validate_knockout(int head, int heads) {
  require(head >= 0 && head < heads, "invalid --knockout " + std::to_string(head) +
                                         " (must be a head index from 0 to " +
                                         std::to_string(heads - 1) + ")");
}

namespace {

// --gates gives H gates, or one gate that --heads replicates (random heads get seeds SEED,
// SEED + 1, ...).
std::vector<Gate> head_gates(const NiahSpec& spec) {
  auto gates = parse_gates(spec.gates, spec.geometry.window);
  if (gates.size() > 1) {
    require(!spec.heads || *spec.heads == static_cast<int>(gates.size()),
            "invalid --heads " + std::to_string(*spec.heads) + " (--gates gives " +
                std::to_string(gates.size()) +
                " gates: give one gate to replicate over the heads, or one gate per head)");
    return gates;
  }
  const int heads = spec.heads.value_or(1);
  require(heads >= 1 && heads <= kMaxHeads,
          "invalid --heads " + std::to_string(heads) + " (must be in [1, 4096])");
  std::vector<Gate> replicated;
  for (int h = 0; h < heads; ++h) replicated.push_back(replicate_gate(gates.front(), h));
  return replicated;
}

NiahModel make_model(const NiahSpec& spec) {
  NiahModel m;
  if (spec.architecture) {
    m.geometries = spec.architecture->geometries();
    m.gates = spec.architecture->gates();
  } else {
    spec.geometry.validate();
    m.gates = head_gates(spec);
    m.geometries.assign(m.gates.size(), spec.geometry);
  }
  m.context = spec.context;
  // validate_model rejects --beta with --dim and --query-noise without --dim.
  m.beta = spec.beta || !spec.dim ? std::optional(spec.beta.value_or(4.5)) : std::nullopt;
  m.dim = spec.dim;
  m.query_noise = spec.query_noise;
  m.content_noise = spec.content_noise;
  m.rms_norm = spec.rms_norm;
  m.seed = spec.seed;
  validate_model(m);
  return m;
}

}  // namespace

NiahRun make_run(const NiahSpec& spec) {
  NiahRun run;
  run.model = make_model(spec);
  run.needles = spec.architecture
                    ? plan_needles(run.model.geometries, spec.context, spec.groups, spec.prompts,
                                   "the heads of " + spec.architecture->file)
                    : plan_needles(spec.geometry, spec.context, spec.groups, spec.prompts);
  run.architecture = spec.architecture;
  run.combine = parse_combine(spec.combine, run.model.heads());
  if (spec.knockout) {
    validate_knockout(*spec.knockout, run.model.heads());
    run.knockout = spec.knockout;
  }
  return run;
}

}  // namespace phasesim
