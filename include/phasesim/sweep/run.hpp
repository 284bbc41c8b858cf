#pragma once
// Running a sweep into one directory, in parallel and resumably:
//
//   DIR/sweep.json     what the sweep is (command, seed, cells)
//   DIR/cells/ID.json  one document per cell, each written atomically as it finishes
//   DIR/results.csv    tidy table of every cell, written once all cells exist
//
// Cells are runs of commands, which only the layer above knows (phasesim/commands): it hands
// in a SweepCommand. Messages name the `sweep` command's options (--out, --resume).
//
//   const auto plan = plan_sweep("grid.toml", "runs/grid", command);  // validates every cell
//   check_sweep_dir(plan, resume);                                     // before writing
//   const auto pending = prepare_sweep_dir(plan, resume);
//   run_sweep(plan, pending, Parallel{threads});
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/sweep/sweep.hpp"

namespace phasesim::sweep {

/// One cell, prepared: its run returns the cell's document (which the sweep writes to its
/// file), stopping early (Cancelled) when `stop` says so; its estimate is its command's.
struct CellTask {
  std::function<Json(const std::function<bool()>& stop)> run;
  WorkEstimate estimate = {};
};

/// A cell's options: (name, value) as the sweep file gives them ("4", "0.5", "true").
using CellOptions = std::vector<std::pair<std::string, std::string>>;

/// What the front end knows about its commands.
struct SweepCommand {
  /// The task of one cell: the command named by `command` (e.g. {"theorem", "lockin"}) with
  /// `options`; throws InputError when they are invalid.
  std::function<CellTask(const std::vector<std::string>& command, const CellOptions& options)>
      prepare;
  /// True when `command` takes `option`: "--seed" for a named option, "table" for a
  /// positional, "--json" when it writes a document. Throws InputError when there is no such
  /// command.
  std::function<bool(const std::vector<std::string>& command, const std::string& option)>
      has_option;
  /// Called after each cell is checked, with how many are and of how many: the progress of
  /// planning a large grid. May be empty.
  std::function<void(std::size_t checked, std::size_t total)> cell_checked = {};
};

/// A sweep ready to run in its directory, every cell validated.
struct SweepPlan {
  std::filesystem::path file;  ///< the sweep file
  SweepSpec spec;
  std::filesystem::path dir;  ///< where it writes
  std::vector<SweepCell> cells;
  std::vector<CellTask> tasks;  ///< one per cell
  Json manifest;                ///< the content of sweep.json
};

/// What a resumed sweep finds in its directory.
struct SweepDir {
  std::vector<std::size_t> pending;  ///< the cells to run: all, or those without their document
  /// A line for each cell file that is not its cell's document and runs again: "cell ID: its
  /// file cells/ID.json is a document of 'niah', not of 'train' (it runs again)".
  std::vector<std::string> stale;
};

/// Reads the sweep file and plans its cells into `dir`: each writes DIR/cells/ID.json, and
/// runs with its own --seed when the command takes one and the sweep does not set it. Throws
/// InputError for a bad file or naming the first bad cell.
SweepPlan plan_sweep(const std::filesystem::path& file, const std::filesystem::path& dir,
                     const SweepCommand& command);

/// Throws InputError unless the plan may write into its directory (core/files.hpp:
/// check_output_folder): one that does not exist or is empty, or with `resume` one without
/// sweep.json or holding a sweep of the same command, seed and grid; and never over the sweep
/// file itself.
void check_sweep_dir(const SweepPlan& plan, bool resume);

/// The cells to run, and the cell files that hold no document of their cell. A cell's file
/// holds its document when it is a JSON object of this schema and command whose "sweep_cell"
/// record (which the sweep adds to every cell's document) names the cell's id and options.
SweepDir survey_sweep_dir(const SweepPlan& plan, bool resume);

/// Creates cells/, removes the temporaries of an interrupted run and writes sweep.json.
/// Returns the indices of the cells to run (survey_sweep_dir). In an MPI job rank 0 does this
/// and every rank gets its answer.
std::vector<std::size_t> prepare_sweep_dir(const SweepPlan& plan, bool resume);

/// The cell's document as its file holds it: the command's, then "sweep_cell": {"id": ...,
/// "options": {...}}, the record that --resume checks (results.csv leaves it out).
Json cell_document(Json document, const SweepCell& cell);

/// Runs the `pending` cells through the parallel policy (Parallel::progress counts the
/// finished cells, Parallel::stop also reaches into each cell's own loops; in an MPI job the
/// cells are spread over the ranks as they free up, each written by the rank that ran it),
/// then writes results.csv from every cell's document and returns its path. If cells throw, the
/// lowest-index failure is rethrown once the loop is done and results.csv is not written.
std::filesystem::path run_sweep(const SweepPlan& plan, const std::vector<std::size_t>& pending,
                                const Parallel& parallel);

}  // namespace phasesim::sweep
