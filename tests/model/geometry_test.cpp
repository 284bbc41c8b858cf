#include "phasesim/model/geometry.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "phasesim/core/error.hpp"
#include "phasesim/model/coverage.hpp"

using namespace phasesim;

namespace {

// The definition, by brute force: every (entry, slot) among the first n entries that pools
// position t (MODEL.md section 2: t(j, s) = jS + S - W + s + o).
std::vector<std::pair<std::int64_t, int>> holding_slots(const Geometry& g, std::int64_t t,
                                                        std::int64_t n) {
  std::vector<std::pair<std::int64_t, int>> found;
  for (std::int64_t j = 0; j < n; ++j) {
    for (int s = 0; s < g.window; ++s) {
      if (g.position(j, s) == t) found.emplace_back(j, s);
    }
  }
  return found;
}

std::int64_t count(const EntryRange& range) {
  return std::max<std::int64_t>(0, range.last - range.first + 1);
}

}  // namespace

TEST_CASE("slots_of_phase: the slots whose phase_of_slot is phi, in order, at every offset") {
  for (int W = 1; W <= 12; ++W) {
    for (int S = 1; S <= 12; ++S) {
      for (int o = 0; o < S; ++o) {
        const Geometry g{W, S, o};
        for (int phi = 0; phi < S; ++phi) {
          std::vector<int> scanned;
          for (int s = 0; s < W; ++s) {
            if (g.phase_of_slot(s) == phi) scanned.push_back(s);
          }
          CHECK(g.slots_of_phase(phi) == scanned);
        }
        CHECK(g.slots_of_phase(S).empty());
      }
    }
  }
}

TEST_CASE("geometry invariants hold for every 1 <= W, S <= 16") {
  for (int W = 1; W <= 16; ++W) {
    for (int S = 1; S <= 16; ++S) {
      const Geometry g{W, S};
      CAPTURE(W);
      CAPTURE(S);
      int total = 0;
      for (int phi = 0; phi < S; ++phi) {
        const int m = g.multiplicity(phi);
        CHECK(m == static_cast<int>(g.slots_of_phase(phi).size()));
        CHECK((m == W / S || m == (W + S - 1) / S));
        total += m;
      }
      CHECK(total == W);  // multiplicities sum to W

      // Each interior position lies in exactly m_phi entries, at slots of its phase.
      const std::int64_t entries = 64;
      for (std::int64_t t = 2 * W; t < 2 * W + 2 * S; ++t) {
        const int phi = g.phase_of_position(t);
        const auto range = g.entries_holding(t, entries);
        CHECK(count(range) == g.multiplicity(phi));
        for (auto j = range.first; j <= range.last; ++j) {
          CHECK(g.phase_of_slot(static_cast<int>(t - g.position(j, 0))) == phi);
        }
      }

      // Coverage of any gate sums to 1 over phases.
      std::vector<double> w(static_cast<std::size_t>(W));
      std::iota(w.begin(), w.end(), 1.0);
      const auto phases = phase_coverage(g, gate_from_weights(w, "ramp"));
      double coverage = 0;
      for (const auto& p : phases) coverage += p.coverage;
      CHECK(coverage == doctest::Approx(1.0).epsilon(1e-14));
    }
  }
}

TEST_CASE("V4 geometry W=8, S=4: entry j pools the previous and the current chunk") {
  const Geometry g{8, 4};
  CHECK(g.position(0, 0) == -4);
  CHECK(g.position(0, 7) == 3);
  CHECK(g.position(1, 0) == 0);
  CHECK(g.first_existing_slot(0) == 4);
  CHECK(g.first_existing_slot(1) == 0);
  CHECK(g.phase_of_slot(7) == 3);  // the last slot is the newest token, phase S-1
  CHECK(g.slots_of_phase(3) == std::vector<int>{3, 7});
  CHECK(g.entries_before(131072) == 32768);
}

TEST_CASE("W < S leaves structurally blind phases") {
  const Geometry g{2, 4};
  CHECK(g.multiplicity(0) == 0);
  CHECK(g.multiplicity(1) == 0);
  CHECK(g.slots_of_phase(2) == std::vector<int>{0});
  CHECK(g.slots_of_phase(3) == std::vector<int>{1});
  CHECK(count(g.entries_holding(100, 1000)) == 0);  // phase 0
  CHECK(count(g.entries_holding(103, 1000)) == 1);
}

