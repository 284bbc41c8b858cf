// The parallel parts of T3: joint training over several runs (the blind-phase statistics
// against the multinomial law, consistent with each run's coverage) and the sampled head
// assignments, each the same on 1 and 2 threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "phasesim/core/error.hpp"
#include "phasesim/theorems/diversity.hpp"
#include "support/threads.hpp"

using namespace phasesim;
using namespace phasesim::theorems;

namespace {

Objective heads_channel() {
  Objective o;
  o.geometry = {8, 4};
  o.beta = 4.5;
  o.entries = 32768;
  return o;
}

TrainingSettings short_training(int heads) {
  TrainingSettings settings;
  settings.heads = heads;
  settings.steps = 20;
  return settings;
}

}  // namespace

TEST_CASE("training statistics: blind counts follow from every run's coverage") {
  const int runs = 4;
  const auto t =
      training_statistics(heads_channel(), DiversityModel{}, short_training(3), runs, Parallel{});
  REQUIRE(t.runs.size() == static_cast<std::size_t>(runs));
  std::vector<double> observed(5, 0.0);
  double blind = 0, initial = 0;
  int kept = 0;
  for (std::size_t r = 0; r < t.runs.size(); ++r) {
    const auto& run = t.runs[r].result;
    CAPTURE(r);
    CHECK(t.runs[r].seed == 1 + 1000 * r);
    CHECK(std::accumulate(run.coverage.begin(), run.coverage.end(), 0) == 3);
    CHECK(run.blind == std::count(run.coverage.begin(), run.coverage.end(), 0));
    CHECK(run.blind >= 1);  // 3 heads cannot cover 4 phases
    observed[static_cast<std::size_t>(run.blind)] += 1.0 / runs;
    blind += run.blind;
    initial += run.initial_blind;
    kept += run.kept;
  }
  CHECK(t.blind_distribution_observed == observed);
  CHECK(t.blind_mean == doctest::Approx(blind / runs));
  CHECK(t.blind_initial_mean == doctest::Approx(initial / runs));
  CHECK(t.heads_kept == kept);
  CHECK(t.heads_total == 3 * runs);
  CHECK(t.blind_se >= 0);
  // The multinomial law: 4 (3/4)^3 blind phases expected, P(j blind) over j = 0..4.
  CHECK(t.blind_predicted == doctest::Approx(4 * 0.421875));
  CHECK(t.blind_distribution_predicted == blind_distribution(4, 3));
}

TEST_CASE("training statistics: the same on any number of threads, and the JSON keys" *
          doctest::test_suite("bitexact")) {
  // The JSON holds every run's final loss and coverage.
  const auto one = test::check_thread_invariance(
      [](const Parallel& p) {
        return training_statistics(heads_channel(), DiversityModel{}, short_training(4), 2, p);
      },
      [](const TrainingStatistics& t) { return training_json(t); });
  const auto doc = training_json(one);
  std::vector<std::string> keys;
  for (const auto& item : doc.items()) keys.push_back(item.key());
  CHECK(keys == std::vector<std::string>{
                    "heads", "runs", "blind_mean", "blind_se", "blind_predicted",
                    "blind_initial_mean", "blind_distribution_observed",
                    "blind_distribution_predicted", "heads_kept", "heads_total", "per_run"});
  CHECK(doc["runs"] == 2);
  CHECK(doc["per_run"][1]["seed"] == 1001);
}

TEST_CASE("one training run has no standard error, and none is refused") {
  const auto t =
      training_statistics(heads_channel(), DiversityModel{}, short_training(2), 1, Parallel{});
  CHECK(t.blind_se == 0);
  CHECK_THROWS_WITH_AS(
      training_statistics(heads_channel(), DiversityModel{}, short_training(2), 0, Parallel{}),
      "invalid --train-runs 0 (must be at least 1)", InputError);
}

TEST_CASE("sampled assignments: the same on any number of threads" *
          doctest::test_suite("bitexact")) {
  const DiversityModel m;
  test::check_thread_invariance(
      [&](const Parallel& p) { return sample_diversity(m, 12, 500, 3, p); },
      [](const SampledDiversity& s) { return sampled_diversity_json(s); });
}
