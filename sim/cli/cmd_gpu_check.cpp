// phasesim gpu-check: the gpu engine against the CPU full engine on one small full-vector
// experiment, draw for draw (phasesim/engines/parity.hpp), with the throughput of each.
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/parity_table.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/engines/gpu.hpp"

namespace phasesim::cli {
namespace {

// A small full-vector run: two random heads, d = 64, L = 4096, 8 groups x 64 prompts.
NiahSpec small_run() {
  NiahSpec s;
  s.gates = "random:1";
  s.heads = 2;
  s.dim = 64;
  s.query_noise = 1;
  s.context = 4096;
  s.prompts = 64;
  return s;
}

}  // namespace

void add_gpu_check_command(CLI::App& app, Action& action,
                           std::shared_ptr<const EngineRegistry> engines) {
  auto o = std::make_shared<ParityOptions>();
  o->spec = small_run();
  auto* cmd = app.add_subcommand(
      "gpu-check",
      "The gpu engine against the CPU full engine, draw for draw, with the throughput of each "
      "(exit status 4 when they differ away from near-ties)");
  add_parity_options(*cmd, *o);
  cmd->callback([o, engines, &action] {
    const auto run = make_run(o->spec);
    check_threads(o->threads);
    const auto reason = gpu_unavailable_reason();
    require(reason.empty(), reason);
    action = [o, run, engines](std::ostream& out) {
      const ParityLabels labels{"gpu-check", "cpu", "gpu", "device", gpu_device_name()};
      return run_parity_command(*o, run, engines->find("full"), engines->find("gpu"), labels,
                                {"cpu full", "gpu"}, out);
    };
  });
}

}  // namespace phasesim::cli
