// The theorem checks behind `phasesim theorem` (T1-T3): each verdict inside its regime
// and outside or disagreeing, the lock-in experiment, and the same results on 1 and 2
// threads.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "phasesim/core/error.hpp"
#include "phasesim/theorems/checks.hpp"
#include "support/threads.hpp"
#include "support/v4_objective.hpp"

using namespace phasesim;
using namespace phasesim::theorems;
using phasesim::test::v4_objective;

namespace {

std::vector<std::string> keys(const Json& doc) {
  std::vector<std::string> names;
  for (const auto& item : doc.items()) names.push_back(item.key());
  return names;
}

ConcentrationCheckSettings two_restarts() {
  ConcentrationCheckSettings settings;
  settings.search.restarts = 2;
  return settings;
}

// A lock-in batch of about a second: the settings of tests/cli/theorem_cli_test.cpp.
LockinSettings fast_lockin() {
  LockinSettings settings;
  settings.dynamics.steps = 300;
  settings.dynamics.lr = 40;
  settings.reweight_steps = 200;
  return settings;
}

std::vector<RunSpec> two_inits() { return run_specs("random:1:0.1", 2, {1}, 8); }

const std::vector<std::string> kVerdictKeys = {"prediction", "regime", "regime_detail",
                                               "check",      "agree",  "verdict"};

std::vector<std::string> with_verdict(std::vector<std::string> names) {
  names.insert(names.end(), kVerdictKeys.begin(), kVerdictKeys.end());
  return names;
}

}  // namespace

TEST_CASE("concentration at beta 5: inside T1b, the optimum concentrated, agree") {
  const auto check = check_concentration(v4_objective(5), two_restarts(), Parallel{});
  CHECK(check.beta_star == doctest::Approx(5.48193).epsilon(1e-5));  // THEORY.md, T1a
  CHECK(check.k_star == 1);
  REQUIRE(check.max_weight_first_order.has_value());
  CHECK(*check.max_weight_first_order >= 0.99);
  CHECK(check.optimum.summary.max_weight >= 0.99);
  CHECK(check.verdict.inside);
  CHECK(check.verdict.agree);
  CHECK(check.verdict.title ==
        "theorem concentration (theory/THEORY.md T1), normalized model, W=8 S=4 beta=5 N=32768");
  CHECK(keys(check_json(check)) ==
        with_verdict({"beta_star", "k_star_predicted", "max_weight_first_order", "gate",
                      "objective", "onehot_objective", "max_weight", "k_effective"}));
  CHECK(check_json(check)["regime"] == "inside");
}

TEST_CASE("concentration at beta 10: outside (k* > 1), the optimum splits, disagree") {
  const auto check = check_concentration(v4_objective(10), two_restarts(), Parallel{});
  CHECK(check.k_star > 1);
  CHECK(check.optimum.summary.k_effective > 1);
  CHECK_FALSE(check.verdict.inside);
  CHECK_FALSE(check.verdict.agree);
  CHECK(check_json(check)["verdict"] == "disagree");
}

TEST_CASE("concentration, linear model: one-hot below beta*, not above, no first order") {
  const auto below =
      check_concentration(v4_objective(4, RetentionModel::linear), two_restarts(), Parallel{});
  CHECK_FALSE(below.max_weight_first_order.has_value());
  CHECK(below.verdict.inside);
  CHECK(below.verdict.agree);
  CHECK(below.verdict.regime.starts_with("T1a: beta 4.000 <= beta*(N) = 5.4819"));
  CHECK_FALSE(check_json(below).contains("max_weight_first_order"));
  const auto above =
      check_concentration(v4_objective(10, RetentionModel::linear), two_restarts(), Parallel{});
  CHECK_FALSE(above.verdict.inside);
  CHECK_FALSE(above.verdict.agree);
}

TEST_CASE("concentration: the same optimum on any number of threads" *
          doctest::test_suite("bitexact")) {
  test::check_thread_invariance(
      [](const Parallel& p) { return check_concentration(v4_objective(6), two_restarts(), p); },
      [](const ConcentrationCheck& c) {
        return std::tuple(check_json(c), c.optimum.gate, c.optimum.best_start,
                          c.optimum.iterations);
      });
}

TEST_CASE("concentration settings validation messages") {
  auto settings = two_restarts();
  settings.threshold = 2;
  CHECK_THROWS_WITH_AS(settings.validate(), "invalid --threshold 2 (must be in (0, 1])",
                       InputError);
  settings = two_restarts();
  settings.search.restarts = 0;
  CHECK_THROWS_WITH_AS(settings.validate(), "invalid --restarts 0 (must be at least 1)",
                       InputError);
}

TEST_CASE("other_phase: the next phase with slots, cyclically") {
  CHECK(other_phase({8, 4}, 1) == 2);
  CHECK(other_phase({8, 4}, 3) == 0);
  // W = 2, S = 4: only phases 2 and 3 have slots.
  CHECK(other_phase({2, 4}, 2) == 3);
  CHECK(other_phase({2, 4}, 3) == 2);
  CHECK(other_phase({8, 1}, 0) == -1);  // one phase: nowhere to move the weight
}

