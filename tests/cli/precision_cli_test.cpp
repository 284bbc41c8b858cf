// `phasesim precision-check`: the float full engine against full-double, through the binary.
#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "phasesim/core/simd_target.hpp"
#include "support/cli_runner.hpp"

using phasesim::test::run_cli;
using phasesim::test::run_json;

namespace {

// PHASESIM_SIMD_TARGET set to `value` while the object lives; what was there before comes
// back (the CPU-emulation step of scripts/run-tests.sh sets it for the whole test program).
class SimdTargetVariable {
 public:
  explicit SimdTargetVariable(const char* value) {
    if (const char* old = std::getenv(kName)) before_ = old;
    ::setenv(kName, value, 1);
  }
  ~SimdTargetVariable() {
    if (before_) {
      ::setenv(kName, before_->c_str(), 1);
    } else {
      ::unsetenv(kName);
    }
  }
  SimdTargetVariable(const SimdTargetVariable&) = delete;
  SimdTargetVariable& operator=(const SimdTargetVariable&) = delete;

 private:
  static constexpr const char* kName = phasesim::kSimdTargetVariable;
  std::optional<std::string> before_;
};

}  // namespace

TEST_CASE("precision-check: float and double pick the same entries but at near-ties") {
  // W = 8, S = 2 uniform: every token sits in four entries; a short run of the protocol.
  const auto result = run_cli(
      "precision-check --window 8 --stride 2 --context 1024 --groups 4 --prompts 16 --rms-norm "
      "--query-noise 0.5 --json -");
  REQUIRE(result.status == 0);
  const auto doc = nlohmann::json::parse(result.out);
  CHECK(doc["command"] == "precision-check");
  CHECK(doc["simd"].get<std::string>().size() > 0);
  CHECK(doc["parity"] == true);
  CHECK(doc["pairs"] == 64);
  CHECK(doc["argmax_entries_differing_not_near_tie"] == 0);
  CHECK(doc["differing"].size() == doc["argmax_entries_differing"].get<std::size_t>());
  CHECK(doc["max_logit_difference"].get<double>() < 1e-4);
  CHECK(doc["max_logit_difference"].get<double>() > 0);  // float and double do differ
  CHECK(doc["groups"][0].contains("double_accuracy"));
  CHECK(doc["float"]["trials_per_second"].get<double>() > 0);
}

TEST_CASE("precision-check prints the comparison and its verdict") {
  const auto result = run_cli("precision-check --context 1024 --prompts 4");
  CHECK(result.status == 0);
  CHECK(result.out.find("argmax entries that differ:") != std::string::npos);
  CHECK(result.out.find("parity: yes") != std::string::npos);
  CHECK(result.err.empty());
}

TEST_CASE("precision-check bad input: exact message, exit status 2, no output file") {
  const std::vector<phasesim::test::BadInput> cases = {
      {"--dim 1", "invalid --dim 1 (must be in [2, 65536])"},
      {"--gate weights:1,2", "invalid gate 'weights:1,2' (has 2 values, the window needs 8)"},
      {"--prompts 0", "invalid --prompts 0 (must be at least 1)"},
      {"--threads -1", "invalid --threads -1 (must be in [0, 1024]; 0 uses the OpenMP default)"},
  };
  phasesim::test::check_refused(cases, "precision-check");
}

TEST_CASE("PHASESIM_SIMD_TARGET=sse4: precision-check runs SSE4 or below, with the same results" *
          doctest::test_suite("bitexact")) {
  const std::string arguments = "precision-check --context 1024 --groups 4 --prompts 8";
  const auto best = run_json(arguments);
  const auto limited = [&] {
    const SimdTargetVariable sse4("sse4");
    return run_json(arguments);
  }();
  const auto target = limited["simd"].get<std::string>();
  CAPTURE(target);
  CHECK((target == "SSE4" || target == "SSSE3" || target == "SCALAR" || target == "EMU128"));
  for (const auto* key : {"groups", "differing", "max_logit_difference"}) {
    CAPTURE(key);
    CHECK(limited[key] == best[key]);
  }
}

TEST_CASE("PHASESIM_SIMD_TARGET with an unknown name: one line naming the targets, exit 2") {
  const SimdTargetVariable unknown("avx9");
  const auto result = run_cli("coverage --window 8 --stride 4 --gate uniform");
  CHECK(result.status == 2);
  CHECK(result.err ==
        "phasesim: PHASESIM_SIMD_TARGET: invalid SIMD target 'avx9' (allowed in "
        "this build: " +
            phasesim::simd_target_names() + ")\n");
  CHECK(result.out.empty());
}
