// The portable exp, log, log1p, expm1 and erfc (phasesim/core/portable_math.hpp): within
// fdlibm's error bounds over their ranges, right at their special values, and bit for bit the
// values they gave when written (a checksum over 40,000 arguments), which is what makes
// them the same on every CPU: run under GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA, glibc's
// answers move and these do not.
#include "phasesim/core/portable_math.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace portable = phasesim::portable;

namespace {

// n arguments spread evenly over [lo, hi].
std::vector<double> arguments(double lo, double hi, int n) {
  std::vector<double> xs;
  for (int i = 0; i < n; ++i) xs.push_back(lo + (hi - lo) * (i + 0.5) / n);
  return xs;
}

// The largest error of f over xs in units in the last place of the exact value, which the
// long double (64-bit mantissa, x87) function gives to 2^-11 ulp.
double worst_ulps(double (*f)(double), long double (*exact)(long double),
                  const std::vector<double>& xs) {
  double worst = 0;
  for (double x : xs) {
    const long double reference = exact(x);
    const auto nearest = static_cast<double>(reference);
    const double ulp = std::nextafter(nearest, std::numeric_limits<double>::infinity()) - nearest;
    worst = std::max(worst, static_cast<double>(std::fabs((f(x) - reference) / ulp)));
  }
  return worst;
}

// n arguments spread over the exponents [lo, hi), built exactly (no library call: the
// checksum below must not depend on glibc either).
std::vector<double> log_spaced(int lo_exponent, int hi_exponent, int n) {
  std::vector<double> xs;
  for (int i = 0; i < n; ++i) {
    const int exponent = lo_exponent + static_cast<int>(static_cast<std::int64_t>(i) *
                                                        (hi_exponent - lo_exponent) / n);
    xs.push_back(std::ldexp(1.0 + (i % 997) / 997.0, exponent));
  }
  return xs;
}

}  // namespace

TEST_CASE("portable exp, log, log1p, expm1 are within 1 ulp, erfc within 3") {
  // fdlibm's bounds: below 1 ulp, erfc below about 3 (glibc's erfc reaches 3.1 too).
  CHECK(worst_ulps(portable::exp, expl, arguments(-745, 709.7, 20000)) < 1);
  CHECK(worst_ulps(portable::exp, expl, arguments(-1, 1, 20000)) < 1);
  CHECK(worst_ulps(portable::log, logl, log_spaced(-1074, 1023, 20000)) < 1);
  CHECK(worst_ulps(portable::log, logl, arguments(0.5, 2, 20000)) < 1);
  CHECK(worst_ulps(portable::log1p, log1pl, arguments(-0.999, 3, 20000)) < 1);
  CHECK(worst_ulps(portable::log1p, log1pl, log_spaced(-60, 1000, 20000)) < 1);
  CHECK(worst_ulps(portable::expm1, expm1l, arguments(-40, 709, 20000)) < 1);
  CHECK(worst_ulps(portable::expm1, expm1l, arguments(-1, 1, 20000)) < 1);
  CHECK(worst_ulps(portable::erfc, erfcl, arguments(-6, 26, 20000)) < 3);
  CHECK(worst_ulps(portable::erfc, erfcl, arguments(-1.5, 1.5, 20000)) < 3);
}

TEST_CASE("portable math at its special values") {
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(portable::exp(0) == 1);
  CHECK(portable::exp(1) == std::exp(1.0));
  CHECK(portable::exp(-inf) == 0);
  CHECK(portable::exp(inf) == inf);
  CHECK(portable::exp(710) == inf);
  CHECK(portable::exp(-746) == 0);
  CHECK(portable::exp(-740) == std::exp(-740.0));  // subnormal
  CHECK(std::isnan(portable::exp(nan)));
  CHECK(portable::log(1) == 0);
  CHECK(portable::log(0) == -inf);
  CHECK(portable::log(inf) == inf);
  CHECK(std::isnan(portable::log(-1)));
  CHECK(portable::log(4.9406564584124654e-324) == std::log(4.9406564584124654e-324));
  CHECK(portable::log1p(0) == 0);
  CHECK(portable::log1p(-1) == -inf);
  CHECK(std::isnan(portable::log1p(-2)));
  CHECK(portable::log1p(1e-300) == 1e-300);
  CHECK(portable::expm1(0) == 0);
  CHECK(portable::expm1(-inf) == -1);
  CHECK(portable::expm1(inf) == inf);
  CHECK(portable::expm1(1e-300) == 1e-300);
  CHECK(portable::erfc(0) == 1);
  CHECK(portable::erfc(inf) == 0);
  CHECK(portable::erfc(-inf) == 2);
  CHECK(portable::erfc(30) == 0);
  CHECK(portable::erfc(-7) == 2);
  CHECK(std::isnan(portable::erfc(nan)));
}

