#include "phasesim/model/softmax.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "phasesim/model/gate.hpp"

using namespace phasesim;

TEST_CASE("the softmax is max, exp(x - max), a sum in index order and one division" *
          doctest::test_suite("bitexact")) {
  // The steps every caller's bits rest on (gates, entry gates, the training lab).
  const std::vector<double> x = {0.3, -1.25, 2.5, 2.5, -40.0, 1e-9};
  std::vector<double> expected(x.size());
  double total = 0;
  for (std::size_t s = 0; s < x.size(); ++s) total += (expected[s] = portable::exp(x[s] - 2.5));
  for (double& g : expected) g /= total;
  std::vector<double> out(x.size());
  softmax(x.data(), static_cast<int>(x.size()), out.data());
  CHECK(out == expected);
  auto in_place = x;
  softmax(in_place.data(), static_cast<int>(x.size()), in_place.data());
  CHECK(in_place == expected);
  CHECK(gate_from_logits(x, "logits").weights == expected);
  const std::vector<double> four = {0, 0, 0, 1};
  softmax(four.data(), 4, out.data());
  CHECK(out[3] == doctest::Approx(std::exp(1.0) / (3 + std::exp(1.0))).epsilon(1e-15));
}

TEST_CASE("masked logits get weight 0, and a softmax of masked logits only is all 0") {
  std::vector<double> x = {kMaskedLogit, 0.0, std::log(3.0), kMaskedLogit};
  softmax(x.data(), 4, x.data());
  CHECK(x[0] == 0.0);
  CHECK(x[1] == doctest::Approx(0.25).epsilon(1e-15));
  CHECK(x[2] == doctest::Approx(0.75).epsilon(1e-15));
  CHECK(x[3] == 0.0);
  std::vector<double> none(3, kMaskedLogit);
  softmax(none.data(), 3, none.data());
  CHECK(none == std::vector<double>(3, 0.0));
  std::vector<double> zeros(3, 0.0);
  normalize_weights(zeros.data(), 3);
  CHECK(zeros == std::vector<double>(3, 0.0));
}

TEST_CASE("a gate per channel is the softmax down every column" * doctest::test_suite("bitexact")) {
  // 3 slots x 2 channels, row-major.
  std::vector<double> logits = {0.5, -2.0, 1.5, 0.0, -0.25, 3.0};
  auto gates = logits;
  softmax_columns(gates.data(), 3, 2);
  for (int c = 0; c < 2; ++c) {
    CAPTURE(c);
    std::vector<double> column = {logits[c], logits[2 + c], logits[4 + c]};
    softmax(column.data(), 3, column.data());
    for (int s = 0; s < 3; ++s) CHECK(gates[2 * s + c] == column[s]);
  }
  // A shift shared with other logits gives the same weights to rounding (the training lab's
  // factored gates share one shift between newer and older keys).
  std::vector<double> numerators(3);
  softmax_numerators(column_of(logits.data(), 2, 1), 3, 10.0, numerators.data());
  normalize_weights(numerators.data(), 3);
  for (int s = 0; s < 3; ++s) CHECK(numerators[s] == doctest::Approx(gates[2 * s + 1]));
}
