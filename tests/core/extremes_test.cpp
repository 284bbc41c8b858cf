// Exact maxima of n iid draws from one uniform, against closed forms.
#include "phasesim/core/extremes.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

using namespace phasesim;

TEST_CASE("max_of_normals inverts Phi^n, for n from 1 to 1e9") {
  for (std::int64_t n : {1, 7, 32768, 1000000000}) {
    for (double u : {1e-6, 0.3, 0.999}) {
      const double x = max_of_normals(n, u);
      CHECK(static_cast<double>(n) * log_normal_cdf(x) == doctest::Approx(std::log(u)));
    }
  }
  CHECK(max_of_normals(0, 0.5) == -std::numeric_limits<double>::infinity());
}

TEST_CASE("max_of_cosines: uniform cosine in 3 dimensions, arcsine law in 2") {
  for (std::int64_t n : {1, 5, 4096, 1000000000}) {
    for (double u : {1e-6, 0.3, 0.999}) {
      const double log_v = std::log(u) / static_cast<double>(n);  // log U^(1/n)
      const double v = std::exp(log_v);
      // d = 3 (Archimedes): T is uniform on [-1, 1]; near 1 compare the upper tails.
      CHECK(1 - max_of_cosines(n, u, 3) == doctest::Approx(2 * -std::expm1(log_v)));
      // d = 2: T = cos(theta), theta uniform on [0, pi].
      CHECK(max_of_cosines(n, u, 2) ==
            doctest::Approx(std::cos(std::numbers::pi * (1 - v))).epsilon(1e-9));
    }
  }
  CHECK(max_of_cosines(0, 0.5, 16) == -std::numeric_limits<double>::infinity());
  CHECK(max_of_cosines(3, 1.0, 16) == 1.0);
}
