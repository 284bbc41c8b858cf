// ChiSquare: exact chi-square draws, checked in distribution (5 standard errors) against
// Boost's quantiles and the known mean and variance, for few and many degrees of freedom.
#include "phasesim/core/chi_square.hpp"

#include <doctest/doctest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <vector>

#include "phasesim/core/random.hpp"

using namespace phasesim;

namespace {

// n draws of chi^2_nu, every attempt from its own (index, block) of one stream.
std::vector<double> chi_square_draws(int nu, int n) {
  const ChiSquare chi(nu);
  const RandomStream stream(7, 0, 0, Stream::distractor);
  const auto pair = [&](std::uint32_t i, int attempt) {
    const auto x = stream.normal_pair(i, static_cast<std::uint32_t>(2 * attempt));
    const auto e = stream.normal_pair(i, static_cast<std::uint32_t>(2 * attempt + 1));
    return NormalAndExponential{x.x, (e.x * e.x + e.y * e.y) / 2};
  };
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    const auto u = static_cast<std::uint32_t>(i);
    const auto first = pair(u, 0);
    out.push_back(chi.sample(first.x, first.e, [&](int attempt) { return pair(u, attempt); }));
  }
  return out;
}

}  // namespace

TEST_CASE("ChiSquare: mean, variance and quantiles of chi^2_nu within 5 standard errors") {
  const int n = 100000;
  for (int nu : {0, 1, 2, 3, 4, 5, 7, 60, 507}) {
    CAPTURE(nu);
    const auto x = chi_square_draws(nu, n);
    double mean = 0, squares = 0;
    for (double v : x) mean += v / n;
    for (double v : x) squares += (v - mean) * (v - mean) / (n - 1);
    if (nu == 0) {
      CHECK(mean == 0);
      continue;
    }
    CHECK(std::abs(mean - nu) <= 5 * std::sqrt(2.0 * nu / n));
    // The sample variance's variance: (mu_4 - sigma^4) / n, mu_4 = 12 nu^2 + 48 nu.
    CHECK(std::abs(squares - 2.0 * nu) <= 5 * std::sqrt((8.0 * nu * nu + 48.0 * nu) / n));
    const boost::math::chi_squared law(nu);
    for (double q : {0.01, 0.1, 0.5, 0.9, 0.99}) {
      CAPTURE(q);
      const double cut = boost::math::quantile(law, q);
      double below = 0;
      for (double v : x) below += v <= cut ? 1.0 / n : 0.0;
      CHECK(std::abs(below - q) <= 5 * std::sqrt(q * (1 - q) / n));
    }
  }
}

TEST_CASE("ChiSquare: one attempt rejects only where Marsaglia and Tsang reject") {
  const ChiSquare chi(60);
  CHECK(!chi.attempt(-100, 1).has_value());                                   // 1 + c x <= 0
  CHECK(chi.attempt(0, 0.5).value() == doctest::Approx(2 * (30 - 1.0 / 3)));  // squeeze: x = 0
  CHECK(ChiSquare(3).attempt(2, 1.5).value() == 7);  // x^2 + 2e, never rejected
}
