// Theorem 3: closed forms against brute-force enumeration, the 1/N constant, sampling
// in standard errors, and joint training.
#include "phasesim/theorems/diversity.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "phasesim/core/error.hpp"

using namespace phasesim;
using namespace phasesim::theorems;

namespace {

DiversityModel model(int stride) {
  DiversityModel m;
  m.stride = stride;
  m.beta_out = 12;
  m.success = 0.9;
  m.loss.answers = 1000;
  return m;
}

// Every one of the S^N assignments of N heads to S phases, equally likely.
struct Enumerated {
  double loss = 0, all_covered = 0, blind = 0;
  std::vector<double> blind_distribution;
};

Enumerated enumerate(const DiversityModel& m, int heads) {
  Enumerated e;
  e.blind_distribution.assign(static_cast<std::size_t>(m.stride) + 1, 0.0);
  const double total = std::pow(m.stride, heads);
  std::vector<int> choice(static_cast<std::size_t>(heads), 0);
  for (;;) {
    std::vector<int> counts(static_cast<std::size_t>(m.stride), 0);
    for (int c : choice) ++counts[static_cast<std::size_t>(c)];
    const auto blind = std::count(counts.begin(), counts.end(), 0);
    e.loss += m.loss_of(counts) / total;
    e.blind += static_cast<double>(blind) / total;
    e.all_covered += (blind == 0 ? 1.0 : 0.0) / total;
    e.blind_distribution[static_cast<std::size_t>(blind)] += 1 / total;
    std::size_t i = 0;  // next assignment, odometer style
    while (i < choice.size() && ++choice[i] == m.stride) choice[i++] = 0;
    if (i == choice.size()) return e;
  }
}

}  // namespace

TEST_CASE("exact expectation, coverage and blind phases match brute-force enumeration") {
  for (const auto& c : {std::pair{3, 5}, {4, 6}, {2, 9}, {5, 3}, {4, 4}}) {
    const int stride = c.first, heads = c.second;  // clang 14's CAPTURE cannot take bindings
    CAPTURE(stride);
    CAPTURE(heads);
    const auto m = model(stride);
    const auto row = diversity_row(m, heads);
    const auto brute = enumerate(m, heads);
    CHECK(row.loss_random == doctest::Approx(brute.loss).epsilon(1e-12));
    // Probabilities to 1e-13 absolute (inclusion-exclusion cancels to rounding at 0).
    CHECK(std::abs(row.p_all_covered - brute.all_covered) < 1e-13);
    CHECK(std::abs(p_all_covered_inclusion_exclusion(stride, heads) - brute.all_covered) < 1e-13);
    CHECK(row.expected_blind == doctest::Approx(brute.blind).epsilon(1e-12));
    for (std::size_t j = 0; j < brute.blind_distribution.size(); ++j) {
      CHECK(std::abs(row.blind_distribution[j] - brute.blind_distribution[j]) < 1e-13);
    }
  }
}

TEST_CASE("N = S = 8: P(some phase blind) = 0.9976 and 2.75 blind phases expected") {
  // MODEL.md: 1 - 8!/8^8 = 0.99760 and 8 (7/8)^8 = 2.7489.
  const auto row = diversity_row(model(8), 8);
  CHECK(1 - row.p_all_covered == doctest::Approx(1 - 40320.0 / 16777216.0).epsilon(1e-12));
  CHECK(1 - row.p_all_covered == doctest::Approx(0.9976).epsilon(1e-4));
  CHECK(row.expected_blind == doctest::Approx(2.75).epsilon(1e-3));
}

