#pragma once
// What gpu-check and precision-check print: the report of one engine against another
// (phasesim/engines/parity.hpp, phasesim/commands/parity.hpp).
#include <iosfwd>
#include <string>

#include "cli/door.hpp"
#include "phasesim/commands/parity.hpp"

namespace phasesim::cli {

/// Table titles of the two engines, e.g. "cpu full" and "gpu".
struct ParityTitles {
  std::string reference, candidate;
};

/// The header, the per-group accuracies, the comparison, the timings and the verdict;
/// `threads` is the run's --threads.
void print_parity(const commands::ParityRun& parity, const commands::ParityRun::Result& result,
                  const ParityTitles& titles, int threads, std::ostream& out);

/// kSuccess with parity, kParityFailed without.
int parity_status(const commands::ParityRun::Result& result);

/// The presenter of a check C (GpuCheck, PrecisionCheck) whose engines the tables call
/// `titles`.
template <class C>
Presenter<C> parity_presenter(ParityTitles titles) {
  return {[titles](const C& check, const typename C::Result& result, double, std::ostream& out) {
            print_parity(check, result, titles, check.options().threads, out);
          },
          parity_status};
}

}  // namespace phasesim::cli
