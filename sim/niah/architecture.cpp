#include "phasesim/niah/architecture.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "phasesim/core/error.hpp"
#include "phasesim/core/files.hpp"
#include "phasesim/model/coverage.hpp"
#include "phasesim/niah/run.hpp"
#include "presets.hpp"

namespace phasesim::niah {
namespace {

constexpr std::int64_t kMaxSize = 1 << 24;  // window and stride: ints with room to spare
// Gate slots over all heads (the sum of their windows), however heads and windows combine:
// 2^26 slots hold 512 MiB of gate weights, and coverage --arch lists each slot in 64 bytes,
// 4 GiB (the limit of core/budget.hpp). Four heads at the largest window fit.
constexpr std::int64_t kMaxSlots = std::int64_t{1} << 26;

// Where a message points: the file, a layer of it, a head of that layer (0: none).
struct Where {
  std::string file;
  int layer = 0;
  int head = 0;

  std::string text() const {
    std::string where = file;
    if (layer > 0) where += ": layer " + std::to_string(layer);
    if (head > 0) where += ", head " + std::to_string(head);
    return where;
  }
};

[[noreturn]] void fail(const Where& where, const std::string& what) {
  throw InputError("invalid " + where.text() + ": " + what);
}

// What a head takes from its own table or, where that is silent, its layer's.
struct HeadValues {
  std::optional<std::int64_t> window, stride, offset;
  std::optional<std::string> gate;
  std::optional<double> split_rho;
  std::optional<std::int64_t> query_heads;
  std::optional<std::string> index_gate;  ///< parsed with the head's window
  ReadPathValues read;                    ///< the rest of the read path
};

// The keys a layer's or a head's table may have.
const std::vector<std::string> kHeadKeys = {
    "window",         "stride", "offset",     "gate",           "channels",   "split_rho",
    "query_heads",    "top_k",  "index_gate", "index_channels", "index_beta", "index_rho",
    "sliding_window", "sink",   "beta",       "raw_blocks"};

void check_keys(const toml::table& table, const std::vector<std::string>& allowed,
                const Where& where) {
  for (auto&& [key, node] : table) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
    std::string list;
    for (const auto& name : allowed) list += (list.empty() ? "" : ", ") + name;
    fail(where, "unknown key '" + std::string(key.str()) + "' (allowed: " + list + ")");
  }
}

std::optional<std::int64_t> integer(const toml::table& table, const char* key, const Where& where) {
  const auto* node = table.get(key);
  if (!node) return std::nullopt;
  if (!node->is_integer()) fail(where, std::string(key) + " must be an integer");
  return node->value<std::int64_t>();
}

std::optional<std::string> text(const toml::table& table, const char* key, const Where& where) {
  const auto* node = table.get(key);
  if (!node) return std::nullopt;
  if (!node->is_string()) fail(where, std::string(key) + " must be a string");
  return node->value<std::string>();
}

// One channel group of `channels = [...]`: a gate spec, or { gate = SPEC, share = x }.
std::string channel_group(const toml::node& node, const Where& where) {
  if (node.is_string()) return *node.value<std::string>();
  const auto* table = node.as_table();
  if (!table) fail(where, "a channel group must be a gate spec or { gate = SPEC, share = x }");
  check_keys(*table, {"gate", "share"}, where);
  const auto gate = text(*table, "gate", where);
  if (!gate)
    fail(where, "a channel group needs its gate, e.g. { gate = \"onehot:7\", share = 0.5 }");
  const auto* share = table->get("share");
  if (!share) return *gate;
  if (!share->is_number()) fail(where, "a channel group's share must be a number");
  return *gate + "=" + format_number(*share->value<double>());
}

// The gate of a table: `gate = SPEC`, or `channels = [...]` as the spec channels:...|...
// (index_gate and index_channels for the selection score's gate).
std::optional<std::string> gate_spec(const toml::table& table, const Where& where,
                                     const std::string& gate_key = "gate",
                                     const std::string& channels_key = "channels") {
  auto gate = text(table, gate_key.c_str(), where);
  const auto* node = table.get(channels_key);
  if (!node) return gate;
  if (gate) fail(where, "give " + gate_key + " or " + channels_key + ", not both");
  const auto* list = node->as_array();
  if (!list || list->empty()) {
    fail(where,
         channels_key + " must be a list of channel groups, e.g. " + channels_key +
             " = [{ gate = " +
             std::string("\"onehot:7\", share = 0.5 }, { gate = \"onehot:3\", share = 0.5 }]"));
  }
  std::vector<std::string> groups;
  for (const auto& group : *list) groups.push_back(channel_group(group, where));
  return channels_spec(groups);
}

std::optional<double> split_rho(const toml::table& table, const Where& where) {
  const auto* node = table.get("split_rho");
  if (!node) return std::nullopt;
  const auto rho = node->value<double>();
  if (!node->is_number() || !rho) fail(where, "split_rho must be a number");
  if (!(*rho >= 0 && *rho <= 1)) {
    fail(where, "split_rho " + format_number(*rho) +
                    " (the correlation of a token's two keys must be in [0, 1])");
  }
  return rho;
}

std::optional<double> number(const toml::table& table, const char* key, const Where& where) {
  const auto* node = table.get(key);
  if (!node) return std::nullopt;
  const auto value = node->value<double>();
  if (!node->is_number() || !value || !std::isfinite(*value))
    fail(where, std::string(key) + " must be a number");
  return value;
}

// `[fit]`: table, beta, one_gate and one_gate_beta, all of them.
ArchitectureFit read_fit(const toml::node& node, const Where& where) {
  const auto* table = node.as_table();
  if (!table) fail(where, "fit must be a table ([fit])");
  check_keys(*table, {"table", "beta", "one_gate", "one_gate_beta"}, where);
  const auto needed = [&](const auto& value, const char* key) {
    if (!value) fail(where, std::string("[fit] needs ") + key);
    return *value;
  };
  return {needed(text(*table, "table", where), "table"),
          needed(number(*table, "beta", where), "beta"),
          needed(text(*table, "one_gate", where), "one_gate"),
          needed(number(*table, "one_gate_beta", where), "one_gate_beta")};
}

bool flag(const toml::table& table, const char* key, const Where& where) {
  const auto* node = table.get(key);
  if (!node) return false;
  if (!node->is_boolean()) fail(where, std::string(key) + " must be true or false");
  return *node->value<bool>();
}

HeadValues read_values(const toml::table& table, const Where& where) {
  ReadPathValues read;
  read.top_k = integer(table, "top_k", where);
  read.index_beta = number(table, "index_beta", where);
  read.index_rho = number(table, "index_rho", where);
  read.sliding_window = integer(table, "sliding_window", where);
  read.sink = number(table, "sink", where);
  read.beta = number(table, "beta", where);
  if (table.get("raw_blocks")) read.raw_blocks = flag(table, "raw_blocks", where);
  validate_read_path(read, where.text() + ": ");
  return {integer(table, "window", where),
          integer(table, "stride", where),
          integer(table, "offset", where),
          gate_spec(table, where),
          split_rho(table, where),
          integer(table, "query_heads", where),
          gate_spec(table, where, "index_gate", "index_channels"),
          read};
}

int size_of(const std::optional<std::int64_t>& value, const char* key, const Where& where) {
  if (!value)
    fail(where, std::string("no ") + key + " (give " + key + " in the layer or the head)");
  if (*value < 1 || *value > kMaxSize) {
    fail(where, std::string(key) + " " + std::to_string(*value) + " (must be " +
                    (*value < 1 ? "at least 1)" : "at most " + std::to_string(kMaxSize) + ")"));
  }
  return static_cast<int>(*value);
}

// The head's gate: its own spec as written, or its layer's replicated for the head's index
// in the layer (random:SEED gets SEED + index), as --heads replicates --gates.
Gate head_gate(const std::optional<std::string>& own, const std::optional<std::string>& layer,
               int window, int index, const Where& where) {
  if (!own && !layer) fail(where, "no gate (give gate or channels in the layer or the head)");
  try {
    return own ? parse_gate(*own, window) : replicate_gate(parse_gate(*layer, window), index);
  } catch (const InputError& e) {
    const std::string what = e.what();
    fail(where, what.starts_with("invalid ") ? what.substr(8) : what);
  }
}

// The weight vectors a gate spec holds: one, or one per channel group (and their mean).
std::int64_t gate_groups(const std::optional<std::string>& spec) {
  if (!spec || !spec->starts_with("channels:")) return 1;
  return 2 + std::count(spec->begin(), spec->end(), '|');
}

Geometry head_geometry(const HeadValues& own, const HeadValues& layer, const Where& where) {
  Geometry g;
  g.window = size_of(own.window ? own.window : layer.window, "window", where);
  g.stride = size_of(own.stride ? own.stride : layer.stride, "stride", where);
  const auto offset = own.offset.value_or(layer.offset.value_or(0));
  if (offset < 0 || offset >= g.stride) {
    fail(where, "offset " + std::to_string(offset) + " (must be in [0, " +
                    std::to_string(g.stride) + "), below the stride)");
  }
  g.offset = static_cast<int>(offset);
  return g;
}

// How many query heads read the head's cache: its own query_heads, its layer's, or 1.
int query_heads_of(const HeadValues& own, const HeadValues& layer, const Where& where) {
  const auto count = own.query_heads ? own.query_heads : layer.query_heads;
  if (count && (*count < 1 || *count > kMaxHeads)) {
    fail(where, "query_heads " + std::to_string(*count) + " (must be in [1, " +
                    std::to_string(kMaxHeads) + "])");
  }
  return static_cast<int>(count.value_or(1));
}

// The head tables of a layer: `heads` is a count of heads with the layer's values, or a list
// of tables, one per head; absent, the layer has one head.
std::vector<HeadValues> layer_heads(const toml::table& layer, const Where& where) {
  const auto* node = layer.get("heads");
  if (!node) return {HeadValues{}};
  if (node->is_integer()) {
    const auto count = *node->value<std::int64_t>();
    if (count < 1 || count > kMaxHeads) {
      fail(where, "heads " + std::to_string(count) + " (must be in [1, " +
                      std::to_string(kMaxHeads) + "])");
    }
    return std::vector<HeadValues>(static_cast<std::size_t>(count));
  }
  const auto* list = node->as_array();
  if (!list || list->empty()) {
    fail(where, "heads must be a count or a list of head tables, e.g. heads = [{ offset = 1 }]");
  }
  std::vector<HeadValues> heads;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const Where at{where.file, where.layer, static_cast<int>(i) + 1};
    const auto* table = list->get(i)->as_table();
    if (!table) fail(at, "must be a table of head values, e.g. { offset = 1 }");
    check_keys(*table, kHeadKeys, at);
    heads.push_back(read_values(*table, at));
  }
  return heads;
}

