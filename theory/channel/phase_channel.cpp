#include "phasesim/channel/phase_channel.hpp"

#include "phasesim/channel/channel.hpp"
#include "phasesim/core/error.hpp"

namespace phasesim::channel {

std::vector<double> phase_success(const Geometry& geometry, const Gate& gate, double beta,
                                  std::int64_t entries, double split_rho) {
  require(gate.window() == geometry.window,
          "invalid gate '" + gate.spec + "' (has " + std::to_string(gate.window()) +
              " weights, the window needs " + std::to_string(geometry.window) + ")");
  const auto laws = slot_laws(gate, geometry, split_rho);
  std::vector<double> success;
  for (int phi = 0; phi < geometry.stride; ++phi) {
    std::vector<double> needle_u;
    std::vector<NeedleEntry> needle;
    for (int s : geometry.slots_of_phase(phi)) {
      const auto& law = laws[static_cast<std::size_t>(s)];
      needle_u.push_back(law.u);
      needle.push_back({beta * law.u, law.sd});
    }
    validate_channel_inputs(beta, needle_u, entries);
    const auto distractors = entries - static_cast<std::int64_t>(needle.size());
    success.push_back(needle_success(needle, distractors).probability);
  }
  return success;
}

}  // namespace phasesim::channel
