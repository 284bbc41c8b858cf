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

// A beta the full-vector model can give (sqrt(d / (1 + sigma^2)) is at most sqrt(d)).
void check_dim_beta(const NiahModel& m, const std::optional<double>& beta, const std::string& what,
                    const std::string& whose) {
  const double root = m.dim ? std::sqrt(static_cast<double>(*m.dim)) : 0.0;
  require(!(m.dim && beta && !(*beta > 0 && *beta <= root)),
          "invalid " + what + " " + format_number(beta.value_or(0)) + " with --dim " +
              std::to_string(m.dim.value_or(0)) + " (" + whose +
              " beta is sqrt(d / (1 + sigma^2)), in (0, sqrt(d)] = (0, " + format_number(root) +
              "])");
}

// What raw blocks (ReadPath::raw_blocks) are defined for: blocks that do not overlap (W = S: a
// token in two kept blocks would count once or twice), a needle of one token (its raw token is
// one place at u = 1), selection scores independent of the raw tokens' logits (rho 0: a raw
// token's logit and its block's pooled score are tied by the keys the block pools), and the
// standardized channel (the engines that read raw blocks, analytic and fast, work in it).
void validate_raw_blocks(const NiahModel& m, int h) {
  const auto& g = m.geometry(h);
  const auto refuse = [&](const std::string& why) {
    throw InputError("invalid --raw-blocks for head " + std::to_string(h + 1) + " (" + why + ")");
  };
  if (g.window != g.stride) {
    refuse("window " + std::to_string(g.window) + ", stride " + std::to_string(g.stride) +
           ": raw blocks need window = stride, blocks that do not overlap as NSA's selection "
           "blocks and MoBA's");
  }
  if (m.needle_tokens > 1)
    refuse("raw blocks are read for a needle of one token, --needle-tokens 1");
  if (m.read_path(h).index_rho != 0) {
    refuse(
        "raw blocks need --index-rho 0: a raw token's logit and its block's score are "
        "otherwise tied through the block's keys");
  }
  if (m.full_vector()) {
    refuse("raw blocks are read in the standardized channel: give --beta, not --dim");
  }
}

// What the read paths need beyond validate_read_path's checks of each value: one per head, an
// index gate of the head's window, a window and a needle within the context, an index beta the
// full-vector model can give (a head's own beta: read_paths, where its file names it).
void validate_read_paths(const NiahModel& m) {
  require(m.read_paths.empty() || m.read_paths.size() == m.gates.size(),
          "invalid model (" + counted(m.read_paths.size(), "read path") + " for " +
              counted(m.heads(), "head") + ")");
  require_in_range(m.needle_tokens, 1, kMaxNeedleTokens, "--needle-tokens");
  require(m.needle_tokens <= m.context,
          "invalid --needle-tokens " + std::to_string(m.needle_tokens) +
              " (must be at most the context, " + std::to_string(m.context) + ")");
  for (int h = 0; h < m.heads() && !m.read_paths.empty(); ++h) {
    const auto& path = m.read_path(h);
    if (path.index_gate) {
      require(path.index_gate->window() == m.geometry(h).window,
              "invalid index gate '" + path.index_gate->spec + "' (has " +
                  std::to_string(path.index_gate->window()) + " weights, the window needs " +
                  std::to_string(m.geometry(h).window) + ")");
      if (m.dim) check_channel_counts(*path.index_gate, *m.dim);
    }
    require(path.sliding_window <= m.context,
            "invalid --sliding-window " + std::to_string(path.sliding_window) +
                " (must be at most the context, " + std::to_string(m.context) + ")");
    check_dim_beta(m, path.index_beta, "--index-beta", "the indexer's");
    if (path.raw_blocks) validate_raw_blocks(m, h);
  }
}

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

const ReadPath& NiahModel::read_path(int head) const {
  static const ReadPath none;
  return read_paths.empty() ? none : read_paths[static_cast<std::size_t>(head)];
}

bool NiahModel::plain() const {
  for (int h = 0; h < heads(); ++h) {
    if (!plain(h)) return false;
  }
  return true;
}

const Gate& NiahModel::index_gate(int head) const {
  const auto& path = read_path(head);
  return path.index_gate ? *path.index_gate : gates[static_cast<std::size_t>(head)];
}

double NiahModel::head_beta(int head) const {
  return read_path(head).beta.value_or(beta_effective());
}

namespace {

// The query noise that gives `beta` in the full-vector model: sigma^2 = d / beta^2 - 1.
double query_noise_for(int dim, double beta) {
  return std::sqrt(std::max(0.0, dim / (beta * beta) - 1));
}

}  // namespace

