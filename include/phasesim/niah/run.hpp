#pragma once
// One per-phase needle-in-a-haystack experiment (MODEL.md sections 4 and 5): a model of H
// heads, each with its own geometry (window, stride, offset) and gate, in one of two
// parameterizations, where the needles go, how heads combine, and an optional knockout.
// NiahSpec is the one way to build a run from user-level parameters, shared by `niah`,
// `compare`, `gpu-check`, sweeps and the tests.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "phasesim/model/beta.hpp"
#include "phasesim/model/gate.hpp"
#include "phasesim/model/geometry.hpp"
#include "phasesim/niah/architecture.hpp"
#include "phasesim/niah/combine.hpp"
#include "phasesim/niah/needle.hpp"
#include "phasesim/niah/read_path.hpp"

namespace phasesim::niah {

/// The most heads a run or an architecture may have: an engine's head index shares a 32-bit
/// counter word with the stream.
inline constexpr int kMaxHeads = 4096;

/// The retrieval model: one geometry and one gate per head, and the parameterization,
/// either standardized (`beta`) or full-vector (`dim`, with `query_noise`). Heads are
/// independent (each its own keys) whatever layer they sit in, except query heads that share
/// a cache (key_heads); an engine's head index h
/// is the index into these lists.
struct NiahModel {
  std::vector<Geometry> geometries;  ///< one per head: window, stride and offset
  std::vector<Gate> gates;           ///< one per head
  /// One per head: the correlation rho between a token's key in the slots of its entry's own
  /// chunk (slots W - S..W - 1, the newer half-window) and in older slots, which V4 reads from
  /// another half of the projection (MODEL.md section 9). 1: one projection, the default.
  /// The query matches the newer key.
  std::vector<double> split_rhos;
  /// One per head: the head whose cache it reads (MODEL.md section 9: V4's query heads share
  /// one compressed cache per layer). Query heads of one cache have the same keys, content
  /// noise and entries, and their own query noise; itself for a head with its own cache, and
  /// for all heads when empty. A head that holds a cache comes before the heads that read it.
  std::vector<int> key_heads;
  std::int64_t context = 131072;
  std::optional<double> beta = kDefaultBeta;  ///< the standardized channel's beta, or unset
  std::optional<int> dim;                     ///< d of the full-vector model, or unset
  double query_noise = 0;                     ///< sigma_q (full-vector only)
  double content_noise = 0;                   ///< tau
  bool rms_norm = false;
  std::uint64_t seed = 1;
  /// One per head: how it reads its cache (MODEL.md section 10); empty: section 4's argmax
  /// over all entries for every head.
  std::vector<ReadPath> read_paths;
  int needle_tokens = 1;  ///< n: the needle's tokens, p..p+n-1