TEST_CASE("N gap tends to C = (1/2)(beta_o p)^2 l''(beta_o p/S)(S-1)/S^2, slope -1") {
  const auto m = model(4);
  // C by hand: a = 10.8, z = 2.7, s = 1000 e^-2.7 / (1 + 1000 e^-2.7), l'' = s(1 - s).
  const double s = 1000 * std::exp(-2.7) / (1 + 1000 * std::exp(-2.7));
  CHECK(m.constant() == doctest::Approx(0.5 * 10.8 * 10.8 * s * (1 - s) * 3 / 16).epsilon(1e-14));
  std::vector<DiversityRow> rows;
  for (int n : {256, 1024, 4096, 16384}) rows.push_back(diversity_row(m, n));
  CHECK(rows.back().gap_times_n == doctest::Approx(m.constant()).epsilon(1e-3));
  // The second-order expansion is O(N^-3) accurate: N^2 (gap - C/N - D/N^2) -> 0.
  for (const auto& r : rows) {
    CAPTURE(r.heads);
    const double residual = (r.gap - r.gap_second_order) * r.heads * r.heads * r.heads;
    CHECK(std::abs(residual) < 20);  // bounded by a constant: the next order
  }
  CHECK(log_log_slope(rows) == doctest::Approx(-1).epsilon(5e-3));
}

TEST_CASE("the O(1/N^2) term includes the uneven balanced split when S does not divide N") {
  const auto m = model(4);
  for (int n : {1001, 1002, 1003}) {
    CAPTURE(n);
    const auto r = diversity_row(m, n);
    CHECK(r.gap == doctest::Approx(r.gap_second_order).epsilon(1e-5));
  }
}

TEST_CASE("sampled assignments agree with the exact expectation within 5 standard errors") {
  const auto m = model(8);
  for (int heads : {8, 20}) {
    CAPTURE(heads);
    const auto exact = diversity_row(m, heads);
    const auto sampled = sample_diversity(m, heads, 20000, 11);
    CHECK(std::abs(sampled.loss_mean - exact.loss_random) < 5 * sampled.loss_se);
    CHECK(std::abs(sampled.blind_mean - exact.expected_blind) < 5 * sampled.blind_se);
  }
}

TEST_CASE("output loss derivatives match finite differences") {
  const OutputLoss l{1000};
  for (double z : {0.0, 3.0, 6.9, 12.0}) {
    for (int k = 1; k <= 4; ++k) {
      CAPTURE(z);
      CAPTURE(k);
      const double h = 1e-4;
      const double difference =
          k == 1 ? (l.value(z + h) - l.value(z - h)) / (2 * h)
                 : (l.derivative(z + h, k - 1) - l.derivative(z - h, k - 1)) / (2 * h);
      CHECK(l.derivative(z, k) == doctest::Approx(difference).epsilon(1e-6).scale(1e-9));
    }
  }
}

TEST_CASE("joint training leaves every head on its initial argmax's phase") {
  // T3 + T2: the output loss re-weights the phases towards the uncovered ones, but the
  // heads are locked in. MODEL.md: 336 of 336 heads (H = 4, 8, 16; beta 4.5).
  Objective channel;
  channel.geometry = {8, 4};
  channel.beta = 4.5;
  channel.entries = 32768;
  TrainingSettings settings;
  settings.heads = 4;
  settings.steps = 150;
  for (std::uint64_t seed : {1, 1001}) {
    settings.seed = seed;
    const auto run = train_heads(channel, model(4), settings);
    CAPTURE(seed);
    CHECK(run.kept == 4);
    CHECK(run.final_loss < run.initial_loss);
    int covered = 0;
    for (int c : run.coverage) covered += c;
    CHECK(covered == 4);
    CHECK(run.blind == static_cast<int>(std::count(run.coverage.begin(), run.coverage.end(), 0)));
  }
}

TEST_CASE("diversity validation messages") {
  auto m = model(4);
  m.success = 1.5;
  CHECK_THROWS_WITH_AS(m.validate(), "invalid --success 1.5 (must be in [0, 1])", InputError);
  m = model(4);
  m.loss.answers = 0;
  CHECK_THROWS_WITH_AS(m.validate(), "invalid --answers 0 (must be finite and > 0)", InputError);
  CHECK_THROWS_WITH_AS(diversity_row(model(4), 0), "invalid --heads 0 (each must be at least 1)",
                       InputError);
}
