// Exact derivatives of the channel (differentiated under the integral) against finite
// differences of the value, which comes from the same quadrature at 1e-15.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "phasesim/channel/channel.hpp"
#include "phasesim/core/error.hpp"

using namespace phasesim;
using namespace phasesim::channel;

namespace {

// Central difference, or a second-order one-sided difference at the ends of [0, 1].
template <typename F>
double derivative(F f, double x, double h) {
  if (x + h > 1) return (3 * f(x) - 4 * f(x - h) + f(x - 2 * h)) / (2 * h);
  if (x - h < 0) return (-3 * f(x) + 4 * f(x + h) - f(x + 2 * h)) / (2 * h);
  return (f(x + h) - f(x - h)) / (2 * h);
}

struct Case {
  double beta;
  std::vector<double> u;
  std::int64_t entries;
  double tolerance;  // relative; looser where the difference quotient itself is poor
};

}  // namespace

TEST_CASE("dP/du matches finite differences, at u = 1 too") {
  // Where sd = sqrt(1 - u^2) has its square-root singularity (u near 1) the one-sided
  // difference is only accurate to ~1e-7, hence the looser tolerances there.
  const std::vector<Case> cases = {
      {4.5, {0.35}, 32768, 1e-7},       {4.5, {0.9}, 32768, 1e-7},
      {6.0, {0.7, 0.3}, 32768, 1e-7},   {3.0, {0.3}, 10, 1e-7},
      {0.0, {0.5}, 100, 1e-7},          {5.0, {0.0, 0.0}, 32768, 1e-7},
      {2.0, {0.6, 0.6, 0.5}, 50, 1e-7}, {5.0, {1.0}, 32768, 1e-6},
      {4.5, {1.0, 0.0}, 32768, 1e-4},   {4.0, {0.5, 0.2}, 10000000, 1e-7},
      {5.0, {0.999999}, 32768, 1e-6},
  };
  for (const auto& c : cases) {
    const auto exact = success_gradient(c.beta, c.u, c.entries);
    CHECK(exact.probability == doctest::Approx(success_probability(c.beta, c.u, c.entries)));
    for (std::size_t s = 0; s < c.u.size(); ++s) {
      CAPTURE(c.beta);
      CAPTURE(s);
      CAPTURE(c.u[s]);
      auto p = [&](double x) {
        auto u = c.u;
        u[s] = x;
        return success_probability(c.beta, u, c.entries);
      };
      const double difference = derivative(p, c.u[s], 1e-5);
      CHECK(std::abs(exact.d_u[s] - difference) <= c.tolerance * std::abs(difference) + 1e-12);
    }
  }
}

TEST_CASE("dP/dmean and dP/dsd of the linear-retention entries match finite differences") {
  // Linear retention: mean beta*c, sd 1; also a narrower entry to exercise dP/dsd.
  const std::vector<NeedleEntry> needle = {{2.5, 1.0}, {1.0, 0.4}};
  const std::int64_t distractors = 1023;
  const auto exact = needle_success_gradient(needle, distractors);
  CHECK(exact.probability == needle_success(needle, distractors).probability);
  for (std::size_t s = 0; s < needle.size(); ++s) {
    CAPTURE(s);
    auto shifted = [&](double d_mean, double d_sd) {
      auto e = needle;
      e[s].mean += d_mean;
      e[s].sd += d_sd;
      return needle_success(e, distractors).probability;
    };
    const double h = 1e-5;
    const double d_mean = (shifted(h, 0) - shifted(-h, 0)) / (2 * h);
    const double d_sd = (shifted(0, h) - shifted(0, -h)) / (2 * h);
    CHECK(exact.d_mean[s] == doctest::Approx(d_mean).epsilon(1e-7));
    CHECK(exact.d_sd[s] == doctest::Approx(d_sd).epsilon(1e-7));
  }
}

TEST_CASE("a noiseless entry's derivative is the density of the maximum at its mean") {
  // One entry, sd = 0: P = P(max of n < mean) = Phi(mean)^n, so dP/dmean = n phi Phi^(n-1).
  const std::vector<NeedleEntry> needle = {{4.0, 0.0}};
  const auto exact = needle_success_gradient(needle, 999);
  const double phi = std::exp(-8.0) / std::sqrt(2 * std::numbers::pi);
  const double cdf = 0.5 * std::erfc(-4.0 / std::sqrt(2.0));
  CHECK(exact.d_mean[0] == doctest::Approx(999 * phi * std::pow(cdf, 998)).epsilon(1e-12));
  CHECK(exact.d_sd[0] == 0.0);
}

TEST_CASE("the u-gradient needs at most one noiseless entry") {
  CHECK_THROWS_WITH_AS(success_gradient(4, std::vector<double>{1, 1}, 100),
                       "invalid --u (at most one needle entry can have u = 1)", InputError);
}
