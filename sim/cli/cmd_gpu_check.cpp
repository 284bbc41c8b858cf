// phasesim gpu-check: the gpu engine against the CPU full engine on one small full-vector
// experiment, draw for draw (phasesim/engines/parity.hpp), with the throughput of each.
#include "cli/command.hpp"
#include "cli/parity_table.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/engines/gpu.hpp"

namespace phasesim::cli {
namespace {

// A small full-vector run: two random heads, d = 64, L = 4096, 8 groups x 64 prompts.
niah::NiahSpec small_run() {
  niah::NiahSpec s;
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
                           std::shared_ptr<const engines::EngineRegistry> registry) {
  add_parity_command(
      app, action, std::move(registry),
      {"gpu-check",
       "The gpu engine against the CPU full engine, draw for draw, with the throughput of each "
       "(exit status 4 when they differ away from near-ties)",
       small_run(),
       "full",
       "gpu",
       {"cpu full", "gpu"},
       [] {
         const auto reason = engines::gpu_unavailable_reason();
         require(reason.empty(), reason);
       },
       [] {
         return engines::ParityLabels{"gpu-check", "cpu", "gpu", "device",
                                      engines::gpu_device_name()};
       }});
}

}  // namespace phasesim::cli
