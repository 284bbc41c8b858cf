// J(g) and its exact gradient (weights and logits) in both retention models.
#include "phasesim/theorems/objective.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "phasesim/channel/channel.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/model/gate.hpp"
#include "phasesim/theorems/concentration.hpp"
#include "support/v4_objective.hpp"

using namespace phasesim;
using namespace phasesim::channel;
using namespace phasesim::theorems;
using phasesim::test::v4_objective;

namespace {

// dJ/db by central differences of J(softmax(b)).
std::vector<double> logit_differences(const Objective& o, std::vector<double> b) {
  std::vector<double> d(b.size());
  const double h = 1e-5;
  for (std::size_t s = 0; s < b.size(); ++s) {
    b[s] += h;
    const double up = evaluate_logits(o, b).value;
    b[s] -= 2 * h;
    const double down = evaluate_logits(o, b).value;
    b[s] += h;
    d[s] = (up - down) / (2 * h);
  }
  return d;
}

}  // namespace

TEST_CASE("dJ/db matches finite differences in all three models") {
  const std::vector<double> b = {0.3, -0.2, 1.1, 0.0, -0.7, 0.5, 0.9, -1.4};
  for (auto model :
       {RetentionModel::normalized, RetentionModel::linear, RetentionModel::channels}) {
    for (double beta : {4.5, 8.0}) {
      CAPTURE(to_string(model));
      CAPTURE(beta);
      auto o = v4_objective(beta, model);
      o.phase_weights = {0.1, 0.2, 0.3, 0.4};
      const auto exact = evaluate_logits(o, b).gradient;
      const auto difference = logit_differences(o, b);
      for (std::size_t s = 0; s < b.size(); ++s) {
        CHECK(exact[s] == doctest::Approx(difference[s]).epsilon(1e-6).scale(1e-9));
      }
    }
  }
}

TEST_CASE("J of a one-hot gate: one covered phase, chance elsewhere") {
  // Slot 7 is phase 3; its other slot (3) has u = 0 and still holds the needle, so that
  // phase succeeds with the two-entry P(u = 0, 1); the other phases are at chance.
  auto o = v4_objective(5.0, RetentionModel::normalized);
  const auto g = parse_gate("last", 8).weights;
  const double covered = success_probability(5.0, std::vector<double>{0.0, 1.0}, 32768);
  const double chance = success_probability(5.0, std::vector<double>{0.0, 0.0}, 32768);
  const auto value = evaluate_weights(o, g);
  CHECK(value.value == doctest::Approx((covered + 3 * chance) / 4).epsilon(1e-14));
  CHECK(chance == doctest::Approx(2.0 / 32768).epsilon(1e-9));
  // Linear model: the covered phase has c = 1, the others c = 0 (chance 1/N).
  o.model = RetentionModel::linear;
  const double linear = (linear_success(1.0, 5.0, 32768) + 3 * linear_success(0.0, 5.0, 32768)) / 4;
  CHECK(evaluate_weights(o, g).value == doctest::Approx(linear).epsilon(1e-14));
}

TEST_CASE("channel shares: dJ/dx matches finite differences in each share") {
  // The logit test above cannot see an error common to every dJ/dx_s (the softmax
  // projects it out); the sd term -dP/dsd / (2 sd) is checked here share by share.
  auto o = v4_objective(8.0, RetentionModel::channels);
  o.phase_weights = {0.1, 0.2, 0.3, 0.4};
  std::vector<double> x = {0.05, 0.1, 0.3, 0.02, 0.15, 0.2, 0.08, 0.1};
  const auto exact = evaluate_weights(o, x).gradient;
  const double h = 1e-6;
  for (std::size_t s = 0; s < x.size(); ++s) {
    CAPTURE(s);
    x[s] += h;
    const double up = evaluate_weights(o, x).value;
    x[s] -= 2 * h;
    const double down = evaluate_weights(o, x).value;
    x[s] += h;
    CHECK(exact[s] == doctest::Approx((up - down) / (2 * h)).epsilon(1e-6).scale(1e-9));
  }
}

TEST_CASE("channel shares: one-hot and equal-split gates in closed form") {
  // A one-hot share gives its entry the needle's full signal without noise: Phi(beta)^(N-1);
  // the phase's other slot, at share 0, is N(0, 1) but holds the needle too, and wins when
  // it is the largest of the N - 1 normal entries and above beta: (1 - Phi^(N-1)) / (N - 1).
  auto o = v4_objective(5.0, RetentionModel::channels);
  const auto onehot = evaluate_weights(o, parse_gate("last", 8).weights);
  const double all_below = std::pow(0.5 * std::erfc(-5.0 / std::sqrt(2.0)), 32767);
  CHECK(onehot.per_phase[3] == doctest::Approx(all_below + (1 - all_below) / 32767).epsilon(1e-9));
  CHECK(onehot.per_phase[0] == doctest::Approx(2.0 / 32768).epsilon(1e-9));
  // Shares 1/3 on slots 5, 6, 7 (phases 1, 2, 3): mean 12/3 and sd sqrt(2/3) there; the
  // law counts that entry alone against N - 1 distractors.
  o.beta = 12;
  const std::vector<double> split = {0, 0, 0, 0, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3};
  const NeedleEntry third{4.0, std::sqrt(2.0 / 3)};
  const std::vector<NeedleEntry> phase = {{0.0, 1.0}, third};
  CHECK(evaluate_weights(o, split).per_phase[1] ==
        doctest::Approx(needle_success(phase, 32766).probability).epsilon(1e-13));
  CHECK(equal_split_law(o).value[2] ==
        doctest::Approx(0.75 * needle_success(std::span(&third, 1), 32767).probability)
            .epsilon(1e-13));
}