// `window_only = true`: the layer's sliding window and sink, and no head.
ArchitectureLayer window_only_layer(const toml::table& layer, const Where& where) {
  check_keys(layer, {"kind", "window_only", "sliding_window", "sink"}, where);
  ArchitectureLayer info;
  info.kind = "window-only";
  info.window_only = true;
  const auto window = integer(layer, "sliding_window", where);
  if (!window || *window < 1 || *window > kMaxSize) {
    fail(where,
         "a window-only layer needs sliding_window in [1, " + std::to_string(kMaxSize) + "]");
  }
  info.sliding_window = *window;
  info.sink = number(layer, "sink", where);
  return info;
}

// `shares = N`: copies of layer N's heads, each reading the cache its original reads (their
// key head), so the engines compute them once with it (NiahModel::key_heads).
ArchitectureLayer shared_layer(const toml::table& layer, const Where& where, Architecture& arch,
                               std::int64_t& slots) {
  check_keys(layer, {"kind", "shares"}, where);
  const auto source = *integer(layer, "shares", where);
  if (source < 1 || source >= where.layer) {
    fail(where, "shares " + std::to_string(source) + " (must name an earlier layer, 1 to " +
                    std::to_string(where.layer - 1) + ")");
  }
  if (arch.stack[static_cast<std::size_t>(source - 1)].window_only) {
    fail(where, "shares " + std::to_string(source) + " (layer " + std::to_string(source) +
                    " is window-only: it has no cache)");
  }
  const auto keys = arch.key_heads();
  const auto count = arch.heads.size();
  for (std::size_t h = 0; h < count; ++h) {
    if (arch.heads[h].layer != source) continue;
    auto copy = arch.heads[h];
    copy.layer = where.layer;
    copy.cache_head = keys[h];
    slots += copy.geometry.window;
    arch.heads.push_back(std::move(copy));
  }
  if (slots > kMaxSlots)
    fail(where, "too large: more than " + std::to_string(kMaxSlots) + " gate slots");
  ArchitectureLayer info;
  info.kind = "shared";
  info.shares = static_cast<int>(source);
  return info;
}

