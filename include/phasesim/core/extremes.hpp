#pragma once
// Exact draws of the maximum of n iid variables from one uniform U in (0, 1]: the maximum
// has CDF F^n, so it is F^-1(U^(1/n)), computed in log space so that n up to 1e9 and more
// keeps full precision. The fast engine uses these in place of n separate draws.
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

#include "phasesim/core/normal.hpp"
#include "phasesim/core/portable_math.hpp"

namespace phasesim {

/// Maximum of n iid N(0, 1): Phi^-1(U^(1/n)); -infinity for n = 0.
inline double max_of_normals(std::int64_t n, double u) {
  if (n <= 0) return -std::numeric_limits<double>::infinity();
  return normal_quantile_from_log_cdf(portable::log(u) / static_cast<double>(n));
}

/// Maximum of n iid cosines between a uniform random direction in R^d (d >= 2) and a fixed
/// unit vector. The cosine T has (T + 1) / 2 ~ Beta((d-1)/2, (d-1)/2), so the maximum is
/// 2x - 1 with x at upper tail 1 - U^(1/n); -infinity for n = 0.
inline double max_of_cosines(std::int64_t n, double u, int dim) {
  if (n <= 0) return -std::numeric_limits<double>::infinity();
  const double tail = -portable::expm1(portable::log(u) / static_cast<double>(n));
  if (tail <= 0) return 1;
  const double a = (dim - 1) / 2.0;
  return 2 * boost::math::ibetac_inv(a, a, tail) - 1;
}

}  // namespace phasesim
