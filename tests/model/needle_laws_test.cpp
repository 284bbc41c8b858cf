// A needle's places and their laws (model/needle_laws.hpp; MODEL.md section 10).
#include "phasesim/model/needle_laws.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace phasesim;

namespace {

// The covariance of two places' noises: residual parts (per group r ~ N(0, (I - 11'/n) / w_G))
// plus the own part on the diagonal.
double covariance(const NeedleLaws& laws, std::size_t a, std::size_t b) {
  const auto& A = laws.places[a];
  const auto& B = laws.places[b];
  double sum = a == b ? A.sd * A.sd : 0.0;
  const auto ca = laws.residual(A);
  const auto cb = laws.residual(B);
  const int n = laws.tokens;
  for (int g = 0; g < laws.groups(); ++g) {
    const double scale2 = laws.group_scales[static_cast<std::size_t>(g)] *
                          laws.group_scales[static_cast<std::size_t>(g)];
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        const double cov = ((i == j ? 1.0 : 0.0) - 1.0 / n) * scale2;
        sum +=
            ca[static_cast<std::size_t>(g * n + i)] * cb[static_cast<std::size_t>(g * n + j)] * cov;
      }
    }
  }
  return sum;
}

}  // namespace

TEST_CASE("needle laws: one token gives the slot laws, one place per entry holding it") {
  const Geometry g{8, 4, 0};
  const auto gate = parse_gate("random:3", 8);
  const auto slot = slot_laws(gate, g, 0.5);
  const auto laws = needle_laws(g, gate, 0.5, 4.0, 1001, 1, 1000, 4000);
  REQUIRE(laws.places.size() == 2);  // m = W / S
  for (const auto& p : laws.places) {
    const auto s = static_cast<int>(1001 - g.position(p.where, 0));
    CHECK(p.mean == doctest::Approx(4.0 * slot[static_cast<std::size_t>(s)].u));
    CHECK(p.sd == doctest::Approx(slot[static_cast<std::size_t>(s)].sd));
    CHECK(laws.residual(p).empty());
  }
}

TEST_CASE(
    "needle laws: W = S = 2, uniform, n = 2: aligned one entry at u = 1, across two at u = 1/2") {
  const Geometry g{2, 2, 0};
  const auto gate = parse_gate("uniform", 2);
  const double beta = 3;
  const auto aligned = needle_laws(g, gate, 1, beta, 100, 2, 1000, 2000);
  REQUIRE(aligned.places.size() == 1);
  CHECK(aligned.places[0].mean == doctest::Approx(beta));
  CHECK(covariance(aligned, 0, 0) == doctest::Approx(0).epsilon(1e-12));
  const auto across = needle_laws(g, gate, 1, beta, 101, 2, 1000, 2000);
  REQUIRE(across.places.size() == 2);
  for (std::size_t a = 0; a < 2; ++a) {
    CHECK(across.places[a].mean == doctest::Approx(beta / 2));
    CHECK(covariance(across, a, a) == doctest::Approx(0.75));  // 1 - u^2
  }
  // -u_A u_B = -1/4, correlation -1/3 (MODEL.md section 10).
  CHECK(covariance(across, 0, 1) == doctest::Approx(-0.25));
}

TEST_CASE("needle laws: variance 1 - u^2 for one gate, -u_A u_B across disjoint tokens") {
  const Geometry g{4, 4, 0};
  const auto gate = parse_gate("weights:1,2,3,4", 4);
  const int n = 5;
  const auto laws = needle_laws(g, gate, 1, 2.0, 102, n, 1000, 5000);  // 102..106: entries 25, 26
  REQUIRE(laws.places.size() == 2);
  double norm2 = 0;
  for (double w : gate.weights) norm2 += w * w;
  std::vector<double> u;
  for (const auto& p : laws.places) {
    double sum = 0;
    for (int s = 0; s < 4; ++s) {
      const auto t = g.position(p.where, s);
      if (t >= 102 && t < 102 + n) sum += gate.weights[static_cast<std::size_t>(s)];
    }
    u.push_back(sum / std::sqrt(n * norm2));
    CHECK(p.mean == doctest::Approx(2.0 * u.back()));
  }
  CHECK(covariance(laws, 0, 0) == doctest::Approx(1 - u[0] * u[0]));
  CHECK(covariance(laws, 1, 1) == doctest::Approx(1 - u[1] * u[1]));
  CHECK(covariance(laws, 0, 1) == doctest::Approx(-u[0] * u[1]));
}

TEST_CASE("needle laws: raw tokens of the window, and only visible entries") {
  const Geometry g{4, 4, 0};
  const auto gate = parse_gate("uniform", 4);
  // Context 1000: entries 0..249 complete; the window reads from 990.
  const auto laws = needle_laws(g, gate, 1, 3.0, 994, 3, 249, 995);
  // Entry 248 holds 994 and 995 (992..995), 249 would hold 996 but is not visible.
  REQUIRE(laws.entries() == 1);
  CHECK(laws.places[0].where == 248);
  REQUIRE(laws.places.size() == 3);  // tokens 995 and 996 read raw
  for (std::size_t x = 1; x < 3; ++x) {
    CHECK(laws.places[x].raw);
    CHECK(laws.places[x].mean == doctest::Approx(3.0 / std::sqrt(3.0)));
    CHECK(covariance(laws, x, x) == doctest::Approx(1 - 1.0 / 3));
  }
}

TEST_CASE("needle laws: channel groups give the per-channel slot law's variance 1 - v") {
  const Geometry g{4, 4, 0};
  const auto gate = parse_gate("channels:onehot:3=0.25|uniform=0.75", 4);
  const auto slot = slot_laws(gate);
  const auto one = needle_laws(g, gate, 1, 2.0, 103, 1, 1000, 5000);
  REQUIRE(one.places.size() == 1);
  CHECK(one.places[0].sd == doctest::Approx(slot[3].sd));
  // Two tokens in one entry (slots 2 and 3): variance 1 - sum_{s,s'} M(s, s') / (n nrm^2).
  const auto two = needle_laws(g, gate, 1, 2.0, 102, 2, 1000, 5000);
  REQUIRE(two.places.size() == 1);
  double norm2 = 0, cross = 0;
  for (const auto& group : gate.channels) {
    for (double w : group.weights) norm2 += group.share * w * w;
    const double a = group.weights[2], b = group.weights[3];
    cross += group.share * (a + b) * (a + b);
  }
  CHECK(covariance(two, 0, 0) == doctest::Approx(1 - cross / (2 * norm2)));
}
