#include "phasesim/sweep/run.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>

#include "phasesim/core/error.hpp"
#include "phasesim/core/files.hpp"
#include "phasesim/core/job.hpp"
#include "phasesim/sweep/results_csv.hpp"

namespace phasesim::sweep {
namespace {

namespace fs = std::filesystem;

fs::path cell_path(const fs::path& dir, const SweepCell& cell) {
  return dir / "cells" / (cell.id + ".json");
}

std::string words_text(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

std::string describe(const SweepCell& cell) {
  std::string text;
  for (const auto& [name, value] : cell.options)
    text += (text.empty() ? "" : " ") + name + "=" + value;
  return "{" + text + "}";
}

Json manifest(const SweepSpec& spec, const std::vector<SweepCell>& cells, bool seeded) {
  Json doc = new_document("sweep");
  doc["sweep_command"] = spec.command;
  doc["seed"] = spec.seed;
  Json options = Json::object();
  for (const auto& axis : spec.options) options[axis.name] = axis.values;
  doc["options"] = options;
  Json list = Json::array();
  for (const auto& cell : cells) {
    Json entry = {{"id", cell.id}, {"file", "cells/" + cell.id + ".json"}};
    if (seeded) entry["seed"] = cell.seed;
    Json values = Json::object();
    for (const auto& [name, value] : cell.options) values[name] = value;
    entry["options"] = values;
    list.push_back(entry);
  }
  doc["cells"] = list;
  return doc;
}

CellTask prepare_cell(const SweepCommand& command, const SweepSpec& spec, const SweepCell& cell,
                      bool seeded, const fs::path& json) {
  auto options = cell.options;
  if (seeded) options.emplace_back("seed", std::to_string(cell.seed));
  try {
    return command.prepare(spec.command, options, json);
  } catch (const InputError& e) {
    throw InputError("invalid sweep cell " + describe(cell) + ": " + e.what());
  }
}

// A directory in a cell's place is no document either (reading one throws).
bool has_valid_json(const fs::path& path) {
  std::ifstream in(path);
  return fs::is_regular_file(path) && in && Json::accept(in);
}

// Leftovers of an interrupted run: temporary files that were never renamed.
void remove_stale_temporaries(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with(".") && name.find(".tmp-") != std::string::npos) fs::remove(entry.path());
  }
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// results.csv from the documents of the cells that ran now (`ran`, in the order of `pending`)
// and, for the cells resumed, from their files.
std::string collect_csv(const SweepPlan& plan, const std::vector<std::size_t>& pending,
                        const std::vector<std::string>& ran) {
  std::vector<std::string> texts(plan.cells.size());
  for (std::size_t k = 0; k < pending.size(); ++k) texts[pending[k]] = ran[k];
  std::vector<CellDocument> documents;
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    const auto& cell = plan.cells[i];
    if (texts[i].empty()) texts[i] = read_file(cell_path(plan.dir, cell));
    documents.push_back({cell.id, Json::parse(texts[i])});
  }
  return results_csv(documents);
}

}  // namespace

