// PooledFrame: entries pooled in a small frame have the law of entries pooled in all D
// dimensions. Closed forms for Gaussian vectors R_j = sum_s w_s r_{t(j,s)} with iid
// r_t ~ N(0, I_D): E|R_j|^2 = D |w|^2, and neighbours that share tokens (rho = sum_s w_s w_{s+S})
// have E[|R_j|^2 |R_{j+1}|^2] = D^2 |w|^4 + 2 D rho^2, which a frame that lost the shared
// directions would miss. Checked within 5 standard errors over independent scans.
#include "phasesim/engines/pooled_frame.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "phasesim/core/random.hpp"

using namespace phasesim;
using namespace phasesim::engines;

namespace {

struct Scan {
  int space;              ///< D
  int stride;             ///< S
  std::vector<double> w;  ///< W weights
  int compresses = 0;     ///< frames compressed because they were full (boundary)
};

// |R_j|^2 of entries `first` and `first + 1` of one scan (entry j pools positions jS..jS+W-1),
// positions drawn into the frame as the fast engine draws them: coordinates iid N(0, 1) and the
// remainder's squared length a sum of D - k squared normals.
std::pair<double, double> scan_pair(Scan& scan, std::uint32_t trial, int first) {
  const int W = static_cast<int>(scan.w.size()), S = scan.stride;
  const int max_open = (W + S - 1) / S;
  PooledFrame frame(scan.space, std::min(scan.space, max_open + S - 1), max_open);
  const RandomStream normals(3, trial, 0, Stream::token);
  std::vector<double> z(static_cast<std::size_t>(scan.space)), weights(max_open);
  std::vector<double> squared;
  int opened = 0;
  for (int p = 0; static_cast<int>(squared.size()) < first + 2; ++p) {
    if (frame.full()) {
      frame.compress();
      ++scan.compresses;
    }
    if (p % S == 0) {
      frame.open();
      ++opened;
    }
    const int oldest = opened - frame.open_entries();
    for (int i = 0; i < frame.open_entries(); ++i) weights[i] = scan.w[p - (oldest + i) * S];
    const int k = frame.dimension();
    double remainder = 0;
    for (int c = 0; c < scan.space; ++c) {
      const double x = normals.normal(static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(c));
      if (c < k) z[c] = x;
      if (c >= k) remainder += x * x;
    }
    frame.add(weights.data(), 0, z.data(), std::sqrt(remainder));
    if (p - oldest * S == W - 1) {
      squared.push_back(frame.close_oldest().across_squared);
      frame.compress();
    }
  }
  return {squared[first], squared[first + 1]};
}

void check_moments(Scan scan, int scans) {
  const int W = static_cast<int>(scan.w.size());
  double norm2 = 0, rho = 0;
  for (int s = 0; s < W; ++s) norm2 += scan.w[s] * scan.w[s];
  for (int s = 0; s + scan.stride < W; ++s) rho += scan.w[s] * scan.w[s + scan.stride];
  const double D = scan.space;
  const double expected[] = {D * norm2, D * D * norm2 * norm2 + 2 * D * rho * rho};
  std::vector<double> sums(2), squares(2);
  for (int i = 0; i < scans; ++i) {
    const auto [a, b] = scan_pair(scan, static_cast<std::uint32_t>(i), 3);
    const double values[] = {a, a * b};
    for (int m = 0; m < 2; ++m) {
      sums[m] += values[m];
      squares[m] += values[m] * values[m];
    }
  }
  for (int m = 0; m < 2; ++m) {
    CAPTURE(m);
    const double mean = sums[m] / scans;
    const double se = std::sqrt((squares[m] / scans - mean * mean) / (scans - 1));
    CAPTURE(mean);
    CAPTURE(expected[m]);
    CHECK(std::abs(mean - expected[m]) <= 5 * se);
  }
  const int max_open = (W + scan.stride - 1) / scan.stride;
  if (max_open + scan.stride - 1 < scan.space) CHECK(scan.compresses > 0);  // at the start
}

}  // namespace

TEST_CASE("PooledFrame: |R|^2 of entries sharing tokens has the law of D-dimensional pooling") {
  SUBCASE("D = 3 (the frame spans the space), W = 8, S = 4, uniform") {
    check_moments({3, 4, std::vector<double>(8, 0.125)}, 20000);
  }
  SUBCASE("D = 7, W = 5, S = 2, unequal weights") {
    check_moments({7, 2, {0.1, 0.3, 0.2, 0.25, 0.15}}, 20000);
  }
  SUBCASE("D = 63, W = 32, S = 16, unequal weights") {
    std::vector<double> w(32);
    for (int s = 0; s < 32; ++s) w[static_cast<std::size_t>(s)] = 1 + (s * 7) % 5;
    check_moments({63, 16, w}, 4000);
  }
}

TEST_CASE("PooledFrame: weights as logarithms give the direction of the weights themselves") {
  // Two entries sharing their second position, weights e^(x) for log weights x. Added as
  // logarithms, each entry's A and |R|^2 are the direct ones times one factor per entry, so
  // their cosine is the same; at logarithms near 800 (e^800 overflows a double) it still is.
  const double z[3][2] = {{0.3, -1.2}, {0.8, 0.4}, {-0.5, 0.9}};  // r's in a 2-axis space
  const double a[3] = {0.7, -0.2, 1.1};
  // logs[p][i]: position p's weight in the i-th open entry (after position 1, entry 0 closes)
  const double logs[3][2] = {
      {0.5, PooledFrame::kNoWeight}, {1.5, -0.5}, {2, PooledFrame::kNoWeight}};
  const auto cosines = [&](double shift, bool as_logs) {
    PooledFrame frame(2, 2, 2);
    std::vector<double> result;
    frame.open();
    for (int p = 0; p < 3; ++p) {
      if (p == 1) frame.open();
      double w[2];
      for (int i = 0; i < 2; ++i) w[i] = as_logs ? logs[p][i] + shift : std::exp(logs[p][i]);
      const double coords[2] = {frame.dimension() > 0 ? z[p][0] : 0, z[p][1]};
      // The first position spans one axis (remainder), later ones fill the space.
      if (as_logs) {
        frame.add_logs(w, a[p], coords, std::hypot(z[p][0], z[p][1]));
      } else {
        frame.add(w, a[p], coords, std::hypot(z[p][0], z[p][1]));
      }
      if (p >= 1) {
        const auto pooled = frame.close_oldest();
        result.push_back(pooled.along /
                         std::sqrt(pooled.along * pooled.along + pooled.across_squared));
      }
    }
    return result;
  };
  const auto direct = cosines(0, false);
  REQUIRE(direct.size() == 2);
  for (const double shift : {0.0, 800.0, -800.0}) {
    CAPTURE(shift);
    const auto from_logs = cosines(shift, true);
    for (std::size_t j = 0; j < 2; ++j)
      CHECK(from_logs[j] == doctest::Approx(direct[j]).epsilon(1e-12));
  }
}
