// Top order statistics of iid normals and the bivariate orthant (core/order_statistics.hpp).
#include "phasesim/core/order_statistics.hpp"

#include <doctest/doctest.h>

#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <numbers>

using namespace phasesim;

TEST_CASE("gamma variates: mean and variance equal the shape (5 sigma)") {
  for (const double shape : {1.0, 3.5, 512.0, 262144.0}) {
    CAPTURE(shape);
    const RandomStream stream(11, 0, 0, Stream::selection);
    const int n = 20000;
    double sum = 0, sum2 = 0;
    for (int i = 0; i < n; ++i) {
      const double x = gamma_variate(stream, static_cast<std::uint32_t>(i), shape);
      sum += x;
      sum2 += x * x;
    }
    const double mean = sum / n;
    CHECK(std::abs(mean - shape) < 5 * std::sqrt(shape / n));
    const double variance = sum2 / n - mean * mean;
    // Var of the sample variance of a gamma: about (2 + 6 / shape) shape^2 / n.
    CHECK(std::abs(variance - shape) < 5 * shape * std::sqrt((2 + 6 / shape) / n));
  }
}

TEST_CASE("the r-th largest of n normals: its upper tail is Beta(r, n - r + 1)") {
  const std::int64_t n = 100000, r = 512;
  const RandomStream stream(5, 0, 0, Stream::selection);
  // P(tail <= Beta median) = 1/2 and P(tail <= 10% quantile) = 0.1, each within 5 sigma.
  const double median =
      boost::math::ibeta_inv(static_cast<double>(r), static_cast<double>(n - r + 1), 0.5);
  const double low =
      boost::math::ibeta_inv(static_cast<double>(r), static_cast<double>(n - r + 1), 0.1);
  const int trials = 8000;
  int below_median = 0, below_low = 0;
  for (int i = 0; i < trials; ++i) {
    const auto t = upper_order_statistic(n, r, stream, static_cast<std::uint32_t>(2 * i));
    CHECK(t.tail + t.body == doctest::Approx(1));
    below_median += t.tail <= median ? 1 : 0;
    below_low += t.tail <= low ? 1 : 0;
  }
  CHECK(std::abs(below_median / double(trials) - 0.5) < 5 * std::sqrt(0.25 / trials));
  CHECK(std::abs(below_low / double(trials) - 0.1) < 5 * std::sqrt(0.09 / trials));
  // A step up from rank 2 to rank 1 given Y_(2): the maximum of one above it.
  const UpperTail two{0.01, 0.99};
  CHECK(step_up(two, 2, 0.25).tail == doctest::Approx(0.0025));
  CHECK(step_up(two, 2, 0.25).body == doctest::Approx(0.9975));
}

TEST_CASE("bivariate normal orthants: Owen's T against closed forms") {
  const auto phi = [](double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); };
  for (const double h : {-1.3, 0.0, 0.7, 2.5}) {
    for (const double k : {-0.4, 0.0, 1.9}) {
      CAPTURE(h);
      CAPTURE(k);
      CHECK(lower_orthant(h, k, 0.0) == doctest::Approx(phi(h) * phi(k)).epsilon(1e-12));
      // Upper orthant = 1 - Phi(h) - Phi(k) + Phi2(h, k).
      for (const double rho : {-0.6, 0.3, 0.9}) {
        CHECK(upper_orthant(h, k, rho) ==
              doctest::Approx(1 - phi(h) - phi(k) + lower_orthant(h, k, rho)).epsilon(1e-12));
        // Symmetric in its arguments.
        CHECK(lower_orthant(h, k, rho) == doctest::Approx(lower_orthant(k, h, rho)).epsilon(1e-13));
      }
    }
  }
  CHECK(lower_orthant(0, 0, 0.5) ==
        doctest::Approx(0.25 + std::asin(0.5) / (2 * std::numbers::pi)));
  // A tail: P(X > 4, Y > 4) at rho = 0.5, by Gauss-Legendre-free series check against 1-D
  // integration of phi(y) Q((4 - rho y) / sqrt(1 - rho^2)) over y > 4.
  double integral = 0;
  const double step = 1e-4;
  for (double y = 4 + step / 2; y < 12; y += step) {
    const double z = (4 - 0.5 * y) / std::sqrt(0.75);
    integral += step * std::exp(-0.5 * y * y) / std::sqrt(2 * std::numbers::pi) * 0.5 *
                std::erfc(z / std::numbers::sqrt2);
  }
  CHECK(upper_orthant(4, 4, 0.5) == doctest::Approx(integral).epsilon(1e-7));
}
