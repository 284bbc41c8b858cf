#pragma once
// Phi(z) and phi(z) together from a table of Taylor polynomials (internal to theory/channel: the
// success rule's factors, one of each per node and entry, were two thirds of its time as
// portable::erfc and portable::exp: up to three exps a factor). Within 2e-16 of them (absolute;
// tests/channel/success_rule_test.cpp), the same bits on every CPU: the table is built from
// portable::erfc and portable::exp, and read with plain arithmetic (-ffp-contract=off).
#include <algorithm>
#include <array>
#include <cstddef>

#include "lanes.hpp"

namespace phasesim::channel::detail {

class NormalTable {
 public:
  /// Beyond |z| = kRange, Phi is 0 or 1 and phi 0 (their true values are below 8e-23).
  static constexpr double kRange = 10;
  /// Pieces of 1/kPerUnit around their centres, a degree-kDegree Taylor polynomial of Phi and of
  /// phi each: the remainder is below 1e-17 (|He_n(z) phi(z)| t^{n+1} / (n + 1)!, |t| <= 1/16).
  static constexpr int kPerUnit = 8;
  static constexpr int kDegree = 10;  // estrin() is written for it
  static constexpr std::size_t kPieces = 2 * static_cast<std::size_t>(kRange) * kPerUnit;

  struct Value {
    double cdf, pdf;
  };

  NormalTable();

  Value operator()(double z) const {
    if (!(z > -kRange)) return {0.0, 0.0};
    if (!(z < kRange)) return {1.0, 0.0};
    const auto k = std::min(static_cast<std::size_t>((z + kRange) * kPerUnit), kPieces - 1);
    const double t = z - pieces_[k].centre;
    const double t2 = t * t, t4 = t2 * t2, t8 = t4 * t4;
    const Pair value = estrin(pieces_[k].both, t, t2, t4, t8);
    return {value[0], value[1]};
  }

 private:
  static double centre(std::size_t k) {
    return -kRange + (static_cast<double>(k) + 0.5) / kPerUnit;
  }
  // Phi's and phi's coefficients of one degree side by side (lanes.hpp): both polynomials in
  // one pass of two-lane operations, the same bits as a scalar evaluation.
  // sum_i c_i t^i by Estrin's scheme (a tree of depth 4, not Horner's chain of 10: the factors of
  // one node are independent, and the chain's latency was what they cost), for both lanes.
  static Pair estrin(const std::array<Pair, kDegree + 1>& c, double t, double t2, double t4,
                     double t8) {
    const Pair c01 = c[0] + c[1] * t, c23 = c[2] + c[3] * t, c45 = c[4] + c[5] * t;
    const Pair c67 = c[6] + c[7] * t, c89 = c[8] + c[9] * t;
    return (c01 + c23 * t2) + (c45 + c67 * t2) * t4 + (c89 + c[10] * t2) * t8;
  }
  struct Piece {
    std::array<Pair, kDegree + 1> both;  ///< Taylor coefficients in t = z - centre: {Phi, phi}
    double centre;  ///< centre(k), kept: one conversion and three operations fewer a read
  };
  std::array<Piece, kPieces> pieces_;
};

}  // namespace phasesim::channel::detail