void read_heads(const toml::table& layer, const Where& where, Architecture& arch,
                std::int64_t& slots);

void read_layer(const toml::table& layer, const Where& where, Architecture& arch,
                std::int64_t& slots) {
  const auto kind = text(layer, "kind", where);
  ArchitectureLayer info;
  info.kind = "compressed";
  if (flag(layer, "window_only", where)) {
    info = window_only_layer(layer, where);
  } else if (layer.get("shares")) {
    info = shared_layer(layer, where, arch, slots);
  } else {
    read_heads(layer, where, arch, slots);
  }
  if (kind) info.kind = *kind;
  info.labelled = kind.has_value();
  arch.stack.push_back(info);
}

void read_heads(const toml::table& layer, const Where& where, Architecture& arch,
                std::int64_t& slots) {
  auto keys = kHeadKeys;
  keys.insert(keys.end(), {"heads", "kind", "window_only", "shares"});
  check_keys(layer, keys, where);
  const auto values = read_values(layer, where);
  const auto heads = layer_heads(layer, where);
  const auto at = [&](std::size_t i) {
    return Where{where.file, where.layer, static_cast<int>(i) + 1};
  };
  // `slots` counts the gate slots of the heads so far: bounded before the layer's gates,
  // which hold a weight per slot, exist.
  std::vector<Geometry> geometries;
  std::vector<int> query_heads;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    geometries.push_back(head_geometry(heads[i], values, at(i)));
    query_heads.push_back(query_heads_of(heads[i], values, at(i)));
    slots += geometries.back().window * query_heads.back() *
             gate_groups(heads[i].gate ? heads[i].gate : values.gate);
    if (slots > kMaxSlots) {
      fail(at(i), "too large: the windows of the heads up to this one sum to " +
                      std::to_string(slots) + " gate slots (at most " + std::to_string(kMaxSlots) +
                      " in all, to stay within 4 GiB)");
    }
  }
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const auto& g = geometries[i];
    const auto gate = head_gate(heads[i].gate, values.gate, g.window, static_cast<int>(i), at(i));
    const double rho = heads[i].split_rho.value_or(values.split_rho.value_or(1.0));
    auto read = heads[i].read.over(values.read);
    if (heads[i].index_gate || values.index_gate) {
      read.index_gate =
          head_gate(heads[i].index_gate, values.index_gate, g.window, static_cast<int>(i), at(i));
    }
    for (int q = 1; q <= query_heads[i]; ++q) {
      arch.heads.push_back(
          {where.layer, static_cast<int>(i) + 1, g, gate, rho, q, query_heads[i], read});
    }
  }
}