SweepPlan plan_sweep(const fs::path& file, const fs::path& dir, const SweepCommand& command) {
  SweepPlan plan{read_sweep_file(file), dir, {}, {}, {}};
  require(plan.spec.command.front() != "sweep",
          "invalid sweep file " + file.string() + " (a sweep cannot run sweeps)");
  bool document = false;
  try {
    document = command.has_option(plan.spec.command, "--json");
  } catch (const InputError& e) {  // no such command
    throw InputError("invalid sweep file " + file.string() + ": " + e.what());
  }
  require(document,
          "invalid sweep file " + file.string() + " (command '" + words_text(plan.spec.command) +
              "' writes no JSON document, so its cells would have no results; sweep a command "
              "with --json)");
  for (const auto& axis : plan.spec.options) {  // a positional: `diagnose TABLE`, `compare A B`
    require(command.has_option(plan.spec.command, "--" + axis.name) ||
                !command.has_option(plan.spec.command, axis.name),
            "invalid sweep file " + file.string() + " (" + axis.name + " is a positional " +
                "argument of '" + words_text(plan.spec.command) +
                "', which a sweep cannot set: run the command once per value)");
  }
  const bool fixed_seed = std::any_of(plan.spec.options.begin(), plan.spec.options.end(),
                                      [](const SweepAxis& a) { return a.name == "seed"; });
  const bool seeded = !fixed_seed && command.has_option(plan.spec.command, "--seed");
  plan.cells = expand_grid(plan.spec);
  for (const auto& cell : plan.cells) {
    plan.tasks.push_back(prepare_cell(command, plan.spec, cell, seeded, cell_path(dir, cell)));
    if (command.cell_checked) command.cell_checked(plan.tasks.size(), plan.cells.size());
  }
  plan.manifest = manifest(plan.spec, plan.cells, seeded);
  return plan;
}

void check_sweep_dir(const SweepPlan& plan, bool resume) {
  const auto& dir = plan.dir;
  if (!fs::exists(dir)) {
    // The folder is made later: its nearest existing ancestor must be a writable folder.
    auto parent = fs::absolute(dir).parent_path();
    while (!fs::exists(parent)) parent = parent.parent_path();
    require(fs::is_directory(parent) && ::access(parent.c_str(), W_OK) == 0,
            "invalid --out " + dir.string() + " (cannot create it: " + parent.string() +
                " is not a writable folder)");
    return;
  }
  require(fs::is_directory(dir),
          "invalid --out " + dir.string() + " (exists and is not a directory)");
  if (!resume) {
    require(fs::is_empty(dir), "invalid --out " + dir.string() +
                                   " (not empty: use --resume to continue the sweep there, or "
                                   "another directory)");
    return;
  }
  const auto existing = dir / "sweep.json";
  if (!fs::exists(existing)) return;
  Json old;
  try {
    old = Json::parse(std::ifstream(existing));
  } catch (const Json::exception&) {
    throw InputError("cannot resume in " + dir.string() + " (its sweep.json is not valid JSON)");
  }
  // Another grid would mix old cells into this sweep's results.
  for (const auto& [key, what] : {std::pair{"sweep_command", "command"}, std::pair{"seed", "seed"},
                                  std::pair{"options", "grid of options"}}) {
    require(old.value(key, Json()) == plan.manifest[key],
            "cannot resume in " + dir.string() + " (it holds a sweep with another " + what +
                ": resume with the same sweep file, or use another --out)");
  }
}

std::vector<std::size_t> prepare_sweep_dir(const SweepPlan& plan, bool resume) {
  return on_root([&] {
    fs::create_directories(plan.dir / "cells");
    remove_stale_temporaries(plan.dir);
    remove_stale_temporaries(plan.dir / "cells");
    write_file_atomically(plan.dir / "sweep.json", plan.manifest.dump(2) + "\n");
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < plan.cells.size(); ++i) {
      if (!resume || !has_valid_json(cell_path(plan.dir, plan.cells[i]))) pending.push_back(i);
    }
    return pending;
  });
}

fs::path run_sweep(const SweepPlan& plan, const std::vector<std::size_t>& pending,
                   const Parallel& parallel) {
  // Each cell's document, read back on the rank that wrote it: rank 0 builds results.csv
  // from these, not from files that a network file system may not show it yet.
  const auto ran =
      parallel_map(parallel, static_cast<std::int64_t>(pending.size()), [&](std::int64_t i) {
        const auto cell = pending[static_cast<std::size_t>(i)];
        plan.tasks[cell]();
        return read_file(cell_path(plan.dir, plan.cells[cell]));
      });
  const auto results = plan.dir / "results.csv";
  on_root([&] { write_file_atomically(results, collect_csv(plan, pending, ran)); });
  return results;
}

}  // namespace phasesim::sweep
