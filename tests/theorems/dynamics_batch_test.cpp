// A batch of dynamics runs (T2): its runs in init-major order, the same runs on 1 and 2
// threads, and the JSON of `dynamics`.
#include "phasesim/theorems/dynamics_batch.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "phasesim/core/error.hpp"
#include "support/threads.hpp"
#include "support/v4_objective.hpp"

using namespace phasesim;
using namespace phasesim::theorems;
using phasesim::test::v4_objective;

TEST_CASE("run_specs: inits times content seeds, init-major, random inits replicated") {
  const auto specs = run_specs("random:5:0.1", 2, {7, 9}, 8);
  REQUIRE(specs.size() == 4);
  CHECK(specs[0].init == "random:5:0.1");
  CHECK(specs[0].content_seed == 7);
  CHECK(specs[1].init == "random:5:0.1");
  CHECK(specs[1].content_seed == 9);
  CHECK(specs[2].init == "random:6:0.1");
  CHECK(specs[3].content_seed == 9);
  CHECK(run_specs("last", 2, {1}, 8)[1].init == "last");  // nothing to replicate
}

TEST_CASE("run_specs validation messages") {
  CHECK_THROWS_WITH_AS(run_specs("random:1:0.1", 0, {1}, 8),
                       "invalid --inits 0 (must be at least 1)", InputError);
  CHECK_THROWS_WITH_AS(run_specs("random:1:0.1", 1, {}, 8),
                       "invalid --content-seed (give at least one seed)", InputError);
  CHECK_THROWS_AS(run_specs("spiky", 1, {1}, 8), InputError);
}

TEST_CASE("dynamics batch: the same runs on any number of threads" *
          doctest::test_suite("bitexact")) {
  // Content noise makes every run depend on its seed; re-weighting mid-run as `dynamics
  // --reweight-at` does.
  DynamicsSettings settings;
  settings.steps = 40;
  settings.record_every = 10;
  settings.content = {0.25, 0, 4};
  settings.reweight_at = 20;
  settings.reweight = {0, 0, 1, 0};
  const auto specs = run_specs("random:1:0.1", 2, {1, 2}, 8);
  // Every run's gates, objective and evaluations, and the lock-in count.
  const auto one = test::check_thread_invariance(
      [&](const Parallel& p) { return run_dynamics_batch(v4_objective(4.5), specs, settings, p); },
      [](const DynamicsBatch& batch) {
        std::vector<std::tuple<std::vector<double>, double, int>> runs;
        for (const auto& r : batch.runs) {
          runs.emplace_back(r.result.final_gate, r.result.final_objective, r.result.evaluations);
        }
        return std::pair(dynamics_batch_json(batch), runs);
      });
  REQUIRE(one.runs.size() == 4);
  for (std::size_t i = 0; i < one.runs.size(); ++i) {
    CAPTURE(i);
    CHECK(one.runs[i].spec.init == specs[i].init);
    CHECK(one.runs[i].spec.content_seed == specs[i].content_seed);
  }
  // Each run draws with its own seed, not the one in the settings.
  CHECK(one.runs[0].result.final_gate != one.runs[1].result.final_gate);
}

TEST_CASE("dynamics batch JSON: the first run's trajectory, every run, the lock-in count") {
  DynamicsSettings settings;
  settings.steps = 200;
  settings.lr = 40;
  settings.record_every = 100;
  const auto batch = run_dynamics_batch(v4_objective(4.5), run_specs("random:1:0.1", 2, {1}, 8),
                                        settings, Parallel{});
  CHECK(batch.kept == 2);  // T2: from small random inits the initial argmax wins
  const auto doc = dynamics_batch_json(batch);
  std::vector<std::string> keys;
  for (const auto& item : doc.items()) keys.push_back(item.key());
  CHECK(keys == std::vector<std::string>{"trajectory", "init_argmax", "final_argmax",
                                         "final_max_weight", "runs", "lock_in_count", "runs_total",
                                         "lock_in_fraction"});
  REQUIRE(doc["trajectory"].size() == 3);  // steps 0, 100, 200
  CHECK(doc["trajectory"][2]["step"] == 200);
  CHECK(doc["runs"][1]["init"] == "random:2:0.1");
  CHECK(doc["runs"][1].size() == 11);
  CHECK(doc["lock_in_fraction"] == 1.0);
}
