#pragma once
// Exact chi-square draws with nu degrees of freedom from a few normals, the same bits on every
// CPU: nu <= 3 as a sum of squared normals, nu >= 4 as 2 Gamma(nu / 2) by Marsaglia and Tsang's
// method ("A simple method for generating gamma variables", ACM TOMS 26, 2000), whose uniform
// U enters only through log U, so it takes E = -log U ~ Exp(1) instead: E = (z1^2 + z2^2) / 2
// for two independent normals, the squared radius of a Box-Muller pair, with no log to take.
// Its one log (in the rare full test) is portable_math.hpp's, not glibc's.
#include <cmath>
#include <optional>

#include "phasesim/core/portable_math.hpp"

namespace phasesim {

class ChiSquare {
 public:
  explicit ChiSquare(int nu)
      : nu_(nu), d_(nu / 2.0 - 1.0 / 3.0), c_(nu >= 4 ? 1 / std::sqrt(9 * d_) : 0) {}

  int degrees() const { return nu_; }

  /// chi^2_nu from a normal x and an exponential e (mean 1): x^2, 2e or x^2 + 2e for nu = 1,
  /// 2, 3 (0 for nu = 0), always accepted; for nu >= 4 one attempt of Marsaglia and Tsang,
  /// nullopt when it rejects (then attempt again with fresh, independent x and e).
  std::optional<double> attempt(double x, double e) const {
    if (nu_ <= 3) return (nu_ % 2 == 1 ? x * x : 0.0) + (nu_ >= 2 ? 2 * e : 0.0);
    const double t = 1 + c_ * x;
    if (t <= 0) return std::nullopt;
    const double v = t * t * t;
    const double x2 = x * x;
    // Marsaglia and Tsang's squeeze U < 1 - y, y = 0.0331 x^4, holds whenever E > y / (1 - y),
    // since -log(1 - y) <= y / (1 - y): a smaller squeeze, still inside the acceptance region.
    const double y = 0.0331 * x2 * x2;
    if (y < 1 && e * (1 - y) > y) return 2 * d_ * v;
    if (-e < 0.5 * x2 + d_ * (1 - v + portable::log(v))) return 2 * d_ * v;
    return std::nullopt;
  }

  /// chi^2_nu from x and e, with further attempts from `next(attempt)` (attempt = 1, 2, ...),
  /// which returns a fresh {x, e}: the draw keys its retries, so its result is a pure function
  /// of its keys.
  template <class Next>
  double sample(double x, double e, Next next) const {
    for (int attempt_index = 1;; ++attempt_index) {
      if (const auto value = attempt(x, e)) return *value;
      const auto fresh = next(attempt_index);
      x = fresh.x;
      e = fresh.e;
    }
  }

 private:
  int nu_;
  double d_;  ///< alpha - 1/3, alpha = nu / 2
  double c_;  ///< 1 / sqrt(9 d)
};

/// A normal and an exponential for ChiSquare::attempt.
struct NormalAndExponential {
  double x;
  double e;
};

}  // namespace phasesim
