// The frontier's plan (every design and preset checked and bounded before any is run) and its
// run (each candidate's NIAH report, its costs, and which rows no other dominates).
#include "phasesim/frontier/frontier.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "phasesim/core/error.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::frontier {

namespace {

// The most groups a preset's table uses: a report keeps every trial of every head (MoBA's 1024
// query heads at 4096 groups of 256 prompts were 32 GiB), and the V4 presets need 128.
constexpr std::int64_t kMaxPresetGroups = 128;

// Groups a preset's NIAH table uses: the least common multiple of its strides (each group one
// phase of every cache), its largest stride where that multiple is beyond kMaxDesigns, and at
// most kMaxPresetGroups: then a group mixes phases of the largest strides (MoBA's blocks of
// 4096, whose uniform gate reads every phase alike, so its worst group is its worst phase).
int preset_groups(const niah::Architecture& arch) {
  std::int64_t groups = 1;
  std::int64_t largest = 1;
  for (const auto& g : arch.geometries()) {
    largest = std::max<std::int64_t>(largest, g.stride);
    groups = std::lcm(groups, static_cast<std::int64_t>(g.stride));
    if (groups > kMaxDesigns) return static_cast<int>(std::min(largest, kMaxPresetGroups));
  }
  return static_cast<int>(std::min(groups, kMaxPresetGroups));
}

void require_listed(const auto& list, const std::string& option) {
  require(!list.empty(), "invalid " + option + " (must list at least one value)");
}

void check_gate_family(const std::string& gate, const DesignSpace& space) {
  if (gate == "uniform" || gate == "last" || gate == "spread") return;
  for (const auto ratio : space.ratios)
    for (const auto overlap : space.overlaps) {
      try {
        parse_gate(gate, static_cast<int>(ratio * overlap));
      } catch (const InputError& e) {
        throw InputError(
            "invalid --gate-families '" + gate +
            "' (uniform, last, spread, or a gate spec valid at every window: " + e.what() + ")");
      }
    }
}

std::int64_t space_size(const DesignSpace& s) {
  std::int64_t size = 1;
  for (const auto n : {s.ratios.size(), s.overlaps.size(), s.gates.size(), s.heads.size(),
                       s.top_k.size(), s.sliding_windows.size()}) {
    size = std::min<std::int64_t>(size * static_cast<std::int64_t>(n), kMaxDesigns + 1);
  }
  return size;
}

void check_space(const FrontierSpec& spec) {
  const auto& s = spec.space;
  require_listed(s.ratios, "--ratios");
  require_listed(s.overlaps, "--overlaps");
  require_listed(s.gates, "--gate-families");
  require_listed(s.heads, "--caches");
  require_listed(s.top_k, "--top-k");
  require_listed(s.sliding_windows, "--sliding-windows");
  for (const auto r : s.ratios) require_in_range(r, 1, 65536, "--ratios");
  for (const auto o : s.overlaps) require_in_range(o, 1, 16, "--overlaps");
  for (const auto h : s.heads) require_in_range(h, 1, 64, "--caches");
  for (const auto k : s.top_k) require_in_range(k, 0, niah::kMaxTopK, "--top-k");
  for (const auto w : s.sliding_windows)
    require_in_range(w, 0, spec.model.context, "--sliding-windows");
  for (const auto& gate : s.gates) check_gate_family(gate, s);
  const auto size = space_size(s);
  require(size <= kMaxDesigns, "invalid design space: more than " + std::to_string(kMaxDesigns) +
                                   " designs (the product of the lists' lengths; narrow one)");
  if (spec.floor && !(*spec.floor >= 0 && *spec.floor <= 1))
    throw InputError("invalid --floor " + format_number(*spec.floor) + " (must be in [0, 1])");
  if (spec.weight && !(*spec.weight >= 0 && *spec.weight <= 1))
    throw InputError("invalid --weight " + format_number(*spec.weight) + " (must be in [0, 1])");
}

// The analytic engine where it computes the run exactly, else the fast engine.
engines::NiahPlan plan_on_best_engine(const niah::NiahSpec& spec,
                                      const engines::EngineRegistry& engines, int threads) {
  const auto& analytic = engines.find("analytic");
  const auto run = niah::make_run(spec);
  try {
    analytic.check(run.model);
  } catch (const InputError&) {
    return engines::prepare(spec, engines.find("fast"), threads);
  }
  return engines::prepare(spec, analytic, threads);
}

Candidate candidate(const FrontierSpec& spec, const niah::Architecture& arch, int groups,
                    const engines::EngineRegistry& engines, int threads) {
  auto model = spec.model;
  model.architecture = arch;
  model.groups = groups;
  return {arch.name, false, std::nullopt, "", plan_on_best_engine(model, engines, threads)};
}

// Entries the attention reads per query, over the caches: the selected ones (all without a
// selection) and the sliding window's raw tokens. A cache read as raw blocks reads every
// visible block's score (its pooled key, in the attention's own key space, unlike an indexer's
// small cache), then W raw tokens of each selected block.
double read_entries(const niah::NiahModel& m) {
  double entries = 0;
  for (int h = 0; h < m.heads(); ++h) {
    if (m.key_head(h) != h) continue;
    const auto& path = m.read_path(h);
    const auto visible = m.entries(h);
    const auto kept = static_cast<double>(path.top_k ? std::min(*path.top_k, visible) : visible);
    entries +=
        (path.raw_blocks ? static_cast<double>(visible) + kept * m.geometry(h).window : kept) +
        path.sliding_window;
  }
  return entries;
}

// The `niah` command that gives a design's row: the design's file and the frontier's options.
std::string reproduces(const FrontierSpec& spec, const Design& d, const engines::NiahPlan& plan) {
  const auto& m = spec.model;
  std::string command = "reproduces: phasesim niah --arch " + d.name() + ".toml --engine " +
                        plan.engine().name() + " --context " + std::to_string(m.context) +
                        " --groups " + std::to_string(d.stride) + " --beta " +
                        format_number(m.beta.value_or(kDefaultBeta));
  if (m.needle_tokens != 1) command += " --needle-tokens " + std::to_string(m.needle_tokens);
  if (m.read.index_beta) command += " --index-beta " + format_number(*m.read.index_beta);
  if (m.read.index_rho) command += " --index-rho " + format_number(*m.read.index_rho);
  if (m.read.sink) command += " --sink " + format_number(*m.read.sink);
  if (m.combine != "any") command += " --combine " + m.combine;
  if (plan.engine().monte_carlo())
    command += " --prompts " + std::to_string(m.prompts) + " --seed " + std::to_string(m.seed);
  return command;
}

}  // namespace