TEST_CASE("portable math gives the bits it gave when written, whatever the CPU" *
          doctest::test_suite("bitexact")) {
  // A checksum of the bit patterns over 8,000 arguments per function; the value was printed
  // by this test when the functions were written (x86-64, g++ 12, -ffp-contract=off) and is
  // the same under GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA, unlike glibc's own.
  std::uint64_t sum = 0;
  for (double x : arguments(-700, 700, 8000))
    sum = sum * 31 + std::bit_cast<std::uint64_t>(portable::exp(x));
  for (double x : log_spaced(-1000, 1000, 8000))
    sum = sum * 31 + std::bit_cast<std::uint64_t>(portable::log(x));
  for (double x : arguments(-0.99, 100, 8000))
    sum = sum * 31 + std::bit_cast<std::uint64_t>(portable::log1p(x));
  for (double x : arguments(-30, 30, 8000))
    sum = sum * 31 + std::bit_cast<std::uint64_t>(portable::expm1(x));
  for (double x : arguments(-6, 27, 8000))
    sum = sum * 31 + std::bit_cast<std::uint64_t>(portable::erfc(x));
  for (double a : arguments(-1, 1, 8000)) {
    const auto [sine, cosine] = portable::sincospi(a);
    sum = sum * 31 + std::bit_cast<std::uint64_t>(sine) + std::bit_cast<std::uint64_t>(cosine);
  }
  CHECK(sum == 15225536468605090314ULL);
}

TEST_CASE("portable sin and cos of pi a are within 2 ulp, exact at the quarter turns") {
  // The reference reduces a the same exact way (a = n/2 + r, r exact) so that it does not
  // lose the digits of pi a near the zeros, then takes the long double sin and cos of pi r.
  constexpr long double kPi = 3.141592653589793238462643383279502884L;
  double worst = 0;
  for (double a : arguments(-1, 1, 40000)) {
    const auto [sine, cosine] = portable::sincospi(a);
    const double n = std::nearbyint(2 * a);
    const long double r = kPi * (a - n / 2);
    const int quarter = (static_cast<int>(n) % 4 + 4) % 4;
    const long double s = quarter % 2 ? cosl(r) : sinl(r);
    const long double c = quarter % 2 ? sinl(r) : cosl(r);
    const long double exact_sin = quarter >= 2 ? -s : s;
    const long double exact_cos = quarter == 1 || quarter == 2 ? -c : c;
    for (const auto& [value, exact] : {std::pair{sine, exact_sin}, std::pair{cosine, exact_cos}}) {
      const auto nearest = static_cast<double>(exact);
      const double ulp =
          std::nextafter(std::fabs(nearest), std::numeric_limits<double>::infinity()) -
          std::fabs(nearest);
      worst = std::max(worst, static_cast<double>(std::fabs((value - exact) / ulp)));
    }
  }
  CHECK(worst < 2);
  CHECK(portable::sincospi(0).sin == 0);
  CHECK(portable::sincospi(0).cos == 1);
  CHECK(portable::sincospi(0.5).sin == 1);
  CHECK(portable::sincospi(0.5).cos == 0);
  CHECK(portable::sincospi(-1).sin == 0);
  CHECK(portable::sincospi(-1).cos == -1);
  CHECK(portable::sincospi(-0.5).sin == -1);
}

TEST_CASE("portable integer powers") {
  CHECK(portable::pow(0.875, 0) == 1);
  CHECK(portable::pow(0.875, 8) == std::pow(0.875, 8));  // exact: a dyadic rational
  CHECK(portable::pow(-2, 11) == -2048);
  CHECK(portable::pow(1 - 1.0 / 7, 13) ==
        doctest::Approx(std::pow(1 - 1.0 / 7, 13)).epsilon(1e-15));
}
