// Internal contracts: a broken one throws ContractError saying what broke where contracts are on
// (Debug and sanitizer builds), and costs nothing, its condition never evaluated, where they are
// off (Release). Each case checks the build's own switch, so it passes in both.
#include "phasesim/core/contract.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace phasesim;

namespace {

// Counts its evaluations: a contract that is off must not evaluate its condition.
struct Probe {
  int evaluations = 0;
  bool broken() {
    ++evaluations;
    return false;
  }
};

constexpr int kExpectLine = __LINE__ + 2;  // the line of checked_half's precondition
int checked_half(int n) {
  PHASESIM_EXPECT(n % 2 == 0);
  const int half = n / 2;
  PHASESIM_ENSURE(2 * half == n);
  return half;
}

}  // namespace

TEST_CASE("a broken contract throws ContractError with its kind, condition, file and line") {
  if (!PHASESIM_CONTRACTS) return;
  Probe probe;
  CHECK_THROWS_WITH_AS(PHASESIM_EXPECT(probe.broken()),
                       doctest::Contains("precondition failed: probe.broken() ("), ContractError);
  CHECK_THROWS_WITH_AS(PHASESIM_ASSERT(probe.broken()),
                       doctest::Contains("assertion failed: probe.broken() ("), ContractError);
  CHECK_THROWS_WITH_AS(PHASESIM_ENSURE(probe.broken()),
                       doctest::Contains("postcondition failed: probe.broken() ("), ContractError);
  CHECK(probe.evaluations == 3);
  try {
    checked_half(3);
    FAIL("checked_half(3) broke its precondition and returned");
  } catch (const ContractError& e) {
    CHECK(e.kind() == ContractKind::precondition);
    CHECK(std::string(e.condition()) == "n % 2 == 0");
    CHECK(std::string(e.file()).ends_with("tests/core/contract_test.cpp"));
    CHECK(e.line() == kExpectLine);
    CHECK(
        std::string(e.what()).ends_with("contract_test.cpp:" + std::to_string(kExpectLine) + ")"));
  }
  CHECK(checked_half(4) == 2);
}

TEST_CASE("a contract that is off is type-checked but never evaluated") {
  if (PHASESIM_CONTRACTS) return;
  Probe probe;
  PHASESIM_EXPECT(probe.broken());
  PHASESIM_ASSERT(probe.broken());
  PHASESIM_ENSURE(probe.broken());
  CHECK(probe.evaluations == 0);
  CHECK(checked_half(3) == 1);  // its precondition broken, unchecked
}