FrontierPlan prepare_frontier(const FrontierSpec& spec, const engines::EngineRegistry& engines,
                              int threads) {
  check_space(spec);
  FrontierPlan plan{spec, {}, {}, {}};
  for (const auto& d : designs(spec.space)) {
    auto c = candidate(spec, niah::parse_architecture(design_toml(d), d.name()), d.stride, engines,
                       threads);
    c.design = d;
    c.toml = design_toml(d, {"A design of phasesim frontier.", reproduces(spec, d, c.plan)});
    plan.candidates.push_back(std::move(c));
  }
  if (spec.presets) {
    for (const auto& name : niah::architecture_presets()) {
      const auto arch = niah::load_architecture(name);
      try {  // a preset the context cannot hold (MoBA's blocks of 4096 at 8k) is left out
        auto c = candidate(spec, arch, preset_groups(arch), engines, threads);
        c.preset = true;
        plan.candidates.push_back(std::move(c));
      } catch (const InputError& e) {
        plan.warnings.push_back("preset " + name + " left out: " + e.what());
      }
    }
  }
  for (const auto& c : plan.candidates) {
    plan.estimate.seconds += c.plan.estimate().seconds;
    plan.estimate.bytes = std::max(plan.estimate.bytes, c.plan.estimate().bytes);
  }
  check_work("frontier", plan.estimate, threads);
  const auto monte_carlo =
      std::count_if(plan.candidates.begin(), plan.candidates.end(),
                    [](const auto& c) { return c.plan.engine().monte_carlo(); });
  if (monte_carlo) {
    plan.warnings.push_back(counted(monte_carlo, "row") +
                            " run on the fast engine (the analytic engine refuses needles of "
                            "3 tokens or more and --index-rho other than 0): Monte Carlo, " +
                            std::to_string(spec.model.prompts) +
                            " prompts a group, each row with its standard error");
  }
  return plan;
}

namespace {

Row row_of(const FrontierPlan& plan, std::size_t index, const Parallel& parallel) {
  const auto& c = plan.candidates[index];
  const auto result = engines::run_niah(c.plan, parallel);
  const auto& run = c.plan.run();
  Row row;
  row.candidate = index;
  row.cost =
      niah::kv_cost(run.architecture->geometries(), run.model.key_heads, run.model.read_paths);
  row.read_entries = read_entries(run.model);
  row.summary = result.summary;
  row.worst_std_error =
      result.groups[static_cast<std::size_t>(result.summary.worst_group)].std_error;
  const double w = plan.spec.weight.value_or(0);
  row.score = w * row.summary.mean + (1 - w) * row.summary.worst;
  row.below_floor = plan.spec.floor && row.summary.worst < *plan.spec.floor;
  return row;
}

Point point(const Row& row) {
  return {row.cost.entries_per_token, row.read_entries, row.summary.worst, row.summary.mean};
}

}  // namespace

FrontierResult run_frontier(const FrontierPlan& plan, const Parallel& parallel) {
  FrontierResult result;
  // Progress counts candidates: the engines run with the threads and the stop, not the count.
  auto engines_parallel = parallel;
  engines_parallel.progress = {};
  for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
    check_stop(parallel);
    result.rows.push_back(row_of(plan, i, engines_parallel));
    if (parallel.progress) parallel.progress(static_cast<std::int64_t>(i + 1));
  }
  // The frontier of the designs above the floor; presets are marked against it.
  std::vector<std::size_t> eligible;
  std::vector<Point> points;
  for (std::size_t i = 0; i < result.rows.size(); ++i) {
    if (plan.candidates[i].preset || result.rows[i].below_floor) continue;
    eligible.push_back(i);
    points.push_back(point(result.rows[i]));
  }
  const auto front = pareto_front(points, plan.spec.weight);
  for (std::size_t e = 0; e < eligible.size(); ++e)
    if (front[e]) result.frontier.push_back(eligible[e]);
  std::sort(result.frontier.begin(), result.frontier.end(), [&](std::size_t a, std::size_t b) {
    const auto &x = result.rows[a], &y = result.rows[b];
    return std::tuple(x.cost.entries_per_token, x.read_entries, -x.score) <
           std::tuple(y.cost.entries_per_token, y.read_entries, -y.score);
  });
  for (auto& row : result.rows) {
    for (const auto f : result.frontier) {
      if (!dominates(point(result.rows[f]), point(row), plan.spec.weight)) continue;
      row.dominated_by = plan.candidates[f].name;
      break;
    }
    row.on_frontier = row.dominated_by.empty() && !row.below_floor;
  }
  return result;
}

}  // namespace phasesim::frontier
