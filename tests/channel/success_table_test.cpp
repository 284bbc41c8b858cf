// The success table (phasesim/channel/success_table.hpp) against the channel's quadrature, at
// the accuracy its header states, and its lazy build's independence of the order of queries.
#include "phasesim/channel/success_table.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "phasesim/channel/channel.hpp"

using namespace phasesim::channel;

namespace {

// Points of the domain of m coordinates: the corners and edges where the channel has its
// limits (u = 0, u = 1, one slot empty) and a fixed low-discrepancy spread inside.
std::vector<std::vector<double>> domain_points(EntryLaw law, int m) {
  std::vector<std::vector<double>> points;
  if (m == 1) {
    for (double x : {0.0, 1e-9, 0.31, 0.5773, 0.86, 0.9993, 1.0}) points.push_back({x});
    return points;
  }
  const double edge = law == EntryLaw::normalized ? std::sqrt(0.5) : 0.5;
  points = {{0, 0}, {1, 0}, {0, 0.999}, {edge, edge}};
  for (int i = 1; i <= 4; ++i) {
    const double a = std::fmod(0.618034 * i, 1.0), b = std::fmod(0.754878 * i, 1.0);
    const double room = law == EntryLaw::normalized ? std::sqrt(1 - a * a) : 1 - a;
    points.push_back({a, b * room});
  }
  return points;
}

}  // namespace

TEST_CASE("success table: within kAccuracy of the quadrature, every law, 1 and 2 coordinates") {
  struct Law {
    EntryLaw law;
    int m;
  };
  double worst = 0, worst_slope = 0;
  for (const Law c :
       {Law{EntryLaw::normalized, 1}, Law{EntryLaw::normalized, 2}, Law{EntryLaw::shares, 1},
        Law{EntryLaw::shares, 2}, Law{EntryLaw::linear, 1}}) {
    for (double beta : {0.0, 3.0, 6.0, 12.0, 40.0}) {
      for (std::int64_t entries : {8, 1024, 32768, 1000000}) {
        const SuccessTable table(c.law, beta, entries, c.m);
        for (const auto& x : domain_points(c.law, c.m)) {
          CAPTURE(beta);
          CAPTURE(entries);
          const auto value = table(x);
          REQUIRE(value.has_value());
          const auto exact = law_success_gradient(c.law, beta, entries, x);
          worst = std::max(worst, std::abs(value->probability - exact.probability));
          // The slope at x = 1 differs from the quadrature's one-sided convention for shares
          // (which leaves out a term there), and is not checked at that single point.
          for (std::size_t s = 0; s < x.size(); ++s) {
            if (c.law == EntryLaw::shares && x[s] == 1) continue;
            worst_slope = std::max(worst_slope, std::abs(value->d_u[s] - exact.d_u[s]));
          }
        }
      }
    }
  }
  MESSAGE("largest error " << worst << ", of a slope " << worst_slope);
  CHECK(worst < SuccessTable::kAccuracy);
  CHECK(worst_slope < 1e-6);
}

TEST_CASE("success table: the same values whatever order its patches were built in") {
  const SuccessTable forward(EntryLaw::normalized, 6, 32768, 2);
  const SuccessTable backward(EntryLaw::normalized, 6, 32768, 2);
  auto points = domain_points(EntryLaw::normalized, 2);
  std::vector<SuccessGradient> first;
  for (const auto& x : points) first.push_back(*forward(x));
  for (std::size_t i = points.size(); i-- > 0;) {
    const auto again = *backward(points[i]);
    CHECK(again.probability == first[i].probability);
    CHECK(again.d_u == first[i].d_u);
  }
  CHECK(forward.patches() == backward.patches());
}

TEST_CASE("success table: lookup writes what operator() returns, nothing where it cannot") {
  for (int m : {1, 2}) {
    const SuccessTable table(EntryLaw::normalized, 6, 32768, m);
    for (const auto& x : domain_points(EntryLaw::normalized, m)) {
      const auto value = *table(x);
      double probability = -1;
      std::vector<double> slope(x.size(), -1.0);
      REQUIRE(table.lookup(x, probability, slope));
      CHECK(probability == value.probability);
      CHECK(slope == value.d_u);
    }
  }
  const SuccessTable table(EntryLaw::normalized, 6, 32768, 2);
  double probability = -1;
  std::vector<double> slope{-1.0, -1.0};
  CHECK_FALSE(table.lookup(std::vector<double>{0.9, 0.8}, probability, slope));
  CHECK(probability == -1);
  CHECK(slope == std::vector<double>{-1.0, -1.0});
  // The phases' two forms agree, the rule's (three coordinates) included.
  SuccessTables tables;
  const auto phases = tables.phases(EntryLaw::normalized, 6, 32768);
  for (const auto& x : {std::vector<double>{0.6}, std::vector<double>{0.6, 0.7},
                        std::vector<double>{0.2, 0.3, 0.4}}) {
    const auto value = phases(x);
    std::vector<double> into(x.size(), -1.0);
    CHECK(phases(x, into) == value.probability);
    CHECK(into == value.d_u);
  }
}

TEST_CASE("success tables: outside the table's domain, the quadrature") {
  SuccessTables tables;
  // Two coordinates of different gates (content noise) may leave u_1^2 + u_2^2 <= 1: the
  // quadrature's, bit for bit (three slots a phase: success_rule_test.cpp).
  for (const auto& x : {std::vector<double>{0.9, 0.8}}) {
    CHECK_FALSE(tables.table(EntryLaw::normalized, 6, 32768, 2).covers(x));
    const auto value = tables.success(EntryLaw::normalized, 6, 32768, x);
    const auto exact = law_success_gradient(EntryLaw::normalized, 6, 32768, x);
    CHECK(value.probability == exact.probability);
    CHECK(value.d_u == exact.d_u);
  }
  // Inside, the table's value, within its accuracy.
  const std::vector<double> x{0.6, 0.7};
  CHECK(std::abs(tables.success(EntryLaw::normalized, 6, 32768, x).probability -
                 success_probability(6, x, 32768)) < SuccessTable::kAccuracy);
  // No distractors: every needle is found.
  CHECK(tables.success(EntryLaw::normalized, 6, 2, x).probability == 1);
}

TEST_CASE("success table: bad parameters are refused by name") {
  CHECK_THROWS_WITH(SuccessTable(EntryLaw::normalized, -1, 1024, 1),
                    "invalid --beta -1 (must be finite and >= 0)");
  CHECK_THROWS_WITH(SuccessTable(EntryLaw::normalized, 6, 1, 2),
                    "invalid --entries 1 (must be at least the number of needle entries, 2)");
  CHECK_THROWS_WITH(SuccessTable(EntryLaw::normalized, 6, 1024, 3),
                    "invalid success table multiplicity 3 (must be 1 or 2)");
}
