#include "phasesim/sweep/run.hpp"

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

// A value as documents show it: a string, or a list's items as an array.
Json value_json(const std::string& value) {
  const auto items = value_items(value);
  return items.size() == 1 ? Json(value) : Json(items);
}

std::string describe(const SweepCell& cell) {
  std::string text;
  for (const auto& [name, value] : cell.options) {
    text += (text.empty() ? "" : " ") + name + "=";
    for (const auto& item : value_items(value)) text += item + ",";
    text.pop_back();
  }
  return "{" + text + "}";
}

Json manifest(const SweepSpec& spec, const std::vector<SweepCell>& cells, bool seeded) {
  Json doc = new_document("sweep");
  doc["sweep_command"] = spec.command;
  doc["seed"] = spec.seed;
  Json options = Json::object();
  for (const auto& axis : spec.options) {
    auto& values = options[axis.name] = Json::array();
    for (const auto& value : axis.values) values.push_back(value_json(value));
  }
  doc["options"] = options;
  Json list = Json::array();
  for (const auto& cell : cells) {
    Json entry = {{"id", cell.id}, {"file", "cells/" + cell.id + ".json"}};
    if (seeded) entry["seed"] = cell.seed;
    Json values = Json::object();
    for (const auto& [name, value] : cell.options) values[name] = value_json(value);
    entry["options"] = values;
    list.push_back(entry);
  }
  doc["cells"] = list;
  return doc;
}

CellTask prepare_cell(const SweepCommand& command, const SweepSpec& spec, const SweepCell& cell,
                      bool seeded) {
  auto options = cell.options;
  if (seeded) options.emplace_back("seed", std::to_string(cell.seed));
  try {
    return command.prepare(spec.command, options);
  } catch (const InputError& e) {
    throw InputError("invalid sweep cell " + describe(cell) + ": " + e.what());
  }
}

Json cell_record(const SweepCell& cell) {
  Json options = Json::object();
  for (const auto& [name, value] : cell.options) options[name] = value_json(value);
  return {{"id", cell.id}, {"options", options}};
}

// Why the file of `cell` holds no finished document of it ("" when it does, "absent" when
// there is none): what a resumed sweep reruns.
std::string cell_file_problem(const SweepPlan& plan, const SweepCell& cell) {
  const auto path = cell_path(plan.dir, cell);
  std::error_code error;
  if (!fs::exists(path, error)) return "absent";
  if (!fs::is_regular_file(path, error)) return "is not a file";
  const auto doc = Json::parse(std::ifstream(path), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return "is not a JSON document";
  const auto command = words_text(plan.spec.command);
  if (doc.value("schema", Json()) != kSchema) return "is not a phasesim document of this schema";
  if (doc.value("command", Json()) != command) {
    return "is a document of " + doc.value("command", Json()).dump() + ", not of '" + command + "'";
  }
  if (!doc.contains("sweep_cell")) return "has no sweep_cell record (a sweep did not write it)";
  if (doc["sweep_cell"] != cell_record(cell)) {
    return "is the document of another cell, " + doc["sweep_cell"].dump();
  }
  return {};
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
  SweepPlan plan{file, read_sweep_file(file), dir, {}, {}, {}};
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
  const bool fixed_seed = std::any_of(plan.spec.options.begin(), plan.spec.options.end(),
                                      [](const SweepAxis& a) { return a.name == "seed"; });
  const bool seeded = !fixed_seed && command.has_option(plan.spec.command, "--seed");
  plan.cells = expand_grid(plan.spec);
  for (const auto& cell : plan.cells) {
    plan.tasks.push_back(prepare_cell(command, plan.spec, cell, seeded));
    if (command.cell_checked) command.cell_checked(plan.tasks.size(), plan.cells.size());
  }
  plan.manifest = manifest(plan.spec, plan.cells, seeded);
  return plan;
}

void check_sweep_dir(const SweepPlan& plan, bool resume) {
  const auto& dir = plan.dir;
  check_output_folder(dir, "--out");
  // Never over its own sweep file (one kept as DIR/results.csv and resumed).
  std::error_code error;
  const auto file = fs::weakly_canonical(plan.file, error);
  const auto folder = error ? fs::path() : fs::weakly_canonical(dir, error);
  require(error || (file != folder / "sweep.json" && file != folder / "results.csv" &&
                    file.parent_path() != folder / "cells"),
          "invalid --out " + dir.string() + " (the sweep would write over its sweep file " +
              plan.file.string() +
              ": keep the sweep file out of --out's sweep.json, results.csv "
              "and cells/)");
  if (!fs::exists(dir)) return;  // made later, by prepare_sweep_dir
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

SweepDir survey_sweep_dir(const SweepPlan& plan, bool resume) {
  SweepDir found;
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    const auto problem = resume ? cell_file_problem(plan, plan.cells[i]) : "absent";
    if (problem.empty()) continue;
    found.pending.push_back(i);
    if (problem != "absent") {
      found.stale.push_back("cell " + plan.cells[i].id + ": its file cells/" + plan.cells[i].id +
                            ".json " + problem + " (it runs again)");
    }
  }
  return found;
}

std::vector<std::size_t> prepare_sweep_dir(const SweepPlan& plan, bool resume) {
  return on_root([&] {
    std::error_code error;
    fs::create_directories(plan.dir / "cells", error);
    if (error) {
      throw InputError("cannot write '" + (plan.dir / "cells").string() + "' (" + error.message() +
                       ")");
    }
    remove_stale_temporaries(plan.dir);
    remove_stale_temporaries(plan.dir / "cells");
    write_file_atomically(plan.dir / "sweep.json", plan.manifest.dump(2) + "\n");
    return survey_sweep_dir(plan, resume).pending;
  });
}

Json cell_document(Json document, const SweepCell& cell) {
  document["sweep_cell"] = cell_record(cell);
  return document;
}

fs::path run_sweep(const SweepPlan& plan, const std::vector<std::size_t>& pending,
                   const Parallel& parallel) {
  // Each cell's document as written, kept by the rank that wrote it: rank 0 builds
  // results.csv from these, not from files that a network file system may not show it yet.
  const auto ran =
      parallel_map(parallel, static_cast<std::int64_t>(pending.size()), [&](std::int64_t i) {
        const auto index = pending[static_cast<std::size_t>(i)];
        const auto& cell = plan.cells[index];
        const auto text = cell_document(plan.tasks[index].run(parallel.stop), cell).dump(2) + "\n";
        write_file_atomically(cell_path(plan.dir, cell), text);
        return text;
      });
  const auto results = plan.dir / "results.csv";
  on_root([&] { write_file_atomically(results, collect_csv(plan, pending, ran)); });
  return results;
}

}  // namespace phasesim::sweep