TEST_CASE("entries near the ends: only existing entries are listed") {
  const Geometry g{8, 4};
  // Position 1 (phase 1) is in entries 0 (slot 5) and 1 (slot 1).
  const auto range = g.entries_holding(1, 100);
  CHECK(range.first == 0);
  CHECK(range.last == 1);
  CHECK(g.position(0, 5) == 1);
  CHECK(g.position(1, 1) == 1);
  // Entry 25 would hold position 99 at slot 3 but only 25 entries exist (0..24): entry 24
  // alone holds it, at slot 7.
  CHECK(count(g.entries_holding(99, 25)) == 1);
  CHECK(holding_slots(g, 99, 25) == std::vector<std::pair<std::int64_t, int>>{{24, 7}});
}

TEST_CASE("offsets shift entry boundaries, not phases") {
  for (int W = 1; W <= 9; ++W) {
    for (int S = 1; S <= 9; ++S) {
      for (int o = 0; o < S; ++o) {
        const Geometry g{W, S, o};
        const Geometry plain{W, S};
        CAPTURE(W);
        CAPTURE(S);
        CAPTURE(o);
        for (int phi = 0; phi < S; ++phi) {
          CHECK(g.multiplicity(phi) == plain.multiplicity((phi - o + S) % S));
        }
        for (std::int64_t j = 0; j < 4; ++j) {
          CHECK(g.position(j, 0) == plain.position(j, 0) + o);
          CHECK(g.first_existing_slot(j) == std::max<std::int64_t>(0, -g.position(j, 0)));
        }
        // Entry N_c - 1 is the last whose window ends before the query at L.
        const std::int64_t L = 5 * W + 3 * S + 1;
        const auto n = g.entries_before(L);
        CHECK(g.position(n - 1, W - 1) <= L - 1);
        CHECK(g.position(n, W - 1) > L - 1);
        for (std::int64_t t = 3 * W + 2 * S; t < 3 * W + 3 * S; ++t) {
          CHECK(count(g.entries_holding(t, n)) == g.multiplicity(g.phase_of_position(t)));
        }
      }
    }
  }
  const Geometry g{8, 8, 3};  // entry j pools 8j + 3 .. 8j + 10
  CHECK(g.position(0, 0) == 3);
  CHECK(g.phase_of_slot(7) == 2);
  CHECK(g.slots_of_phase(3) == std::vector<int>{0});
  CHECK(g.entries_before(100) == 12);
  CHECK(g.entries_before(2) == 0);
}

TEST_CASE("which entries hold a position: holds, entries_holding and interior, offsets included") {
  // Against the definition, by brute force.
  for (int W = 1; W <= 9; ++W) {
    for (int S = 1; S <= 9; ++S) {
      for (int o = 0; o < S; ++o) {
        const Geometry g{W, S, o};
        CAPTURE(W);
        CAPTURE(S);
        CAPTURE(o);
        const std::int64_t n = 12;  // few entries: positions past the last one hold fewer
        for (std::int64_t p = -S; p < n * S + W; ++p) {
          std::vector<std::int64_t> expected;
          for (const auto& e : holding_slots(g, p, n)) expected.push_back(e.first);
          std::vector<std::int64_t> held;
          for (std::int64_t j = -1; j <= n; ++j) {
            if (g.holds(j, p) && j < n) held.push_back(j);
          }
          CHECK(held == expected);
          const auto range = g.entries_holding(p, n);
          std::vector<std::int64_t> in_range;
          for (auto j = range.first; j <= range.last; ++j) in_range.push_back(j);
          CHECK(in_range == expected);
        }
        // Interior needles: every entry that holds them exists with all its slots at
        // positions >= 0, and the range is as wide as that allows.
        const auto interior = g.interior(n);
        for (auto p = interior.first; p <= interior.last; ++p) {
          const auto range = g.entries_holding(p, n);
          CHECK(range.last - range.first + 1 == g.multiplicity(g.phase_of_position(p)));
          if (range.last >= range.first) CHECK(g.first_existing_slot(range.first) == 0);
          CHECK(g.entries_holding(p, n + 10).last == range.last);  // all written before L
        }
      }
    }
  }
}

TEST_CASE("validation messages") {
  CHECK_THROWS_WITH_AS((Geometry{0, 4}.validate()), "invalid --window 0 (must be at least 1)",
                       InputError);
  CHECK_THROWS_WITH_AS((Geometry{8, -1}.validate()), "invalid --stride -1 (must be at least 1)",
                       InputError);
  CHECK_THROWS_WITH_AS((Geometry{8, 4, 4}.validate()),
                       "invalid --offset 4 (must be in [0, 4), below the stride)", InputError);
}
