#include "phasesim/niah/run.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "phasesim/core/contract.hpp"
#include "phasesim/core/error.hpp"

namespace phasesim::niah {
namespace {

constexpr int kMaxDim = 65536;

void validate_parameterization(const NiahModel& m) {
  require(!(m.beta && m.dim),
          "invalid --beta with --dim (give --beta for the standardized channel, or --dim "
          "[--query-noise] for the full-vector model)");
  require(m.beta || m.dim, "invalid model (give --beta or --dim)");
  if (m.beta) {
    require_non_negative(*m.beta, "--beta");
    require(m.query_noise == 0,
            "invalid --query-noise without --dim (the query noise belongs "
            "to the full-vector model)");
    return;
  }
  require_in_range(*m.dim, 2, kMaxDim, "--dim");
  require_non_negative(m.query_noise, "--query-noise");
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

std::vector<int> NiahModel::scanned_heads() const {
  std::vector<int> scanned;
  for (int h = 0; h < heads(); ++h) {
    if (alike_head(h) == h) scanned.push_back(h);
  }
  return scanned;
}

bool NiahModel::shares_cache(int head) const {
  for (int h = 0; h < heads(); ++h) {
    if (h != head && key_head(h) == key_head(head)) return true;
  }
  return false;
}

bool NiahModel::one_geometry() const {
  return std::all_of(geometries.begin(), geometries.end(), [&](const Geometry& g) {
    const auto& first = geometries.front();
    return g.window == first.window && g.stride == first.stride && g.offset == first.offset;
  });
}

void validate_model(const NiahModel& m) {
  require_in_range(m.heads(), 1, kMaxHeads, "--heads");
  require(m.geometries.size() == m.gates.size(),
          "invalid model (" + counted(m.geometries.size(), "geometry", "geometries") + " for " +
              counted(m.heads(), "head") + ": give one per head)");
  for (int h = 0; h < m.heads(); ++h) {
    const auto& gate = m.gates[static_cast<std::size_t>(h)];
    m.geometry(h).validate();
    require(gate.window() == m.geometry(h).window,
            "invalid gate '" + gate.spec + "' (has " + std::to_string(gate.window()) +
                " weights, the window needs " + std::to_string(m.geometry(h).window) + ")");
  }
  validate_parameterization(m);
  require_non_negative(m.content_noise, "--content-noise");
  require(m.split_rhos.empty() || m.split_rhos.size() == m.gates.size(),
          "invalid model (" + counted(m.split_rhos.size(), "split rho") + " for " +
              counted(m.heads(), "head") + ")");
  require(m.key_heads.empty() || m.key_heads.size() == m.gates.size(),
          "invalid model (" + counted(m.key_heads.size(), "key head") + " for " +
              counted(m.heads(), "head") + ")");
  for (int h = 0; h < m.heads(); ++h) {
    require(m.key_head(h) >= 0 && m.key_head(h) <= h,
            "invalid model (head " + std::to_string(h) + " reads the cache of head " +
                std::to_string(m.key_head(h)) + ", which must come before it)");
  }
  for (const double rho : m.split_rhos) {
    require(rho >= 0 && rho <= 1, "invalid --split-rho " + format_number(rho) +
                                      " (the correlation of a token's two keys must be in [0, 1])");
  }
  if (m.dim) {
    for (const auto& gate : m.gates) check_channel_counts(gate, *m.dim);
  }
}

void validate_knockout(int head, int heads) {
  require(head >= 0 && head < heads, "invalid --knockout " + std::to_string(head) +
                                         " (must be a head index from 0 to " +
                                         std::to_string(heads - 1) + ")");
}

namespace {

// --gates gives H gates, or one gate that --heads replicates (random heads get seeds SEED,
// SEED + 1, ...); gates given as numbers are one per head.
std::vector<Gate> head_gates(const NiahSpec& spec) {
  auto gates =
      spec.gate_values.empty() ? parse_gates(spec.gates, spec.geometry.window) : spec.gate_values;
  if (gates.size() > 1 || !spec.gate_values.empty()) {
    // The message is built only when it is thrown: without --heads it has no value to print.
    if (spec.heads && *spec.heads != static_cast<int>(gates.size())) {
      throw InputError("invalid --heads " + std::to_string(*spec.heads) + " (--gates gives " +
                       counted(gates.size(), "gate") +
                       ": give one gate to replicate over the heads, or one gate per head)");
    }
    return gates;
  }
  const int heads = spec.heads.value_or(1);
  require_in_range(heads, 1, kMaxHeads, "--heads");
  std::vector<Gate> replicated;
  for (int h = 0; h < heads; ++h) replicated.push_back(replicate_gate(gates.front(), h));
  return replicated;
}

// Whether a shared needle plan (compare) lies within this run's own: same groups and prompts,
// and blocks inside its own, so interior for these heads too.
bool lies_within(const NeedlePlan& shared, const NeedlePlan& own) {
  return shared.groups == own.groups && shared.prompts == own.prompts &&
         shared.first_block >= own.first_block &&
         shared.first_block + shared.block_count <= own.first_block + own.block_count;
}

NiahModel make_model(const NiahSpec& spec) {
  NiahModel m;
  if (spec.architecture) {
    m.geometries = spec.architecture->geometries();
    m.gates = spec.architecture->gates();
    for (const auto& h : spec.architecture->heads) m.split_rhos.push_back(h.split_rho);
    m.key_heads = spec.architecture->key_heads();
  } else {
    spec.geometry.validate();
    m.gates = head_gates(spec);
    m.geometries.assign(m.gates.size(), spec.geometry);
    m.split_rhos.assign(m.gates.size(), spec.split_rho);
  }
  m.context = spec.context;
  // validate_model rejects --beta with --dim and --query-noise without --dim.
  m.beta = spec.beta || !spec.dim ? std::optional(spec.beta.value_or(kDefaultBeta)) : std::nullopt;
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
  if (spec.needles) {
    PHASESIM_EXPECT(lies_within(*spec.needles, run.needles));  // planned for every head (compare)
    run.needles = *spec.needles;
  }
  run.architecture = spec.architecture;
  run.combine = parse_combine(spec.combine, run.model.heads());
  if (spec.knockout) {
    validate_knockout(*spec.knockout, run.model.heads());
    run.knockout = spec.knockout;
  }
  return run;
}

namespace {

// The warnings of one geometry: its options are `dashes` + "window" and "stride"; `head`
// names an architecture's head (" of layer 1 head 2"), empty for the shorthand.
void warn_geometry(const Geometry& g, int groups, const std::string& dashes,
                   const std::string& head, std::vector<std::string>& warnings) {
  const auto stride = dashes + "stride " + std::to_string(g.stride) + head;
  if (groups % g.stride != 0) {
    warnings.push_back("--groups " + std::to_string(groups) + " is not a multiple of " + stride +
                       ": groups mix needles of different phases, so the period cannot show "
                       "(use a multiple of " +
                       std::to_string(g.stride) + ")");
  }
  if (g.window < g.stride) {
    warnings.push_back(dashes + "window " + std::to_string(g.window) + " < " + stride +
                       ": phases 0 to " + std::to_string(g.stride - g.window - 1) +
                       " are in no entry, so their needles are found only by chance");
  }
}

}  // namespace

std::vector<std::string> niah_warnings(const NiahSpec& spec) {
  std::vector<std::string> warnings;
  if (!spec.architecture) {
    warn_geometry(spec.geometry, spec.groups, "--", "", warnings);
    return warnings;
  }
  // An architecture: once for each distinct geometry, naming its first head.
  std::vector<Geometry> seen;
  for (const auto& h : spec.architecture->heads) {
    const auto& g = h.geometry;
    const auto same = [&](const Geometry& o) {
      return o.window == g.window && o.stride == g.stride && o.offset == g.offset;
    };
    if (std::any_of(seen.begin(), seen.end(), same)) continue;
    seen.push_back(g);
    warn_geometry(g, spec.groups, "",
                  " of layer " + std::to_string(h.layer) + " head " + std::to_string(h.head),
                  warnings);
  }
  return warnings;
}

}  // namespace phasesim::niah
