#include "normal_table.hpp"

#include "phasesim/core/portable_math.hpp"

namespace phasesim::channel::detail {

// At each centre c: phi^(k)(c) = (-1)^k He_k(c) phi(c) (He the probabilists' Hermite
// polynomials, He_{k+1} = c He_k - k He_{k-1}), so phi's k-th Taylor coefficient is
// (-1)^k He_k(c) phi(c) / k! and Phi's (k+1)-th is phi's k-th over k + 1.
NormalTable::NormalTable() {
  constexpr double kSqrtHalf = 0.70710678118654752;
  constexpr double kInvSqrt2Pi = 0.39894228040143267794;
  for (std::size_t k = 0; k < kPieces; ++k) {
    const double c = centre(k);
    auto& piece = pieces_[k];
    piece.centre = c;
    piece.both[0][0] = 0.5 * portable::erfc(-kSqrtHalf * c);
    double previous = 0, hermite = 1, coefficient = kInvSqrt2Pi * portable::exp(-0.5 * c * c);
    for (int n = 0; n <= kDegree; ++n) {
      const auto i = static_cast<std::size_t>(n);
      piece.both[i][1] = coefficient * hermite;  // (-1)^n He_n(c) phi(c) / n!
      if (n < kDegree) piece.both[i + 1][0] = piece.both[i][1] / (n + 1);
      const double next = c * hermite - n * previous;
      previous = hermite;
      hermite = next;
      coefficient *= -1.0 / (n + 1);
    }
  }
}

}  // namespace phasesim::channel::detail
