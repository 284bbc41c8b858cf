// The success rule (phasesim/channel/success_rule.hpp) against the channel's quadrature, at the
// accuracy its header states, for phases of 3, 4 and 8 entries, and what it leaves to the
// quadrature.
#include "phasesim/channel/success_rule.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "phasesim/channel/channel.hpp"
#include "phasesim/channel/success_table.hpp"

using namespace phasesim::channel;

namespace {

// Gates of m slots that one phase may hold under `law` (normalized: sum u^2 <= 1; shares: sum
// x <= 1; linear: each c in [0, 1]): uniform, spread by a fixed low-discrepancy sequence (some
// of the window's weight elsewhere), with one slot near one-hot (its sd just above and below
// SuccessRule::kNarrowest, and far below: the call's own rule), and the empty phase.
std::vector<std::vector<double>> gates(EntryLaw law, int m) {
  std::vector<std::vector<double>> raw;
  raw.push_back(std::vector<double>(static_cast<std::size_t>(m), 1.0));
  for (int i = 1; i <= 3; ++i) {
    std::vector<double> g;
    for (int s = 0; s < m; ++s) g.push_back(0.05 + std::fmod(0.618034 * (i * m + s), 1.0));
    raw.push_back(g);
  }
  std::vector<std::vector<double>> result;
  for (std::size_t k = 0; k < raw.size(); ++k) {
    auto g = raw[k];
    double norm = 0;
    for (double v : g) norm += law == EntryLaw::shares ? v : v * v;
    if (law == EntryLaw::normalized) norm = std::sqrt(norm);
    const double room = k == 0 ? 1.0 : 0.7;  // the rest of the window holds the remainder
    for (double& v : g)
      v *= law == EntryLaw::linear ? 1.0 / static_cast<double>(k + 1) : room / norm;
    result.push_back(g);
  }
  // One slot near one-hot, the others sharing what is left (linear: sd is always 1).
  for (double sd : {1.02 * SuccessRule::kNarrowest, 0.98 * SuccessRule::kNarrowest, 0.03, 1e-4}) {
    const double top = law == EntryLaw::shares ? 1 - sd * sd : std::sqrt(1 - sd * sd);
    std::vector<double> near(static_cast<std::size_t>(m), 0.0);
    near[0] = top;
    for (int s = 1; s < m; ++s)
      near[static_cast<std::size_t>(s)] =
          law == EntryLaw::normalized ? 0.5 * sd / std::sqrt(m) : 0.5 * (1 - top) / m;
    result.push_back(near);
  }
  result.push_back(std::vector<double>(static_cast<std::size_t>(m), 0.0));
  return result;
}

}  // namespace

TEST_CASE("success rule: within kAccuracy of the quadrature, every law, 3, 4 and 8 entries") {
  double worst = 0, worst_slope = 0;
  for (const EntryLaw law : {EntryLaw::normalized, EntryLaw::shares, EntryLaw::linear}) {
    for (std::int64_t entries : {16, 1024, 32768, 1000000}) {
      for (int m : {3, 4, 8}) {
        const SuccessRule rule(entries - m);
        if (law == EntryLaw::normalized && m == 4)
          MESSAGE("N " << entries << ": the shared rule has " << rule.nodes() << " nodes");
        for (double beta : {0.0, 3.0, 6.0, 12.0, 40.0}) {
          for (const auto& x : gates(law, m)) {
            CAPTURE(static_cast<int>(law));
            CAPTURE(beta);
            CAPTURE(entries);
            CAPTURE(m);
            double p = -1;
            std::vector<double> slope(x.size(), 0.0);
            REQUIRE(rule.lookup(law, beta, x, p, slope));
            const auto exact = law_success_gradient(law, beta, entries, x);
            worst = std::max(worst, std::abs(p - exact.probability));
            for (std::size_t s = 0; s < x.size(); ++s)
              worst_slope = std::max(worst_slope, std::abs(slope[s] - exact.d_u[s]));
          }
        }
      }
    }
  }
  MESSAGE("largest error " << worst << ", of a slope " << worst_slope);
  CHECK(worst < SuccessRule::kAccuracy);
  CHECK(worst_slope < 1e-6);
}

TEST_CASE("success rule: a one-hot entry (a step) and coordinates outside [0, 1] are not served") {
  const SuccessRule rule(1024 - 3);
  for (const auto& x : {std::vector<double>{1.0, 0.0, 0.0}, std::vector<double>{0.2, -0.1, 0.3},
                        std::vector<double>{0.2, 1.5, 0.3}}) {
    double p = -1;
    std::vector<double> slope(3, -1.0);
    CHECK_FALSE(rule.lookup(EntryLaw::normalized, 6, x, p, slope));
    CHECK(p == -1);
    CHECK(slope == std::vector<double>(3, -1.0));
  }
  // Shares: x = 1 is the one-hot channel (sd 0); linear has no step (sd 1).
  double p = -1;
  std::vector<double> slope(3, -1.0);
  CHECK_FALSE(rule.lookup(EntryLaw::shares, 6, std::vector<double>{1.0, 0.0, 0.0}, p, slope));
  CHECK(rule.lookup(EntryLaw::linear, 6, std::vector<double>{1.0, 0.0, 0.0}, p, slope));
}

TEST_CASE(
    "success tables: phases of more than two slots from the rule, one-hot from the quadrature") {
  SuccessTables tables;
  const auto phases = tables.phases(EntryLaw::normalized, 6, 32768);
  const std::vector<double> x{0.2, 0.3, 0.4, 0.1};
  std::vector<double> slope(4), expected_slope(4);
  double expected = 0;
  REQUIRE(tables.rule(32768 - 4).lookup(EntryLaw::normalized, 6, x, expected, expected_slope));
  CHECK(phases(x, slope) == expected);
  CHECK(slope == expected_slope);
  const std::vector<double> one_hot{1.0, 0.0, 0.0};
  const auto exact = law_success_gradient(EntryLaw::normalized, 6, 32768, one_hot);
  const auto value = phases(one_hot);
  CHECK(value.probability == exact.probability);
  CHECK(value.d_u == exact.d_u);
}