TEST_CASE("J is invariant under relabelling phases with equal multiplicity") {
  // W = 8, S = 4: permuting phases (and their slots) permutes P(phi) and leaves J.
  const auto o = v4_objective(6.0, RetentionModel::normalized);
  const std::vector<double> g = {0.3, 0.1, 0.05, 0.05, 0.2, 0.1, 0.15, 0.05};
  const std::vector<double> shifted = {0.05, 0.3, 0.1, 0.05, 0.05, 0.2, 0.1, 0.15};  // phi+1
  const auto a = evaluate_weights(o, g), b = evaluate_weights(o, shifted);
  CHECK(a.value == doctest::Approx(b.value).epsilon(1e-13));
  CHECK(a.per_phase[0] == doctest::Approx(b.per_phase[1]).epsilon(1e-13));
}

TEST_CASE("objective and phase-weight validation messages") {
  auto o = v4_objective(4.5, RetentionModel::normalized);
  o.entries = 4;
  CHECK_THROWS_WITH_AS(o.validate(), "invalid --entries 4 (must be at least the window, 8)",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_retention_model("cubic"),
                       "invalid --model cubic (must be normalized, linear or channels)",
                       InputError);
  CHECK_THROWS_WITH_AS(normalized_phase_weights(std::vector<double>{1, 2}, 4),
                       "invalid --weights (has 2 values, one per phase needs 4)", InputError);
  CHECK_THROWS_WITH_AS(normalized_phase_weights(std::vector<double>{1, -2, 0, 0}, 4),
                       "invalid --weights -2 (each must be finite and >= 0)", InputError);
  CHECK_THROWS_WITH_AS(normalized_phase_weights(std::vector<double>{0, 0, 0, 0}, 4),
                       "invalid --weights (must not all be zero)", InputError);
  CHECK(normalized_phase_weights(std::vector<double>{1, 3, 0, 0}, 4) ==
        std::vector<double>{0.25, 0.75, 0, 0});
}

TEST_CASE("a memo keeps the quadrature's phases across evaluations: same J, fewer quadratures") {
  // best_onehot's W one-hot gates at W = 12, S = 4 (three slots a phase, the quadrature's):
  // with one memo they ask for 4 distinct phases ((1,0,0), (0,1,0), (0,0,1) and (0,0,0)), and
  // every J and gradient is bit for bit the one computed without it.
  auto o = v4_objective(5.0);
  o.geometry = {12, 4};
  SuccessMemo memo;
  for (int s = 0; s < 12; ++s) {
    std::vector<double> g(12, 0.0);
    g[static_cast<std::size_t>(s)] = 1;
    const auto kept = evaluate_weights(o, g, &memo);
    const auto fresh = evaluate_weights(o, g);
    CHECK(kept.value == fresh.value);
    CHECK(kept.per_phase == fresh.per_phase);
    CHECK(kept.gradient == fresh.gradient);
  }
  CHECK(memo.computed.size() == 4);
}

TEST_CASE("a search's evaluation leaves out phases of weight 0 and reads alike phases once") {
  // W = S = 8 (a table lookup a phase), a gate whose slots repeat their weights and phase weights
  // with zeros: the search's J and gradient are bit for bit those that compute every phase, the
  // phases of weight 0 are NaN, and every other phase is its own lookup, alike or not.
  auto search = tabled(v4_objective(5.0));
  search.geometry = {8, 8};
  search.phase_weights = {1, 0, 2, 0, 1, 1, 0, 3};
  CHECK_FALSE(search.every_phase);
  auto every = search;
  every.every_phase = true;
  const std::vector<double> g = {0.3, 0.3, 0.1, 0.1, 0.1, 0.05, 0.05, 0.0};
  const auto left_out = evaluate_weights(search, g);
  const auto full = evaluate_weights(every, g);
  CHECK(left_out.value == full.value);
  CHECK(left_out.gradient == full.gradient);
  const auto u = normalized_weights(gate_from_weights(g, "gate"));
  const auto phases = search.tables->phases(EntryLaw::normalized, search.beta, search.entries);
  for (std::size_t phi = 0; phi < 8; ++phi) {
    CAPTURE(phi);
    CHECK(full.per_phase[phi] == phases(std::vector<double>{std::min(u[phi], 1.0)}).probability);
    if (search.phase_weights[phi] == 0) {
      CHECK(std::isnan(left_out.per_phase[phi]));
    } else {
      CHECK(left_out.per_phase[phi] == full.per_phase[phi]);
    }
  }
}
