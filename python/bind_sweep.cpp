// sweep: a command over a grid of options, from a TOML sweep file, into a folder.
#include <optional>
#include <string>

#include "bind.hpp"
#include "call.hpp"
#include "cli/command.hpp"
#include "phasesim/sweep/run.hpp"

namespace phasesim::python {
namespace {

// The cells are command lines of the sweep file's command: the module reads them with the
// CLI's own parser (cli::sweep_cells), so a cell means what it means to `phasesim sweep`.
py::object sweep(const std::string& file, const std::string& out, bool resume, int threads,
                 bool progress) {
  return run_command("sweep", progress, [&](Watch& watch) {
    check_threads(threads);
    const auto plan = sweep::plan_sweep(file, out, cli::sweep_cells());
    sweep::check_sweep_dir(plan, resume);
    const auto pending = sweep::prepare_sweep_dir(plan, resume);
    const auto results = sweep::run_sweep(plan, pending, watch.parallel({threads}));
    auto doc = plan.manifest;
    doc["file"] = file;
    doc["out"] = out;
    doc["resume"] = resume;
    doc["cells_run"] = pending.size();
    doc["cells_resumed"] = plan.cells.size() - pending.size();
    doc["results"] = results.string();
    return doc;
  });
}

}  // namespace

void add_sweep_command(py::module_& m) {
  using namespace pybind11::literals;
  m.def("sweep", &sweep, "file"_a, py::kw_only(), "out"_a, "resume"_a = false, "threads"_a = 0,
        "progress"_a = false,
        R"(Run a command over a grid of options from a TOML sweep file, in parallel, resumably.

As `phasesim sweep FILE --out OUT [--resume] [--threads N]` (README, "Sweeps"): every cell
is checked before any runs; each writes OUT/cells/ID.json as it finishes, and results.csv
is written once all exist. Returns the content of OUT/sweep.json (the command, the seed,
the axes, every cell) with file, out, resume, cells_run, cells_resumed and results (the
path of results.csv); to_frame(result) reads results.csv, one row per cell and group.
threads: cells run at once (0: all cores). Ctrl-C stops between cells (a cell in progress
finishes first); sweep(..., resume=True) continues.)");
}

}  // namespace phasesim::python
