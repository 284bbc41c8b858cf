// phasesim gpu-check: the gpu engine against the CPU full engine on one small full-vector
// experiment, draw for draw, with the throughput of each.
#include "cli/parity_table.hpp"

namespace phasesim::cli {

void add_gpu_check_command(CLI::App& app, Action& action,
                           const commands::Environment& environment) {
  add_command<commands::GpuCheck>(app, action, environment,
                                  parity_presenter<commands::GpuCheck>({"cpu full", "gpu"}));
}

}  // namespace phasesim::cli
