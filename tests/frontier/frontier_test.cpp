// The frontier's dominance, its design files, and a small space whose answer is worked out
// by hand.
#include "phasesim/frontier/frontier.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "phasesim/core/error.hpp"
#include "support/niah_fixture.hpp"

using namespace phasesim;
using frontier::Point;

TEST_CASE("frontier: dominance by hand, with and without a weight") {
  // kv, read, worst, mean. a: cheap and poor; b: dear and good; c: b's cost, a's quality
  // (dominated by b); d: a's cost, worse worst, better mean (neither a nor d dominates);
  // e: equal to a (not dominated: equal is not better).
  const std::vector<Point> points{{1, 10, 0.5, 0.6},
                                  {2, 20, 0.9, 0.9},
                                  {2, 20, 0.5, 0.6},
                                  {1, 10, 0.4, 0.7},
                                  {1, 10, 0.5, 0.6}};
  CHECK(frontier::dominates(points[1], points[2], std::nullopt));
  CHECK(!frontier::dominates(points[0], points[4], std::nullopt));
  CHECK(frontier::pareto_front(points, std::nullopt) ==
        std::vector<bool>{true, true, false, true, true});
  // weight 1: the mean alone; d (mean 0.7) now beats a and e (0.6) at the same cost.
  CHECK(frontier::pareto_front(points, 1.0) == std::vector<bool>{false, true, false, true, false});
  // weight 0: the worst alone; a and e (0.5) beat d (0.4).
  CHECK(frontier::pareto_front(points, 0.0) == std::vector<bool>{true, true, false, false, true});
}

TEST_CASE("frontier: a design's file parses back to the design") {
  const frontier::Design d{4, 8, "spread", 2, 512, 128};
  CHECK(d.name() == "s4-w8-spread-h2-k512-sw128");
  const auto arch = niah::parse_architecture(frontier::design_toml(d, {"a header"}), d.name());
  REQUIRE(arch.heads.size() == 2);
  CHECK(arch.heads[1].geometry.window == 8);
  CHECK(arch.heads[1].geometry.stride == 4);
  CHECK(arch.heads[1].geometry.offset == 2);  // two caches spread over a stride of 4
  CHECK(arch.heads[0].read_path.top_k == 512);
  CHECK(arch.heads[0].read_path.sliding_window == 128);
  CHECK(frontier::designs({{4, 8}, {1, 2}, {"uniform"}, {1}, {0}, {0}}).size() == 4);
}

namespace {

frontier::FrontierSpec small_space() {
  // W = S = 4 at 2048 entries and beta 9: the uniform gate reads every phase at u = 1/2
  // (beta u = 4.5, above the ~3.4 the largest of 2048 normals sits at); `last` reads phase 3
  // at u = 1 and the others not at all. So uniform beats last at one cost (worst and mean:
  // last's mean is about 1/4), two uniform caches beat one in quality at twice the cost,
  // and two `last` caches (phases 1 and 3) cost what two uniform caches cost and read two
  // phases at chance: the frontier is uniform with one cache and with two, nothing else.
  frontier::FrontierSpec spec;
  spec.space = {{4}, {1}, {"uniform", "last"}, {1, 2}, {0}, {0}};
  spec.model.beta = 9;
  spec.model.context = 8192;
  spec.presets = false;
  return spec;
}

}  // namespace

TEST_CASE("frontier: a small space, every dominated design dropped and no frontier row beaten") {
  const auto& engines = test::shipped_engines();
  const auto plan = frontier::prepare_frontier(small_space(), engines, 1);
  const auto result = frontier::run_frontier(plan, Parallel{1});
  REQUIRE(result.rows.size() == 4);
  std::vector<std::string> names;
  for (const auto f : result.frontier) names.push_back(plan.candidates[f].name);
  CHECK(names ==
        std::vector<std::string>{"s4-w4-uniform-h1-kall-sw0", "s4-w4-uniform-h2-kall-sw0"});
  for (const auto& row : result.rows) {
    CHECK(plan.candidates[row.candidate].plan.engine().name() == "analytic");
    // 2048 entries a cache (2047 for the one whose boundaries are shifted by 2).
    const int caches = plan.candidates[row.candidate].design->heads;
    CHECK(row.read_entries == 2048.0 * caches - (caches - 1));
    const bool on = std::find(result.frontier.begin(), result.frontier.end(), row.candidate) !=
                    result.frontier.end();
    CHECK(row.on_frontier == on);
    CHECK(on == row.dominated_by.empty());
  }
  // Why, in numbers: uniform's worst above last's, and its mean too.
  CHECK(result.rows[0].summary.worst > result.rows[2].summary.worst);
  CHECK(result.rows[0].summary.mean > result.rows[2].summary.mean);
  CHECK(result.rows[2].dominated_by == "s4-w4-uniform-h1-kall-sw0");
  CHECK(result.rows[3].dominated_by == "s4-w4-uniform-h1-kall-sw0");
  // A floor above one cache's worst phase leaves the two-cache design alone.
  auto floored = small_space();
  floored.floor = (result.rows[0].summary.worst + result.rows[1].summary.worst) / 2;
  const auto high =
      frontier::run_frontier(frontier::prepare_frontier(floored, engines, 1), Parallel{1});
  REQUIRE(high.frontier.size() == 1);
  CHECK(high.frontier[0] == 1);
  CHECK(high.rows[0].below_floor);
}

TEST_CASE("frontier: bad spaces are refused before any work") {
  const auto& engines = test::shipped_engines();
  const auto refused = [&](auto change, const std::string& message) {
    auto spec = small_space();
    change(spec);
    CHECK_THROWS_WITH_AS(frontier::prepare_frontier(spec, engines, 1), message.c_str(), InputError);
  };
  refused([](auto& s) { s.space.ratios.clear(); },
          "invalid --ratios (must list at least one value)");
  refused([](auto& s) { s.space.ratios = {0}; }, "invalid --ratios 0 (must be in [1, 65536])");
  refused([](auto& s) { s.space.top_k = {-1}; }, "invalid --top-k -1 (must be in [0, 16777216])");
  refused([](auto& s) { s.floor = 1.5; }, "invalid --floor 1.5 (must be in [0, 1])");
  refused([](auto& s) { s.space.ratios = std::vector<std::int64_t>(4097, 4); },
          "invalid design space: more than 4096 designs (the product of the lists' lengths; "
          "narrow one)");
}
