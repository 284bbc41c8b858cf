#include "phasesim/sweep/sweep.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "phasesim/core/error.hpp"
#include "phasesim/core/files.hpp"

namespace phasesim::sweep {
namespace {

std::string option_name(std::string_view key) {
  std::string name(key);
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

// The command-line text of one TOML value; a list inside the axis' list is one value whose
// items are joined by kItemSeparator (no deeper lists).
std::string value_text(const toml::node& node, const std::string& where, bool inner = false) {
  const auto bad = [&](const std::string& why) {
    throw InputError("invalid sweep file: " + where + " (" + why + ")");
  };
  if (auto v = node.value<std::string>(); v && node.is_string()) {
    if (v->find(kItemSeparator) != std::string::npos) bad("a value holds the byte 0x1f");
    return *v;
  }
  if (node.is_integer()) return std::to_string(*node.value<std::int64_t>());
  if (node.is_floating_point()) return format_number(*node.value<double>());
  if (node.is_boolean()) return *node.value<bool>() ? "true" : "false";
  const auto* list = node.as_array();
  if (!list || inner) {
    bad("values must be strings, numbers or booleans, a list of those, or a list of lists for "
        "an option that takes several values");
  }
  if (list->empty()) bad("a list inside the list needs at least one value");
  std::string items;
  for (const auto& item : *list)
    items += (items.empty() ? "" : std::string(1, kItemSeparator)) + value_text(item, where, true);
  return items;
}

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// FNV-1a over the cell's options, then a SplitMix64 finalizer mixed with the sweep seed.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t fingerprint(const std::vector<std::pair<std::string, std::string>>& options) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const auto& [name, value] : options) {
    for (char c : name + "=" + value + "\n") {
      hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    }
  }
  return hash;
}

std::string hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

// A value as a message shows it: "4", or a list's items "v4-csa,nsa".
std::string item_text(const std::string& value) {
  auto text = value;
  std::replace(text.begin(), text.end(), kItemSeparator, ',');
  return text;
}

SweepAxis read_axis(const std::string& key, const toml::node& node, const std::string& file) {
  const auto where = "option '" + key + "' in " + file;
  SweepAxis axis{option_name(key), {}};
  if (const auto* list = node.as_array()) {
    require(!list->empty(), "invalid sweep file: " + where + " (a list needs at least one value)");
    for (const auto& item : *list) {
      auto value = value_text(item, where);
      // Two cells of one ID would run twice and repeat their rows in results.csv.
      require(std::find(axis.values.begin(), axis.values.end(), value) == axis.values.end(),
              "invalid sweep file: " + where + " (lists " + item_text(value) +
                  " twice: each value once, since each makes its own cells)");
      axis.values.push_back(std::move(value));
    }
  } else {
    axis.values.push_back(value_text(node, where));
  }
  return axis;
}

}  // namespace

std::vector<std::string> value_items(const std::string& value) {
  return split_text(value, kItemSeparator);
}

SweepSpec read_sweep_file(const std::filesystem::path& path) {
  const auto file = path.string();
  toml::table table;
  try {
    table = toml::parse(read_input_file(path, "sweep file"), file);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw InputError("invalid sweep file " + file + " (line " + std::to_string(at.line) + ": " +
                     std::string(e.description()) + ")");
  }
  SweepSpec spec;
  const auto command = table["command"].value<std::string>();
  require(command && !command->empty(),
          "invalid sweep file " + file + " (needs command = \"NAME\", e.g. command = \"niah\")");
  spec.command = split_words(*command);
  if (const auto* seed = table.get("seed")) {
    const auto value = seed->value<std::int64_t>();
    require(seed->is_integer() && *value >= 0,
            "invalid sweep file " + file + " (seed must be an integer >= 0)");
    spec.seed = static_cast<std::uint64_t>(*value);
  }
  for (auto&& [key, node] : table) {
    require(key == "command" || key == "seed" || key == "options",
            "invalid sweep file " + file + " (unknown key '" + std::string(key.str()) +
                "'; allowed: command, seed, [options])");
  }
  if (const auto* options = table["options"].as_table()) {
    for (auto&& [key, node] : *options)
      spec.options.push_back(read_axis(std::string(key.str()), node, file));
  }
  std::size_t cells = 1;
  for (const auto& axis : spec.options) {
    require(axis.name != "json", "invalid sweep file " + file +
                                     " (option 'json' is the sweep's own: each cell writes "
                                     "cells/ID.json; remove it)");
    require(axis.name != "threads",
            "invalid sweep file " + file +
                " (option 'threads' cannot be swept: results do not depend on it; sweep "
                "--threads sets how many cells run at once)");
    cells = std::min(cells * axis.values.size(), kMaxSweepCells + 1);
  }
  require(cells <= kMaxSweepCells,
          "invalid sweep file " + file + " (more than " + std::to_string(kMaxSweepCells) +
              " cells, the limit of one sweep: split the grid into several sweeps)");
  std::sort(spec.options.begin(), spec.options.end(),
            [](const SweepAxis& a, const SweepAxis& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < spec.options.size(); ++i) {
    require(spec.options[i].name != spec.options[i - 1].name,
            "invalid sweep file " + file + " (option '" + spec.options[i].name +
                "' is given twice, with '-' and with '_')");
  }
  return spec;
}

std::vector<SweepCell> expand_grid(const SweepSpec& spec) {
  std::vector<SweepCell> cells;
  std::vector<std::size_t> index(spec.options.size(), 0);
  while (true) {
    SweepCell cell;
    for (std::size_t a = 0; a < spec.options.size(); ++a) {
      cell.options.emplace_back(spec.options[a].name, spec.options[a].values[index[a]]);
    }
    const auto hash = fingerprint(cell.options);
    cell.id = hex(hash);
    cell.seed = mix(spec.seed ^ mix(hash)) >> 1;  // 63 bits: fits any signed seed option
    cells.push_back(std::move(cell));
    // Odometer: advance the last axis, carrying into earlier ones.
    std::size_t a = spec.options.size();
    while (a > 0 && ++index[a - 1] == spec.options[a - 1].values.size()) index[--a] = 0;
    if (a == 0) return cells;
  }
}

}  // namespace phasesim::sweep
