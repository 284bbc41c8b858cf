#pragma once
// `phasesim frontier` as a library: a designer's question (issue 38). Given the context, the
// needle and a design space of one-layer compressors (compress ratio S, window W = overlap x
// S, gate family, caches per layer, top-k, sliding window), which designs are worth building:
// the Pareto frontier of the cost, KV entries per token and entries read per query, against
// the quality, the worst phase and the mean (or, with a weight, one score between them).
// Every design is an architecture file (its TOML text is what runs, and what the user saves);
// each runs on the analytic engine where it is exact for the design, else on the fast engine
// with the stated trials. The presets (presets/*.toml, whatever the folder holds) run at the
// same context and are marked against the frontier (at most 128 groups; a preset the context
// cannot hold, as MoBA's blocks of 4096 at 8k, is left out with a warning). KV cost and
// entries read count a raw-block cache's raw tokens (NSA's selection, MoBA): 1 + 1/S entries
// per token, and every block score plus k W raw tokens read.
//
//   FrontierSpec spec;                                   // the space and the model's options
//   const auto plan = prepare_frontier(spec, engines, threads);  // checked, bounded
//   const auto result = run_frontier(plan, Parallel{threads});
//   const Json doc = frontier_document(plan, result);
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/engines/engine.hpp"
#include "phasesim/engines/plan.hpp"
#include "phasesim/niah/run.hpp"

namespace phasesim::frontier {

/// The most designs one run evaluates: the space is the product of its lists.
inline constexpr std::int64_t kMaxDesigns = 4096;

/// The lists whose product is the design space; every list has at least one value.
struct DesignSpace {
  std::vector<std::int64_t> ratios = {4, 16, 128};  ///< compress ratios: the stride S
  std::vector<std::int64_t> overlaps = {1, 2};      ///< the window W = overlap x S
  /// uniform, last (onehot on the newest slot), spread (channels one-hot on each phase in
  /// equal shares), or any gate spec of --gates that is valid at every window.
  std::vector<std::string> gates = {"uniform", "last", "spread"};
  std::vector<std::int64_t> heads = {1};       ///< caches per layer, offsets spread over a stride
  std::vector<std::int64_t> top_k = {0, 512};  ///< 0: no selection (every entry)
  std::vector<std::int64_t> sliding_windows = {0, 128};
};

/// One point of the space.
struct Design {
  int stride = 0;
  int window = 0;
  std::string gate;
  int heads = 1;
  std::int64_t top_k = 0;  ///< 0: no selection
  int sliding_window = 0;

  /// "s4-w8-last-h1-k512-sw128": the row's name and its file's stem.
  std::string name() const;
};

/// The designs of a space, in the order of its lists (ratio outermost, sliding window
/// innermost). Expects a space whose size is within kMaxDesigns.
std::vector<Design> designs(const DesignSpace& space);

/// The architecture file of a design: a header of `#` lines (`header`, then what the design
/// is), then one layer of `heads` caches, entry boundaries spread over the stride.
std::string design_toml(const Design& design, const std::vector<std::string>& header = {});

/// The frontier's beta when none is given: where one gate reproduces V4-Flash-Base's published
/// table (presets/v4-csa.toml, [fit] one_gate_beta, from experiments/v4-calibration), so that
/// the defaults ask V4's question at 128k. The model's own default (4.5) leaves every design
/// at 128k near chance.
inline constexpr double kFrontierBeta = 9.5135;

/// The NIAH options of a frontier before the user's: the model's, at kFrontierBeta.
inline niah::NiahSpec frontier_model() {
  niah::NiahSpec model;
  model.beta = kFrontierBeta;
  return model;
}

/// The frontier's question.
struct FrontierSpec {
  DesignSpace space;
  /// beta, context, needle tokens, the read path's index options and sink (every design's
  /// and preset's), prompts (Monte Carlo rows), combine and seed; its geometry, gates, heads,
  /// groups and top-k and sliding window are not used (the space gives them; groups are the
  /// design's stride, a preset's least common stride).
  niah::NiahSpec model = frontier_model();
  std::optional<double> floor;   ///< designs whose worst phase is below it are dropped
  std::optional<double> weight;  ///< quality = weight x mean + (1 - weight) x worst
  bool presets = true;           ///< evaluate presets/*.toml too
};

/// How a row's quality and costs compare: minimize kv and read, maximize the rest.
struct Point {
  double kv = 0;    ///< KV entries per token
  double read = 0;  ///< entries the attention reads per query (the selection's cost)
  double worst = 0;
  double mean = 0;
};

/// True when `a` is at least as good as `b` in every objective and better in one. The
/// objectives are kv, read, worst and mean; with a weight, kv, read and the weighted score.
bool dominates(const Point& a, const Point& b, std::optional<double> weight);

/// Per point, true when no other point dominates it.
std::vector<bool> pareto_front(std::span<const Point> points, std::optional<double> weight);

/// One design or preset, checked: its plan on the engine that computes it.
struct Candidate {
  std::string name;
  bool preset = false;
  std::optional<Design> design;  ///< designs only
  std::string toml;              ///< designs: the architecture file
  engines::NiahPlan plan;
};

/// Every candidate prepared, the whole work bounded.
struct FrontierPlan {
  FrontierSpec spec;
  std::vector<Candidate> candidates;  ///< designs first, then presets
  WorkEstimate estimate;              ///< seconds summed, the largest memory
  std::vector<std::string> warnings;  ///< what the user should read (fast-engine rows)
};

/// Checks the space (every list not empty, each value allowed, at most kMaxDesigns designs),
/// prepares every design on the analytic engine where it can compute it (else the fast one)
/// and every preset likewise, and bounds the sum of their estimates. Throws InputError with
/// one line naming the option at fault.
FrontierPlan prepare_frontier(const FrontierSpec& spec, const engines::EngineRegistry& engines,
                              int threads);

/// A candidate's outcome.
struct Row {
  std::size_t candidate = 0;  ///< its index in FrontierPlan::candidates
  niah::KvCost cost;
  double read_entries = 0;
  niah::NiahSummary summary;
  double worst_std_error = 0;  ///< the worst group's (0 when exact)
  double score = 0;            ///< the weighted quality (the worst phase without a weight)
  bool below_floor = false;
  bool on_frontier = false;  ///< not dominated by any design above the floor
  std::string dominated_by;  ///< the first frontier design that dominates it, if any
};

struct FrontierResult {
  std::vector<Row> rows;  ///< every candidate, in the plan's order
  /// The rows of the frontier, cheapest first (kv, then read, then best quality).
  std::vector<std::size_t> frontier;
};

FrontierResult run_frontier(const FrontierPlan& plan, const Parallel& parallel);

/// The `frontier` document: every parameter and the space, then "rows": the frontier's
/// designs (each with its architecture file's text) and the presets, each marked.
Json frontier_document(const FrontierPlan& plan, const FrontierResult& result);

/// Writes each frontier design's architecture file into `dir` as NAME.toml; returns the paths.
std::vector<std::string> write_frontier_files(const FrontierPlan& plan,
                                              const FrontierResult& result, const std::string& dir);

}  // namespace phasesim::frontier