TEST_CASE("lock-in at the defaults: every run keeps its initial argmax, agree") {
  // beta 4.5, 2000 steps at lr 20, then 500 re-weighted ones (two of the four inits of
  // `theorem lockin`, to keep the test to seconds).
  const auto o = v4_objective(4.5);
  const auto check = check_lockin(o, LockinSettings{}, two_inits(), Parallel{});
  REQUIRE(check.runs.size() == 2);
  for (const auto& run : check.runs) {
    CAPTURE(run.spec.init);
    const int phase = o.geometry.phase_of_slot(run.result.initial.argmax);
    CHECK(run.reweighted_to == other_phase(o.geometry, phase));
    CHECK(run.result.at_reweight.argmax == run.result.initial.argmax);
    CHECK(run.locked());
  }
  CHECK(check.locked == 2);
  CHECK(check.k_star == 1);
  CHECK(check.verdict.inside);
  CHECK(check.verdict.agree);
  CHECK(check.verdict.check == "2 of 2 runs locked in");
  CHECK(keys(check_json(check)) ==
        with_verdict({"k_star_predicted", "runs", "lock_in_count", "runs_total"}));
}

TEST_CASE("lock-in at beta 12: outside (k* > 1) and the runs do not stay, disagree") {
  const auto check = check_lockin(v4_objective(12), fast_lockin(), two_inits(), Parallel{});
  CHECK(check.k_star > 1);
  CHECK(check.locked < 2);
  CHECK_FALSE(check.verdict.inside);
  CHECK_FALSE(check.verdict.agree);
}

TEST_CASE("lock-in without re-weighting steps: no phase gets the weight") {
  auto settings = fast_lockin();
  settings.reweight_steps = 0;
  const auto run = lockin_run(v4_objective(4.5), settings, {"random:1:0.1", 1});
  CHECK(run.reweighted_to == -1);
  CHECK(run.result.trajectory.back().step == 300);
}

TEST_CASE("lock-in batch: the same runs on any number of threads, content noise included" *
          doctest::test_suite("bitexact")) {
  auto settings = fast_lockin();
  settings.dynamics.steps = 40;
  settings.reweight_steps = 20;
  settings.dynamics.content = {0.25, 0, 4};
  const auto specs = run_specs("random:1:0.1", 2, {1, 2}, 8);
  const auto one = test::check_thread_invariance(
      [&](const Parallel& p) { return lockin_runs(v4_objective(4.5), settings, specs, p); },
      [](const std::vector<LockinRun>& runs) {
        std::vector<std::pair<nlohmann::ordered_json, std::vector<double>>> keys;
        for (const auto& r : runs) keys.emplace_back(lockin_run_json(r), r.result.final_gate);
        return keys;
      });
  REQUIRE(one.size() == 4);
  for (std::size_t i = 0; i < one.size(); ++i) {
    CAPTURE(i);
    CHECK(one[i].spec.init == specs[i].init);
    CHECK(one[i].spec.content_seed == specs[i].content_seed);
  }
  CHECK(one[0].result.final_gate != one[1].result.final_gate);  // the seeds differ
}

TEST_CASE("diversity at the defaults of `theorem diversity`: inside, agree") {
  DiversityModel m;
  const auto check = check_diversity(m, {64, 128, 256, 512, 1024}, {});
  CHECK(check.verdict.inside);
  CHECK(check.verdict.agree);
  CHECK(check.relative_error < 0.05);
  CHECK(check.local_slope == doctest::Approx(-1).epsilon(0.05));
  CHECK(check.inclusion_exclusion_error < 1e-9);
  CHECK(keys(check_json(check)) ==
        with_verdict({"rows", "constant_c", "relative_error", "slope", "local_slope",
                      "inclusion_exclusion_error", "second_order_share", "second_order_slope"}));
  // The second-order term is small here: 0.66% of N gap at N = 1024 (THEORY.md T3).
  CHECK(check.second_order_share == doctest::Approx(0.0066).epsilon(0.05));
  CHECK(keys(check_json(check)["rows"][0]) ==
        std::vector<std::string>{"heads", "gap", "gap_times_n", "constant_c", "p_all_covered",
                                 "expected_blind"});
}

TEST_CASE("diversity for N of order S: outside, disagree, and one N has no slope") {
  DiversityModel m;
  const auto small = check_diversity(m, {1, 2, 4}, {});
  CHECK_FALSE(small.verdict.inside);
  CHECK_FALSE(small.verdict.agree);
  // One N used to give slope n/a and still agree (issue 12): the slope needs two N.
  CHECK_THROWS_WITH_AS(check_diversity(m, {1024}, {}),
                       "invalid --heads 1024 (the slope check needs at least two N, e.g. 512,1024)",
                       InputError);
}

TEST_CASE("diversity check validation messages") {
  DiversityCheckSettings settings;
  settings.tolerance = 0;
  CHECK_THROWS_WITH_AS(settings.validate(), "invalid --tolerance 0 (must be > 0)", InputError);
  CHECK_THROWS_WITH_AS(check_diversity(DiversityModel{}, {}, {}),
                       "invalid --heads  (the slope check needs at least two N, e.g. 512,1024)",
                       InputError);
}
