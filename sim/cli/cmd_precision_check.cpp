// phasesim precision-check: the float full engine against full-double on the same trials,
// draw for draw (phasesim/engines/parity.hpp): the argmaxes that differ, each with the gap
// between its top two logits, and the speed of each.
#include "cli/command.hpp"
#include "cli/parity_table.hpp"
#include "phasesim/core/normal_block.hpp"

namespace phasesim::cli {
namespace {

// The protocol at a shorter context, so that the double path stays quick: W = 8,
// S = 4, uniform gate, d = 64, query noise 1.47, L = 8192, 8 groups x 64 prompts.
niah::NiahSpec protocol() {
  niah::NiahSpec s;
  s.gates = "uniform";
  s.heads = 1;
  s.dim = 64;
  s.query_noise = 1.47;
  s.context = 8192;
  s.prompts = 64;
  return s;
}

}  // namespace

void add_precision_check_command(CLI::App& app, Action& action,
                                 std::shared_ptr<const engines::EngineRegistry> registry) {
  add_parity_command(
      app, action, std::move(registry),
      {"precision-check",
       "The float full engine against full-double on the same trials: differing argmaxes with "
       "their top-two gaps (exit status 4 when one differs away from a near-tie)",
       protocol(),
       "full-double",
       "full",
       {"full-double", "full"},
       [] {},
       [] {
         return engines::ParityLabels{"precision-check", "double", "float", "simd", simd_target()};
       }});
}

}  // namespace phasesim::cli
