#include "phasesim/channel/channel.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "phasesim/core/error.hpp"
#include "phasesim/core/normal.hpp"

using namespace phasesim;
using namespace phasesim::channel;

namespace {

struct Reference {
  double beta;
  std::vector<double> u;
  std::int64_t entries;
  double probability;
};

// From tests/reference/channel_reference.py: mpmath at 40 digits, integrating over the
// needle maximum (the C++ integrates over the distractor maximum in double precision).
const std::vector<Reference> kReferences = {
    {3.0, {0.3}, 10, 0.30371743698597916485},
    {4.5, {0.8}, 1024, 0.69901003548987700797},
    {5.0, {0.7, 0.7}, 32768, 0.35895019215079185234},
    {2.0, {0.6, 0.6, 0.6}, 50, 0.32219358869590806413},
    {0.0, {0.9}, 100, 2.7258292738285973661e-6},
    {4.0, {0.5}, 10000000, 0.00010342936771429953895},
    {6.0, {0.95, 0.2}, 10000000, 0.85114354413035585525},
    {8.0, {0.999}, 1000000, 0.99999999929180810661},
    {5.0, {0.999999}, 32768, 0.99065078008598224115},
    {4.1482829466444615, {0.9999999847126457}, 16384, 0.76002811943920487759},
};

}  // namespace

TEST_CASE("channel matches an independent 40-digit reference to 1e-9 absolute") {
  double worst = 0;
  for (const auto& r : kReferences) {
    CAPTURE(r.beta);
    CAPTURE(r.entries);
    const double p = success_probability(r.beta, r.u, r.entries);
    CHECK(std::abs(p - r.probability) <= 1e-9);
    worst = std::max(worst, std::abs(p - r.probability));
  }
  MESSAGE("largest absolute error against the reference: " << worst);
}

TEST_CASE("u = 0 gives chance m/N exactly") {
  for (std::int64_t n : {2, 10, 1000, 32768, 10000000}) {
    for (double beta : {0.0, 3.0, 9.0}) {
      const std::vector<double> zeros(2, 0.0);
      CHECK(success_probability(beta, zeros, n) ==
            doctest::Approx(2.0 / static_cast<double>(n)).epsilon(1e-9));
    }
  }
}

TEST_CASE("u = 1 removes the needle's noise: A(1, beta, N) = Phi(beta)^(N-1)") {
  for (std::int64_t n : {2, 1024, 32768, 10000000}) {
    for (double beta : {2.0, 4.5, 6.0}) {
      const double exact = std::exp(static_cast<double>(n - 1) * log_normal_cdf(beta));
      CHECK(std::abs(single_entry_success(1.0, beta, n) - exact) <= 1e-12);
    }
  }
}

TEST_CASE("no distractor, no needle entry") {
  CHECK(success_probability(1.0, std::vector<double>{0.2}, 1) == 1.0);
  CHECK(success_probability(1.0, std::vector<double>{}, 100) == 0.0);
}

TEST_CASE("monotone in beta for every u > 0") {
  for (double u : {0.1, 0.5, 0.9, 1.0}) {
    double previous = 0;
    for (double beta = 0; beta <= 10; beta += 0.5) {
      const double p = single_entry_success(u, beta, 32768);
      CHECK(p >= previous - 1e-14);  // flat at 1 up to rounding
      previous = p;
    }
  }
}

TEST_CASE("monotone in u once beta clears the distractor maximum, not below") {
  // dP(X > y)/du has the sign of beta - u*y: increasing u helps only while the needle's
  // mean stays above the distractor maxima that matter (theory/THEORY.md).
  double previous = 0;
  for (double u = 0; u <= 1.0001; u += 0.05) {
    const double p = single_entry_success(std::min(u, 1.0), 8.0, 32768);
    CHECK(p >= previous);
    previous = p;
  }
  CHECK(single_entry_success(1.0, 0.0, 100) < single_entry_success(0.0, 0.0, 100));
}

TEST_CASE("N = 1e7 stays finite and accurate in log space") {
  for (double u : {0.0, 0.3, 0.7, 0.99, 1.0}) {
    const double p = single_entry_success(u, 5.0, 10000000);
    CHECK(std::isfinite(p));
    CHECK(p >= 1e-7 - 1e-12);
    CHECK(p <= 1.0);
  }
}

TEST_CASE("channel input validation") {
  const std::vector<double> u{0.5, 0.5};
  CHECK_THROWS_WITH_AS(success_probability(-1, u, 10),
                       "invalid --beta -1 (must be finite and >= 0)", InputError);
  CHECK_THROWS_WITH_AS(success_probability(1, std::vector<double>{1.5}, 10),
                       "invalid --u 1.5 (each must be in [0, 1])", InputError);
  CHECK_THROWS_WITH_AS(success_probability(1, u, 1),
                       "invalid --entries 1 (must be at least the number of needle entries, 2)",
                       InputError);
}
