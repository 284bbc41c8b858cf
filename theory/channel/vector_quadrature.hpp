#pragma once
// Adaptive Gauss-Kronrod (15/31) quadrature of an integrand with several components,
// so that a probability and its partial derivatives come from one pass over the same
// nodes (internal to theory/).
#include <algorithm>
#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <span>
#include <vector>

namespace phasesim::channel::detail {

/// Integrates f(y, out) -> out[0..components) over [a, b] by bisection until, for every
/// component, |Kronrod - Gauss| <= max(relative_tolerance * L1 of the piece, the share
/// of relative_tolerance * L1 of the whole range so far), or max_depth bisections.
/// Measuring against the L1 norm (not the signed value) keeps derivative components that
/// cancel from bisecting to the depth limit, and measuring against what earlier ranges
/// already hold keeps a range where a component is negligible from chasing its rounding
/// noise. For a single non-negative component on one range it is Boost's rule
/// (gauss_kronrod::integrate).
class VectorGaussKronrod {
 public:
  VectorGaussKronrod(std::size_t components, double relative_tolerance, unsigned max_depth)
      : components_(components), tolerance_(relative_tolerance), max_depth_(max_depth) {}

  /// Adds the integral over [a, b] to `sum`, its L1 norm to `l1` and its error estimate
  /// (the largest over components) to `error`. Integrate the ranges that hold most of
  /// the mass first.
  template <typename F>
  void integrate(F& f, double a, double b, std::span<double> sum, std::span<double> l1,
                 double& error) const {
    Piece top = estimate(f, a, b);
    std::vector<double> absolute(components_);
    for (std::size_t i = 0; i < components_; ++i) {
      absolute[i] = tolerance_ * std::max(top.l1[i], l1[i]);
    }
    refine(f, a, b, std::move(top), absolute, max_depth_, sum, l1, error);
  }

 private:
  struct Piece {
    std::vector<double> kronrod, error, l1;
  };

  template <typename F>
  Piece estimate(F& f, double a, double b) const {
    using Kronrod = boost::math::quadrature::gauss_kronrod<double, 31>;
    using Gauss = boost::math::quadrature::gauss<double, 15>;
    const auto& x = Kronrod::abscissa();
    const auto& wk = Kronrod::weights();
    const auto& wg = Gauss::weights();
    const double mid = 0.5 * (a + b), scale = 0.5 * (b - a);
    Piece piece{std::vector<double>(components_), std::vector<double>(components_),
                std::vector<double>(components_)};
    std::vector<double> gauss(components_), fp(components_), fm(components_);
    f(mid, std::span<double>(fp));
    for (std::size_t c = 0; c < components_; ++c) {
      piece.kronrod[c] = fp[c] * wk[0];
      gauss[c] = fp[c] * wg[0];
      piece.l1[c] = std::abs(fp[c]) * wk[0];
    }
    // Even indices are shared with the 15-point Gauss rule (which has a node at 0).
    for (std::size_t i = 1; i < x.size(); ++i) {
      f(mid + scale * x[i], std::span<double>(fp));
      f(mid - scale * x[i], std::span<double>(fm));
      for (std::size_t c = 0; c < components_; ++c) {
        piece.kronrod[c] += (fp[c] + fm[c]) * wk[i];
        piece.l1[c] += (std::abs(fp[c]) + std::abs(fm[c])) * wk[i];
        if (i % 2 == 0) gauss[c] += (fp[c] + fm[c]) * wg[i / 2];
      }
    }
    for (std::size_t c = 0; c < components_; ++c) {
      piece.kronrod[c] *= scale;
      piece.l1[c] *= scale;
      piece.error[c] = std::max(std::abs(piece.kronrod[c] - scale * gauss[c]),
                                2e-16 * std::abs(piece.kronrod[c]));
    }
    return piece;
  }

  template <typename F>
  void refine(F& f, double a, double b, Piece piece, std::vector<double> absolute, unsigned depth,
              std::span<double> sum, std::span<double> l1, double& error) const {
    bool converged = true;
    for (std::size_t c = 0; c < components_; ++c) {
      converged = converged && piece.error[c] <= std::max(tolerance_ * piece.l1[c], absolute[c]);
    }
    if (converged || depth == 0) {
      for (std::size_t c = 0; c < components_; ++c) {
        sum[c] += piece.kronrod[c];
        l1[c] += piece.l1[c];
      }
      error += *std::max_element(piece.error.begin(), piece.error.end());
      return;
    }
    for (double& t : absolute) t /= 2;
    const double mid = 0.5 * (a + b);
    refine(f, a, mid, estimate(f, a, mid), absolute, depth - 1, sum, l1, error);
    refine(f, mid, b, estimate(f, mid, b), absolute, depth - 1, sum, l1, error);
  }

  std::size_t components_;
  double tolerance_;
  unsigned max_depth_;
};

}  // namespace phasesim::channel::detail
