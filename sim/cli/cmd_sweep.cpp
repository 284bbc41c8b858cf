// phasesim sweep: run a command over a grid of options, in parallel, resumably.
//
// DIR/sweep.json   what the sweep is (command, seed, cells)
// DIR/cells/ID.json one document per cell, each written atomically as it finishes
// DIR/results.csv  tidy table of every cell, written once all cells exist
#include <omp.h>
#include <unistd.h>

#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "phasesim/core/atomic_file.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/sweep/results_csv.hpp"
#include "phasesim/sweep/sweep.hpp"

namespace phasesim::cli {
namespace {

namespace fs = std::filesystem;

struct SweepOptions {
  std::string file;
  std::string out;
  bool resume = false;
  int threads = 0;
};

struct SweepPlan {
  SweepSpec spec;
  std::vector<SweepCell> cells;
  std::vector<Action> actions;  ///< one per cell, validated before anything runs
  Json manifest;
};

fs::path cell_path(const fs::path& dir, const SweepCell& cell) {
  return dir / "cells" / (cell.id + ".json");
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

SweepPlan plan_sweep(const SweepOptions& options) {
  SweepPlan plan;
  plan.spec = read_sweep_file(options.file);
  require(plan.spec.command.front() != "sweep",
          "invalid sweep file " + options.file + " (a sweep cannot run sweeps)");
  const bool fixed_seed = std::any_of(plan.spec.options.begin(), plan.spec.options.end(),
                                      [](const SweepAxis& a) { return a.name == "seed"; });
  const bool seeded = !fixed_seed && command_has_option(plan.spec.command, "--seed");
  plan.cells = expand_grid(plan.spec);
  for (const auto& cell : plan.cells) {
    auto words = cell_arguments(plan.spec, cell);
    if (seeded) words.push_back("--seed=" + std::to_string(cell.seed));
    words.push_back("--json=" + cell_path(options.out, cell).string());
    try {
      plan.actions.push_back(parse_arguments(words));
    } catch (const CLI::ParseError& e) {
      throw InputError("invalid sweep cell " + describe(cell) + ": " + e.what());
    } catch (const InputError& e) {
      throw InputError("invalid sweep cell " + describe(cell) + ": " + e.what());
    }
  }
  plan.manifest = manifest(plan.spec, plan.cells, seeded);
  return plan;
}

void check_out_dir(const SweepOptions& options, const Json& manifest) {
  const fs::path dir = options.out;
  if (!fs::exists(dir)) return;
  require(fs::is_directory(dir),
          "invalid --out " + options.out + " (exists and is not a directory)");
  const auto existing = dir / "sweep.json";
  if (!options.resume) {
    require(fs::is_empty(dir), "invalid --out " + options.out +
                                   " (not empty: use --resume to continue the sweep there, or "
                                   "another directory)");
    return;
  }
  if (!fs::exists(existing)) return;
  Json old;
  try {
    old = Json::parse(std::ifstream(existing));
  } catch (const Json::exception&) {
    throw InputError("cannot resume in " + options.out + " (its sweep.json is not valid JSON)");
  }
  require(old.value("sweep_command", Json()) == manifest["sweep_command"] &&
              old.value("seed", Json()) == manifest["seed"],
          "cannot resume in " + options.out +
              " (it holds a sweep of another command or seed; use another --out)");
}

bool has_valid_json(const fs::path& path) {
  std::ifstream in(path);
  return in && Json::accept(in);
}

// Leftovers of an interrupted run: temporary files that were never renamed.
void remove_stale_temporaries(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with(".") && name.find(".tmp-") != std::string::npos) fs::remove(entry.path());
  }
}

void run_cells(const SweepPlan& plan, const std::vector<std::size_t>& pending, int threads,
               Progress& progress) {
  std::mutex mutex;
  std::exception_ptr failure;
  const int team = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
  for (std::size_t i = 0; i < pending.size(); ++i) {
    try {
      std::ostream quiet(nullptr);  // cells write their JSON only
      plan.actions[pending[i]](quiet);
    } catch (...) {
      const std::lock_guard lock(mutex);
      if (!failure) failure = std::current_exception();
    }
    const std::lock_guard lock(mutex);
    progress.advance();
  }
  if (failure) std::rethrow_exception(failure);
}

std::string collect_csv(const SweepPlan& plan, const fs::path& dir) {
  std::vector<CellDocument> documents;
  for (const auto& cell : plan.cells) {
    documents.push_back({cell.id, Json::parse(std::ifstream(cell_path(dir, cell)))});
  }
  return results_csv(documents);
}

int run_sweep(const SweepOptions& options, const SweepPlan& plan, std::ostream& out) {
  const fs::path dir = options.out;
  fs::create_directories(dir / "cells");
  remove_stale_temporaries(dir);
  remove_stale_temporaries(dir / "cells");
  write_file_atomically(dir / "sweep.json", plan.manifest.dump(2) + "\n");

  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    if (!options.resume || !has_valid_json(cell_path(dir, plan.cells[i]))) pending.push_back(i);
  }
  const auto resumed = plan.cells.size() - pending.size();
  Progress progress(std::cerr, plan.cells.size(), resumed, ::isatty(STDERR_FILENO) == 1);
  run_cells(plan, pending, options.threads, progress);
  write_file_atomically(dir / "results.csv", collect_csv(plan, dir));

  out << "sweep of '" << plan.manifest["sweep_command"][0].get<std::string>()
      << "': " << plan.cells.size() << " cells (" << pending.size() << " run, " << resumed
      << " resumed)\nresults: " << (dir / "results.csv").string() << "\n";
  return kSuccess;
}

}  // namespace

void add_sweep_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<SweepOptions>();
  auto* cmd = app.add_subcommand(
      "sweep", "Run a command over a grid of options from a TOML file, in parallel, resumably");
  cmd->add_option("file", options->file, "Sweep file (TOML): command, seed, [options]")->required();
  cmd->add_option("--out", options->out, "Directory for sweep.json, cells/ and results.csv")
      ->required();
  cmd->add_flag("--resume", options->resume, "Continue an interrupted sweep in --out");
  cmd->add_option("--threads", options->threads, "Cells run at once (default: all cores)");
  cmd->callback([options, &action] {
    require(options->threads >= 0,
            "invalid --threads " + std::to_string(options->threads) + " (must be >= 0)");
    auto plan = std::make_shared<SweepPlan>(plan_sweep(*options));
    check_out_dir(*options, plan->manifest);
    action = [options, plan](std::ostream& out) { return run_sweep(*options, *plan, out); };
  });
}

}  // namespace phasesim::cli
