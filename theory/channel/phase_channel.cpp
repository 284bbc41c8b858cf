#include "phasesim/channel/phase_channel.hpp"

#include "phasesim/channel/channel.hpp"
#include "phasesim/core/error.hpp"

namespace phasesim::channel {

std::vector<double> phase_success(const Geometry& geometry, const Gate& gate, double beta,
                                  std::int64_t entries) {
  require(gate.window() == geometry.window,
          "invalid gate '" + gate.spec + "' (has " + std::to_string(gate.window()) +
              " weights, the window needs " + std::to_string(geometry.window) + ")");
  const auto u = normalized_weights(gate);
  std::vector<double> success;
  for (int phi = 0; phi < geometry.stride; ++phi) {
    std::vector<double> needle_u;
    for (int s : geometry.slots_of_phase(phi)) needle_u.push_back(u[static_cast<std::size_t>(s)]);
    success.push_back(success_probability(beta, needle_u, entries));
  }
  return success;
}

}  // namespace phasesim::channel