  int heads() const { return static_cast<int>(gates.size()); }
  bool full_vector() const { return dim.has_value(); }
  const Geometry& geometry(int head) const { return geometries[static_cast<std::size_t>(head)]; }
  /// N_c = floor((L - o) / S) of a head: the entries before the query.
  std::int64_t entries(int head) const { return geometry(head).entries_before(context); }
  /// rho of a head (1 when split_rhos is empty).
  double split_rho(int head) const {
    return split_rhos.empty() ? 1.0 : split_rhos[static_cast<std::size_t>(head)];
  }
  /// The head whose cache `head` reads (itself when key_heads is empty).
  int key_head(int head) const {
    return key_heads.empty() ? head : key_heads[static_cast<std::size_t>(head)];
  }
  /// The head whose outcome `head` repeats in every trial: its cache's first query head when
  /// no query noise tells the query heads apart (they attend alike), itself otherwise.
  int alike_head(int head) const { return head_query_noise(head) > 0 ? head : key_head(head); }
  /// The heads an engine scans: those that are their own alike_head, in order.
  std::vector<int> scanned_heads() const;
  /// True when some other head reads the same cache as `head`.
  bool shares_cache(int head) const;
  /// The largest window of any head (what a workspace for every head needs).
  int max_window() const;
  /// True when all heads share one geometry, as in the one-layer shorthand.
  bool one_geometry() const;
  /// beta of the standardized channel; with --dim its large-d value sqrt(d / (1 + sigma_q^2)).
  double beta_effective() const;
  /// The read path of a head (a default one, section 4's argmax, when read_paths is empty).
  const ReadPath& read_path(int head) const;
  /// True when a head reads as section 4 says (no entry dropped, no window, no sink) a needle
  /// of one token: what every engine computed before the read path, bit for bit.
  bool plain(int head) const { return needle_tokens == 1 && read_path(head).plain(entries(head)); }
  /// True when no head reads beyond section 4.
  bool plain() const;
  /// The gate of a head's selection score: its index gate, or its own gate.
  const Gate& index_gate(int head) const;
  /// The attention's beta of a head: its read path's (its layer's own projections), or
  /// beta_effective().
  double head_beta(int head) const;
  /// sigma_q of a head in the full-vector model: the one that gives its own beta
  /// (sigma^2 = d / beta^2 - 1), or query_noise.
  double head_query_noise(int head) const;
  /// The selection score's beta: the head's index beta, or head_beta(head).
  double index_beta(int head) const;
  /// sigma_q of a head's indexer in the full-vector model: the one that gives its index beta, or
  /// head_query_noise(head).
  double index_query_noise(int head) const;
};

/// Throws InputError (naming the CLI option) unless the model is well formed.
void validate_model(const NiahModel& model);

/// One experiment: the model, where the needles go, how heads combine, and optionally the
/// head to knock out.
struct NiahRun {
  NiahModel model;
  NeedlePlan needles;
  CombineRule combine;
  std::optional<int> knockout;
  std::optional<Architecture> architecture;  ///< its layers, for reports; unset: the shorthand
};

/// Throws InputError unless 0 <= head < heads.
void validate_knockout(int head, int heads);

/// A run as the user states it, every field under its CLI option's name.
struct NiahSpec {
  Geometry geometry;
  std::string gates = "last";  ///< ';'-separated specs or @file.json (gate.hpp)
  /// The gates as numbers instead, one per head (e.g. a trained layer's); when not empty,
  /// `gates` is not read, and `heads`, when given, must match.
  std::vector<Gate> gate_values;
  std::optional<int> heads;  ///< replicates a single gate; must match a list of gates
  /// --arch: every head's geometry and gate; when set, geometry, gates and heads are unused.
  std::optional<Architecture> architecture;
  std::optional<double> beta;  ///< standardized channel; kDefaultBeta when neither beta nor dim
  std::optional<int> dim;      ///< full-vector model
  double query_noise = 0;
  double content_noise = 0;
  bool rms_norm = false;
  double split_rho = 1;  ///< --split-rho, every head's (an architecture gives its own)
  /// --top-k, --index-gates, --index-beta, --index-rho, --sliding-window and --sink: every
  /// head's, where an architecture file does not give its own.
  ReadPathOptions read;
  int needle_tokens = 1;  ///< --needle-tokens
  std::int64_t context = 131072;
  int groups = 8;
  int prompts = 256;
  std::string combine = "any";
  std::optional<int> knockout;
  std::uint64_t seed = 1;
  /// Paired trials (compare): a needle plan made for these heads and others with the same
  /// context, groups and prompts, used instead of this run's own; it must be interior for
  /// these heads too.
  std::optional<NeedlePlan> needles;
};

/// The validated run of a spec. Throws InputError, naming the option, on bad input. The
/// engines layer's prepare() (engines/plan.hpp) calls it, once, for every run an engine runs.
NiahRun make_run(const NiahSpec& spec);

/// What a valid spec cannot show, one sentence each (MODEL.md 2, 5): groups that are not a
/// multiple of the stride mix phases, so the period S cannot show; a window below the
/// stride leaves phases unstored, whose needles are found at chance.
std::vector<std::string> niah_warnings(const NiahSpec& spec);

}  // namespace phasesim::niah