toml::table parse_toml(std::string_view toml, const std::string& file) {
  try {
    return toml::parse(toml, file);
  } catch (const toml::parse_error& e) {
    fail({file},
         "line " + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
}

}  // namespace

std::vector<Geometry> Architecture::geometries() const {
  std::vector<Geometry> list;
  for (const auto& h : heads) list.push_back(h.geometry);
  return list;
}

std::vector<int> Architecture::key_heads() const {
  std::vector<int> list;
  for (std::size_t h = 0; h < heads.size(); ++h) {
    const auto& head = heads[h];
    list.push_back(head.cache_head >= 0 ? head.cache_head
                                        : static_cast<int>(h) - (head.query_head - 1));
  }
  return list;
}

std::vector<ReadPath> Architecture::read_paths() const {
  std::vector<ReadPath> list;
  for (const auto& head : heads) list.push_back(head.read_path.resolve());
  return list;
}

bool Architecture::stacked() const {
  return std::any_of(stack.begin(), stack.end(), [](const ArchitectureLayer& layer) {
    return layer.labelled || layer.shares > 0 || layer.window_only;
  });
}

Json layers_by_kind_json(const Architecture& arch) {
  Json kinds = Json::array();
  for (std::size_t i = 0; i < arch.stack.size(); ++i) {
    const auto& kind = arch.stack[i].kind;
    auto it =
        std::find_if(kinds.begin(), kinds.end(), [&](const Json& k) { return k["kind"] == kind; });
    if (it == kinds.end()) {
      kinds.push_back({{"kind", kind}, {"count", 0}, {"layers", Json::array()}});
      it = kinds.end() - 1;
    }
    (*it)["count"] = (*it)["count"].get<int>() + 1;
    (*it)["layers"].push_back(static_cast<int>(i) + 1);
  }
  return kinds;
}

std::vector<Gate> Architecture::gates() const {
  std::vector<Gate> list;
  for (const auto& h : heads) list.push_back(h.gate);
  return list;
}

Architecture parse_architecture(std::string_view toml, const std::string& file) {
  const auto table = parse_toml(toml, file);
  const Where where{file};
  check_keys(table, {"name", "description", "layer", "fit"}, where);
  Architecture arch;
  arch.description = text(table, "description", where).value_or("");
  if (const auto* fit = table.get("fit")) arch.fit = read_fit(*fit, where);
  arch.file = file;
  arch.name = text(table, "name", where).value_or(std::filesystem::path(file).stem().string());
  const auto* layers = table.get("layer");
  if (!layers || !layers->is_array_of_tables() || layers->as_array()->empty()) {
    fail(where, "no layers (give one [[layer]] table per layer)");
  }
  std::int64_t slots = 0;
  for (const auto& layer : *layers->as_array()) {
    read_layer(*layer.as_table(), {file, ++arch.layers}, arch, slots);
  }
  if (arch.heads.empty()) fail(where, "no layer with a cache (every layer is window-only)");
  if (arch.heads.size() > static_cast<std::size_t>(kMaxHeads)) {
    fail(where, std::to_string(arch.heads.size()) + " heads (must be at most " +
                    std::to_string(kMaxHeads) + ")");
  }
  return arch;
}

Architecture load_architecture(const std::string& path) {
  std::error_code missing;
  if (std::filesystem::exists(path, missing)) {
    return parse_architecture(read_input_file(path, "--arch"), path);
  }
  for (const auto& preset : builtin_presets()) {
    if (preset.name == path) return parse_architecture(preset.text, std::string(preset.file));
  }
  // Not there for another reason than absence (a name too long, a folder that may not be
  // searched): the reader says which.
  if (missing && missing != std::errc::no_such_file_or_directory) read_input_file(path, "--arch");
  std::string names;
  for (const auto& name : architecture_presets()) names += (names.empty() ? "" : ", ") + name;
  throw InputError("invalid --arch " + path +
                   " (no such file, and no preset of that name: " + names + ")");
}

std::vector<std::string> architecture_presets() {
  std::vector<std::string> names;
  for (const auto& preset : builtin_presets()) names.emplace_back(preset.name);
  std::sort(names.begin(), names.end());
  return names;
}

Json architecture_json(const Architecture& arch) {
  Json heads = Json::array();
  for (const auto& h : arch.heads) {
    heads.push_back({{"layer", h.layer},
                     {"head", h.head},
                     {"window", h.geometry.window},
                     {"stride", h.geometry.stride},
                     {"offset", h.geometry.offset},
                     {"gate", h.gate.spec}});
    if (h.gate.per_channel()) heads.back()["channels"] = channel_groups_json(h.gate);
    if (h.split_rho != 1) heads.back()["split_rho"] = h.split_rho;
    if (h.cache_head >= 0) {
      heads.back()["reads_cache_of_layer"] =
          arch.heads[static_cast<std::size_t>(h.cache_head)].layer;
    }
    if (h.query_heads > 1) {
      heads.back()["query_head"] = h.query_head;
      heads.back()["query_heads"] = h.query_heads;
    }
    // The read path as the file gives it, where it gives one (the run's document has each
    // head's resolved read path).
    if (!h.read_path.empty()) heads.back()["read_path"] = read_path_json(h.read_path.resolve());
  }
  Json doc{{"name", arch.name}, {"file", arch.file}, {"layers", arch.layers}, {"heads", heads}};
  if (!arch.stacked()) return doc;
  doc["layers_by_kind"] = layers_by_kind_json(arch);
  Json window_only = Json::array();
  for (std::size_t i = 0; i < arch.stack.size(); ++i) {
    const auto& layer = arch.stack[i];
    if (!layer.window_only) continue;
    window_only.push_back({{"layer", static_cast<int>(i) + 1},
                           {"sliding_window", layer.sliding_window},
                           {"sink", layer.sink ? Json(*layer.sink) : Json()}});
  }
  if (!window_only.empty()) doc["window_only_layers"] = window_only;
  return doc;
}

Json kv_cost_json(const KvCost& cost) {
  return {{"entries_per_token", cost.entries_per_token},
          {"full_attention_entries_per_token", cost.full_attention()},
          {"relative_to_full_attention", cost.relative()}};
}

WorkEstimate architecture_coverage_work(const Architecture& architecture) {
  WorkEstimate work;
  for (const auto& head : architecture.heads) {
    if (head.holds_cache()) work += coverage_work(head.geometry);
  }
  return work;
}

void check_coverage_work(const std::string& arch, const Architecture& architecture) {
  const auto heads = architecture.heads.size();
  check_work("--arch " + arch + " (" + std::to_string(heads) + (heads == 1 ? " head)" : " heads)"),
             architecture_coverage_work(architecture), 1);
}

Json architecture_coverage_document(const std::string& arch, const Architecture& architecture) {
  auto doc = new_document("coverage");
  doc["arch"] = arch;
  doc["architecture"] = architecture_json(architecture);
  doc["kv_cost"] = kv_cost_json(
      kv_cost(architecture.geometries(), architecture.key_heads(), architecture.read_paths()));
  std::vector<std::size_t> shown;  // the caches whose coverage the document carries
  for (std::size_t h = 0; h < architecture.heads.size(); ++h) {
    const auto& head = architecture.heads[h];
    // A cache's other query heads read its entries through the same gate (v4-hca's 64
    // copies made the document 2.6 MB).
    if (!head.holds_cache()) continue;
    Json coverage = {{"gate_weights", head.gate.weights},
                     {"phases", phase_coverage_json(phase_coverage(head.geometry, head.gate))}};
    if (head.read_path.index_gate) {
      add_index_coverage(coverage, head.geometry, *head.read_path.index_gate);
    }
    auto& json = doc["architecture"]["heads"][h];
    // A cache with an earlier one's geometry and coverage names it instead (MoBA's 232 alike
    // caches of 4096 phases made the document 317 MB).
    const auto alike = std::find_if(shown.begin(), shown.end(), [&](std::size_t e) {
      const auto& earlier = doc["architecture"]["heads"][e];
      return earlier["window"] == json["window"] && earlier["stride"] == json["stride"] &&
             earlier["offset"] == json["offset"] && earlier["phases"] == coverage["phases"] &&
             earlier["gate_weights"] == coverage["gate_weights"] &&
             earlier.value("index_phases", Json()) == coverage.value("index_phases", Json());
    });
    if (alike != shown.end()) {
      json["coverage_as"] = *alike;
      continue;
    }
    json.update(coverage);
    shown.push_back(h);
  }
  return doc;
}

KvCost kv_cost(std::span<const Geometry> geometries, std::span<const int> key_heads,
               std::span<const ReadPath> read_paths) {
  KvCost cost;
  for (std::size_t h = 0; h < geometries.size(); ++h) {
    if (!key_heads.empty() && key_heads[h] != static_cast<int>(h)) continue;
    const bool raw = !read_paths.empty() && read_paths[h].raw_blocks;
    cost.entries_per_token += 1.0 / geometries[h].stride + (raw ? 1.0 : 0.0);
    ++cost.heads;
  }
  return cost;
}

}  // namespace phasesim::niah
