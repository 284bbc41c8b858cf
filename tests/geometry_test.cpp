#include "phasesim/model/geometry.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "phasesim/core/error.hpp"
#include "phasesim/model/coverage.hpp"

using namespace phasesim;

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
        const auto found = entries_containing(g, t, entries);
        CHECK(static_cast<int>(found.size()) == g.multiplicity(phi));
        for (const auto& [j, s] : found) {
          CHECK(g.position(j, s) == t);
          CHECK(g.phase_of_slot(s) == phi);
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
  CHECK(entries_containing(g, 100, 1000).empty());  // phase 0
  CHECK(entries_containing(g, 103, 1000).size() == 1);
}

TEST_CASE("entries near the ends: only existing entries are listed") {
  const Geometry g{8, 4};
  // Position 1 (phase 1) is in entries 0 (slot 5) and 1 (slot 1).
  const auto found = entries_containing(g, 1, 100);
  REQUIRE(found.size() == 2);
  CHECK(found[0].entry == 1);
  CHECK(found[0].slot == 1);
  CHECK(found[1].entry == 0);
  CHECK(found[1].slot == 5);
  // Entry 25 would hold position 99 at slot 7 but only 25 entries exist (0..24).
  CHECK(entries_containing(g, 99, 25).size() == 1);
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
          const auto found = entries_containing(g, t, n);
          CHECK(static_cast<int>(found.size()) == g.multiplicity(g.phase_of_position(t)));
          for (const auto& [j, s] : found) CHECK(g.position(j, s) == t);
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

TEST_CASE("validation messages") {
  CHECK_THROWS_WITH_AS((Geometry{0, 4}.validate()), "invalid --window 0 (must be at least 1)",
                       InputError);
  CHECK_THROWS_WITH_AS((Geometry{8, -1}.validate()), "invalid --stride -1 (must be at least 1)",
                       InputError);
  CHECK_THROWS_WITH_AS((Geometry{8, 4, 4}.validate()),
                       "invalid offset 4 (must be in [0, 4), below the stride)", InputError);
}
