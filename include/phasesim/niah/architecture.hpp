#pragma once
// Architectures (MODEL.md sections 2, 3 and 9): a model as layers of heads, each head with
// its own window, stride, offset and gate, read from a TOML file; and the KV cost of a
// model. The one-layer shorthand of `niah` (--window, --stride, --gates, --heads) is the
// architecture of one layer whose heads share one geometry.
//
//   name = "coprime strides"   # optional; the file's stem otherwise
//   [[layer]]                  # one table per layer, in order
//   window = 8                 # a layer's values are its heads' defaults
//   stride = 7
//   gate = "random:1:10"       # a layer's gate is replicated as --heads does
//   heads = 4                  # how many heads take the layer's values, or one table each:
//   [[layer]]
//   window = 8
//   stride = 8
//   gate = "onehot:7"
//   heads = [{ offset = 0 }, { offset = 1 }, { offset = 2, gate = "last" }]
//   [[layer]]                  # a per-channel gate (MODEL.md section 9): channel groups,
//   window = 8                 # each a gate and its share of the channels (shares sum to 1;
//   stride = 4                 # all omitted: equal), instead of gate
//   channels = [{ gate = "onehot:7", share = 0.5 }, { gate = "onehot:3", share = 0.5 }]
//   top_k = 512                # the read path (read_path.hpp, MODEL.md section 10), per layer
//   sliding_window = 128       # or head: top_k, index_gate (or index_channels, as channels),
//                              # index_beta, index_rho, sliding_window, sink; and beta,
//                              # the attention's own (unset: --beta)
//   kind = "CSA"               # a label: coverage and reports count the layers by kind
//   [[layer]]                  # a layer that reads an earlier layer's cache (V4.1, MODEL.md
//   shares = 3                 # section 9): layer 3's heads, cache and read path, computed
//                              # once (its heads are query heads of that cache); only kind
//   [[layer]]                  # a window-only layer (compress ratio 0): the last N tokens raw
//   window_only = true         # and the sink; it has no compressed cache and no head, so
//   sliding_window = 128       # the engines do not run it (docs/MODEL.md, "Layer stacks")
//
// A head has window, stride and gate (from itself or its layer), offset (default 0) and
// split_rho (default 1: the correlation of a token's keys in the newer and the older slots of
// its entries, as V4's split projection, MODEL.md section 9) and query_heads (default 1: a
// cache read by that many query heads, with the same keys and entries and their own query
// noise, as V4's query heads share one compressed cache per layer):
// entry j of the head pools positions j*S + S - W + s + offset. Messages name the file, the
// layer and the head, counting from 1: "invalid a.toml: layer 2, head 3: window 0 (must be
// at least 1)".
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/model/gate.hpp"
#include "phasesim/model/geometry.hpp"
#include "phasesim/niah/read_path.hpp"

namespace phasesim::niah {

/// One head of an architecture.
struct ArchitectureHead {
  int layer = 1;  ///< counting from 1, as messages and tables name it
  int head = 1;   ///< within its layer, counting from 1
  Geometry geometry;
  Gate gate;
  double split_rho = 1;  ///< `split_rho`: run.hpp, NiahModel::split_rhos
  /// `query_heads = K` makes a head one cache read by K query heads (MODEL.md section 9): K
  /// heads here, query_head 1..K, the same compressor; the first holds the cache.
  int query_head = 1;
  int query_heads = 1;
  /// How it reads its cache, as the file gives it (the command line's values fill the rest).
  ReadPathValues read_path;
  /// A head of a layer with `shares = N`: the index of the head of layer N that holds the
  /// cache it reads; -1 for a head of a layer with its own cache.
  int cache_head = -1;

  /// True for the head that holds its cache (the first of its query heads, in a layer with its
  /// own cache): what describes a compressor once, not once a query head.
  bool holds_cache() const { return query_head == 1 && cache_head < 0; }
};

/// What a layer of a stack is, beyond its heads: its kind and how it gets its cache.
struct ArchitectureLayer {
  std::string kind;                 ///< `kind`, or "window-only", "shared" or "compressed"
  bool labelled = false;            ///< true when the file gives `kind`
  int shares = 0;                   ///< `shares = N`: it reads layer N's cache; 0: its own
  bool window_only = false;         ///< `window_only = true`: no compressed cache, no head
  std::int64_t sliding_window = 0;  ///< a window-only layer's window
  std::optional<double> sink;       ///< a window-only layer's sink
};

/// The `[fit]` table of an architecture file: the published table the architecture was
/// fitted to, at which beta, and the same table from one gate with a learned bias (what the
/// theorems' one-gate model and the teaching page use). Reports do not show it; it says how to
/// use the architecture.
struct ArchitectureFit {
  std::string table;         ///< the published table and the experiment that fits it
  double beta = 0;           ///< this architecture's beta for the table
  std::string one_gate;      ///< the one-gate fit's gate: logits:b_0,...
  double one_gate_beta = 0;  ///< and its beta
};

struct Architecture {
  std::string name;         ///< `name` in the file, or the file's stem
  std::string file;         ///< the file (or preset) it was read from
  std::string description;  ///< `description` in the file
  int layers = 0;
  std::vector<ArchitectureHead> heads;   ///< layer by layer; the engines' head index
  std::vector<ArchitectureLayer> stack;  ///< one per layer
  std::optional<ArchitectureFit> fit;    ///< `[fit]`, when the file has one