double NiahModel::head_query_noise(int head) const {
  const auto& own = read_path(head).beta;
  if (!dim || !own) return query_noise;
  return query_noise_for(*dim, *own);
}

double NiahModel::index_query_noise(int head) const {
  if (!dim || !read_path(head).index_beta) return head_query_noise(head);
  return query_noise_for(*dim, index_beta(head));
}

double NiahModel::index_beta(int head) const {
  return read_path(head).index_beta.value_or(head_beta(head));
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
  validate_read_paths(m);
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

// The command line's read path, its index gates parsed for a window: one spec replicated over
// the heads (random:SEED as --heads replicates --gates), or one per head.
std::vector<ReadPathValues> command_read_paths(const NiahSpec& spec, int heads, int window) {
  const auto& o = spec.read;
  ReadPathValues values{o.top_k,          std::nullopt,
                        o.index_beta,     o.index_rho,
                        o.sliding_window, o.sink,
                        std::nullopt,     o.raw_blocks ? std::optional(true) : std::nullopt};
  validate_read_path(values);
  std::vector<ReadPathValues> list(static_cast<std::size_t>(heads), values);
  if (!o.index_gates) return list;
  const auto gates = parse_gates(*o.index_gates, window);
  require(gates.size() == 1 || static_cast<int>(gates.size()) == heads,
          "invalid --index-gates (gives " + counted(gates.size(), "gate") + " for " +
              counted(heads, "head") + ": give one gate for every head, or one per head)");
  for (int h = 0; h < heads; ++h) {
    list[static_cast<std::size_t>(h)].index_gate =
        gates.size() == 1 ? replicate_gate(gates.front(), h) : gates[static_cast<std::size_t>(h)];
  }
  return list;
}

// Every head's read path: an architecture's own values, the command line's where it gives
// none (--index-gates then one spec, parsed for each head's window). Empty when nothing is set.
std::vector<ReadPath> read_paths(const NiahSpec& spec, const NiahModel& m) {
  std::vector<ReadPathValues> values;
  if (!spec.architecture) {
    values = command_read_paths(spec, m.heads(), spec.geometry.window);
  } else {
    for (int h = 0; h < m.heads(); ++h) {
      const auto mine = command_read_paths(spec, 1, m.geometry(h).window).front();
      const auto& head = spec.architecture->heads[static_cast<std::size_t>(h)];
      values.push_back(head.read_path.over(mine));
      check_dim_beta(m, head.read_path.beta,
                     spec.architecture->file + ": layer " + std::to_string(head.layer) + ", head " +
                         std::to_string(head.head) + ": beta",
                     "a layer's");
    }
  }
  std::vector<ReadPath> paths;
  if (std::all_of(values.begin(), values.end(), [](const auto& v) { return v.empty(); })) {
    return paths;
  }
  for (const auto& v : values) paths.push_back(v.resolve());
  return paths;
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
  m.needle_tokens = spec.needle_tokens;
  m.read_paths = read_paths(spec, m);
  validate_model(m);
  return m;
}

}  // namespace

NiahRun make_run(const NiahSpec& spec) {
  NiahRun run;
  run.model = make_model(spec);
  const int n = run.model.needle_tokens;
  run.needles = spec.architecture
                    ? plan_needles(run.model.geometries, spec.context, spec.groups, spec.prompts,
                                   "the heads of " + spec.architecture->file, n)
                    : plan_needles(spec.geometry, spec.context, spec.groups, spec.prompts, n);
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

// A top k that keeps every entry selects nothing: said once for each k and entry count.
void warn_selection(std::optional<std::int64_t> k, std::int64_t entries, const std::string& head,
                    std::vector<std::string>& warnings) {
  if (!k || *k < entries) return;
  const auto text = "--top-k " + std::to_string(*k) + " keeps all " + std::to_string(entries) +
                    " entries" + head + ": no selection";
  if (std::find(warnings.begin(), warnings.end(), text) == warnings.end()) {
    warnings.push_back(text);
  }
}

}  // namespace

std::vector<std::string> niah_warnings(const NiahSpec& spec) {
  std::vector<std::string> warnings;
  if (!spec.architecture) {
    warn_geometry(spec.geometry, spec.groups, "--", "", warnings);
    warn_selection(spec.read.top_k, spec.geometry.entries_before(spec.context), "", warnings);
    return warnings;
  }
  for (const auto& h : spec.architecture->heads) {
    const auto k = h.read_path.top_k ? h.read_path.top_k : spec.read.top_k;
    warn_selection(k, h.geometry.entries_before(spec.context),
                   " of layer " + std::to_string(h.layer), warnings);
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
