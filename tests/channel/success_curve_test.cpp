// The fast success curve (phasesim/channel/success_curve.hpp) against the channel's own
// quadrature, at the accuracy its header states.
#include "phasesim/channel/success_curve.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "phasesim/channel/channel.hpp"

using namespace phasesim::channel;

TEST_CASE("success curve: the fast integral and its spline against the channel's quadrature") {
  // Reference: success_probability (adaptive quadrature over the distractor maximum,
  // absolute error 1e-12; tests/channel/channel_test.cpp checks it against mpmath).
  double worst_direct = 0;
  double worst_spline = 0;
  for (std::int64_t entries : {8, 1024, 32768, 1000000}) {
    for (double beta : {0.0, 3.0, 9.5, 20.0, 39.0}) {
      for (const PhaseSlots slots : {PhaseSlots{1, 1}, PhaseSlots{2, 1}, PhaseSlots{2, 2}}) {
        const SuccessCurve curve(slots, beta, entries);
        for (int i = 0; i <= 23; ++i) {
          const double u = curve.max_u() * i / 23.0;
          std::vector<double> weights(static_cast<std::size_t>(slots.holding), 0.0);
          for (int s = 0; s < slots.weighted; ++s) weights[static_cast<std::size_t>(s)] = u;
          const double exact = success_probability(beta, weights, entries);
          worst_direct =
              std::max(worst_direct, std::abs(phase_success_at(slots, u, beta, entries) - exact));
          worst_spline = std::max(worst_spline, std::abs(curve(u) - exact));
        }
      }
    }
  }
  CHECK(worst_direct < 1e-8);
  CHECK(worst_spline < 5e-6);
}

TEST_CASE("needle_beats_distractors: within 1e-8 of needle_success for k entries of one law") {
  double worst = 0;
  for (std::int64_t n : {0, 1, 7, 1023, 32767, 999999}) {
    for (int k : {1, 2, 4, 8, 32}) {
      for (double mean : {-1.0, 0.0, 2.5, 4.5, 9.5, 30.0}) {
        for (double sd : {0.0, 0.3, 0.8, 1.0}) {
          const std::vector<NeedleEntry> needle(static_cast<std::size_t>(k), NeedleEntry{mean, sd});
          const double exact = needle_success(needle, n).probability;
          worst = std::max(worst, std::abs(needle_beats_distractors(mean, sd, k, n) - exact));
        }
      }
    }
  }
  CHECK(worst < 1e-8);
}
