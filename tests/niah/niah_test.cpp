// The engine-agnostic parts of niah: needle placement, combining heads, estimates.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "phasesim/niah/combine.hpp"
#include "phasesim/niah/needle.hpp"

using namespace phasesim;
using namespace phasesim::niah;

TEST_CASE("needles: every group draws from the same interior blocks") {
  const Geometry g{8, 4};
  const auto plan = plan_needles(g, 1000, 6, 50);
  CHECK(plan.first_block == 2);                    // ceil(W / G): p >= W
  CHECK(plan.last_position(5) <= 250 * 4 - 8);     // p <= N_c S - W
  CHECK(plan.last_position(5) + 6 > 250 * 4 - 8);  // the range is as wide as it can be
  std::set<std::int64_t> blocks;
  for (std::uint32_t trial = 0; trial < plan.trials(); ++trial) {
    const auto p = plan.position(3, trial);
    const int group = plan.group_of(trial);
    CHECK(group == static_cast<int>(trial / 50));
    CHECK(p % 6 == group);
    CHECK(p >= plan.first_position(group));
    CHECK(p <= plan.last_position(group));
    blocks.insert(p / 6);
  }
  CHECK(blocks.size() > 100);  // spread over the range, not a few positions
}

TEST_CASE("needles: position classes follow k*G + r mod M, also when M does not divide G") {
  const Geometry g{8, 4};
  const auto plan = plan_needles(g, 1000, 6, 1);
  for (const std::int64_t modulus : {4, 20, 7 * 4 * 5}) {
    for (int r = 0; r < 6; ++r) {
      CAPTURE(modulus);
      CAPTURE(r);
      std::map<std::int64_t, std::int64_t> expected;  // class -> count, by class
      for (std::int64_t k = 0; k < plan.block_count; ++k) {
        ++expected[((plan.first_block + k) * 6 + r) % modulus];
      }
      std::map<std::int64_t, std::int64_t> found;
      std::int64_t previous = -1;
      for (const auto& c : position_classes(plan, modulus, r)) {
        CHECK(c.position % 6 == r);
        CHECK(c.position % modulus > previous);  // increasing class
        previous = c.position % modulus;
        found[c.position % modulus] = c.count;
      }
      CHECK(found == expected);
    }
  }
}

TEST_CASE("needles: the shortest context holds exactly one block") {
  const Geometry g{8, 4};
  const auto plan = plan_needles(g, 24, 8, 1);
  CHECK(plan.block_count == 1);
  CHECK_THROWS_WITH(plan_needles(g, 23, 8, 1),
                    "invalid --context 23 (must be at least 24 for --window 8, --stride 4 and "
                    "--groups 8)");
}

TEST_CASE("combine: any and vote:K, with and without an excluded head") {
  const auto any = parse_combine("any", 3);
  const auto two = parse_combine("vote:2", 3);
  const std::uint8_t row[3] = {1, 0, 1};
  CHECK(combine_outcomes(row, any));
  CHECK(combine_outcomes(row, two));
  CHECK_FALSE(combine_outcomes(row, two, 0));
  CHECK(combine_outcomes(row, any, 2));
  const std::uint8_t none[3] = {0, 0, 0};
  CHECK_FALSE(combine_outcomes(none, any));
}

TEST_CASE("combine: exact probabilities equal enumeration over all outcomes") {
  const std::vector<double> p = {0.9, 0.25, 0.6, 0.05};
  for (int votes = 1; votes <= 4; ++votes) {
    const auto rule = parse_combine(votes == 1 ? "any" : "vote:" + std::to_string(votes), 4);
    for (int excluded = -1; excluded < 4; ++excluded) {
      double expected = 0;
      for (int mask = 0; mask < 16; ++mask) {
        double weight = 1;
        int count = 0;
        for (int h = 0; h < 4; ++h) {
          if (h == excluded) continue;
          const bool hit = (mask >> h & 1) != 0;
          weight *= hit ? p[static_cast<std::size_t>(h)] : 1 - p[static_cast<std::size_t>(h)];
          count += hit ? 1 : 0;
        }
        if (excluded >= 0 && (mask >> excluded & 1) != 0) continue;
        if (count >= votes) expected += weight;
      }
      CHECK(combine_probabilities(p, rule, excluded) == doctest::Approx(expected).epsilon(1e-14));
    }
  }
}

TEST_CASE("combine: query heads of one cache retrieve together, one outcome worth their votes") {
  // Heads 0, 1 and 2 read one cache (p 0.3 each, together), head 3 its own (p 0.5); the
  // enumeration is over the two independent outcomes.
  const std::vector<double> p = {0.3, 0.3, 0.3, 0.5};
  const std::vector<int> caches = {0, 0, 0, 3};
  for (int votes = 1; votes <= 4; ++votes) {
    const auto rule = parse_combine(votes == 1 ? "any" : "vote:" + std::to_string(votes), 4);
    for (int excluded = -1; excluded < 4; ++excluded) {
      const int shared = 3 - (excluded >= 0 && excluded < 3 ? 1 : 0);
      const int own = excluded == 3 ? 0 : 1;
      double expected = 0;
      for (int mask = 0; mask < 4; ++mask) {
        const bool cache = (mask & 1) != 0, head = (mask & 2) != 0;
        const double weight = (cache ? 0.3 : 0.7) * (head ? 0.5 : 0.5);
        if ((cache ? shared : 0) + (head ? own : 0) >= votes) expected += weight;
      }
      CAPTURE(votes);
      CAPTURE(excluded);
      CHECK(combine_probabilities(p, rule, excluded, caches) ==
            doctest::Approx(expected).epsilon(1e-14));
    }
  }
  // Without groups, as before: the same numbers as independent heads, bit for bit.
  const auto rule = parse_combine("vote:2", 4);
  CHECK(combine_probabilities(p, rule, -1, std::vector<int>{0, 1, 2, 3}) ==
        combine_probabilities(p, rule));
}

TEST_CASE("combine: parse errors") {
  CHECK_THROWS_WITH(parse_combine("all", 2), "invalid --combine all (use any or vote:K)");
  CHECK_THROWS_WITH(parse_combine("vote:x", 2), "invalid --combine vote:x (use any or vote:K)");
  CHECK_THROWS_WITH(parse_combine("vote:0", 2), "invalid --combine vote:0 (K must be at least 1)");
  CHECK_THROWS_WITH(parse_combine("vote:3", 2),
                    "invalid --combine vote:3 (K must be at most the number of heads, 2)");
}