  std::vector<Geometry> geometries() const;
  std::vector<Gate> gates() const;
  /// Per head, the index of the head that holds its cache (itself, or the first query head of
  /// its cache): run.hpp, NiahModel::key_heads.
  std::vector<int> key_heads() const;
  /// Per head, the read path the file gives it (the defaults where it is silent).
  std::vector<ReadPath> read_paths() const;
  /// True when some layer has a kind, shares a cache or is window-only: a stack whose
  /// documents list its layers by kind.
  bool stacked() const;
};

/// Parses the TOML text of an architecture; `file` names it in messages. Throws InputError
/// with a one-line message naming the file, and the layer and head where one is at fault.
Architecture parse_architecture(std::string_view toml, const std::string& file);

/// The TOML text of `arch` that parse_architecture reads back to the same heads (geometry, gate
/// weights, split_rho, query_heads, read path): `comments` first as # lines, then `layer_notes[i]`
/// (where given) as # lines that open layer i + 1. A gate is written as its spec, a per-channel
/// gate as its channel groups' specs and shares, so gates must come from specs (parse_gate);
/// and its [fit] where it has one.
std::string architecture_toml(const Architecture& arch, const std::vector<std::string>& comments,
                              const std::vector<std::vector<std::string>>& layer_notes);

/// Reads an architecture file; when no file `path` exists and `path` names a preset (the
/// files of presets/, compiled in), that preset. Throws InputError naming --arch otherwise.
Architecture load_architecture(const std::string& path);

/// The names of the presets (presets/*.toml without the extension), sorted.
std::vector<std::string> architecture_presets();

/// KV cost of a model: the entries its caches store per token of context, summed over caches
/// (1/S each; query heads that share a cache count once), against full attention's one entry
/// per token and cache.
struct KvCost {
  double entries_per_token = 0;
  int heads = 0;
  double full_attention() const { return heads; }
  double relative() const { return entries_per_token / heads; }
};

/// `key_heads` as NiahModel::key_heads: a head counts when it holds its cache (empty: all do).
/// A cache read as raw blocks (`read_paths`, as NiahModel::read_paths; empty: none) keeps every
/// raw token besides its block keys: 1 + 1/S entries per token.
KvCost kv_cost(std::span<const Geometry> geometries, std::span<const int> key_heads = {},
               std::span<const ReadPath> read_paths = {});

/// {"name", "file", "layers", "heads": [{"layer", "head", "window", "stride", "offset",
/// "gate", and "split_rho", "channels", "query_head" and "query_heads" where they apply}, ...]},
/// and for a stack "layers_by_kind" and "window_only_layers": what a report says of the
/// architecture it ran.
Json architecture_json(const Architecture& arch);

/// The layers by kind, in the order kinds first appear: [{"kind", "count", "layers": [1, ...]}].
Json layers_by_kind_json(const Architecture& arch);

/// {"entries_per_token", "full_attention_entries_per_token", "relative_to_full_attention"}.
Json kv_cost_json(const KvCost& cost);

/// The time and memory of the `coverage --arch` document of `architecture` (coverage_work of
/// every head).
WorkEstimate architecture_coverage_work(const Architecture& architecture);

/// Throws InputError when the `coverage --arch ARCH` document of `architecture` (every head's
/// slots and phases: model/coverage.hpp, coverage_work) is beyond core/budget.hpp's limits.
void check_coverage_work(const std::string& arch, const Architecture& architecture);

/// The `coverage --arch ARCH` document: `arch` as the user named it, the architecture with
/// each cache's gate_weights and phases (model/coverage.hpp) on its first query head (the
/// others read the same entries through the same gate; a cache with an earlier one's geometry
/// and coverage gives that head's index as coverage_as instead), and its KV cost.
Json architecture_coverage_document(const std::string& arch, const Architecture& architecture);

}  // namespace phasesim::niah
