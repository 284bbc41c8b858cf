// The engines agree: fast against the exact analytic channel, fast against full in the
// full-vector model, all in units of the Monte Carlo standard error (5 sigma, fixed seeds).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "phasesim/engines/engine.hpp"

using namespace phasesim;

namespace {

struct Setup {
  Geometry geometry{8, 4};
  std::string gates = "last";
  int heads = 0;  ///< 0: one head per spec; otherwise replicate a single spec
  std::optional<double> beta = 4.5;
  std::optional<int> dim;
  double query_noise = 0;
  double content_noise = 0;
  bool rms_norm = false;
  std::int64_t context = 8192;
  int groups = 4;
  int prompts = 2000;
  std::string combine = "any";
  std::optional<int> knockout;
  std::uint64_t seed = 1;

  Setup& full_vector(int d, double sigma_q) {
    beta.reset();
    dim = d;
    query_noise = sigma_q;
    return *this;
  }

  NiahRun run() const {
    NiahRun r;
    r.model.geometry = geometry;
    const auto parsed = parse_gates(gates, geometry.window);
    for (int h = 0; h < std::max(heads, 1); ++h) {
      if (heads == 0) {
        r.model.gates = parsed;
        break;
      }
      r.model.gates.push_back(replicate_gate(parsed.front(), h));
    }
    r.model.context = context;
    r.model.beta = beta;
    r.model.dim = dim;
    r.model.query_noise = query_noise;
    r.model.content_noise = content_noise;
    r.model.rms_norm = rms_norm;
    r.model.seed = seed;
    r.needles = plan_needles(geometry, context, groups, prompts);
    r.combine = parse_combine(combine, r.model.heads());
    r.knockout = knockout;
    return r;
  }

  NiahResult result(EngineKind engine) const { return run_niah(run(), engine, 0); }
};

// |estimate - exact| within 5 standard errors of a proportion whose true value is `exact`.
void check_near_exact(double estimate, double exact, std::int64_t trials) {
  const double sigma = std::sqrt(exact * (1 - exact) / static_cast<double>(trials));
  CHECK(std::abs(estimate - exact) <= 5 * sigma);
}

// Monte Carlo groups against exact per-group probabilities.
void check_against_exact(const NiahResult& mc, const NiahResult& exact) {
  REQUIRE(mc.groups.size() == exact.groups.size());
  for (std::size_t r = 0; r < mc.groups.size(); ++r) {
    CAPTURE(r);
    CAPTURE(mc.groups[r].accuracy);
    CAPTURE(exact.groups[r].accuracy);
    check_near_exact(mc.groups[r].accuracy, exact.groups[r].accuracy, *mc.groups[r].trials);
  }
}

// Two independent Monte Carlo estimates per group within 5 combined standard errors (the
// pooled two-proportion test, which stays valid when both estimates are 0 or 1).
void check_agree(const NiahResult& a, const NiahResult& b) {
  REQUIRE(a.groups.size() == b.groups.size());
  for (std::size_t r = 0; r < a.groups.size(); ++r) {
    const auto& x = a.groups[r];
    const auto& y = b.groups[r];
    const auto n = static_cast<double>(*x.trials);
    const auto m = static_cast<double>(*y.trials);
    const double pooled = static_cast<double>(*x.successes + *y.successes) / (n + m);
    const double sigma = std::sqrt(pooled * (1 - pooled) * (1 / n + 1 / m));
    CAPTURE(r);
    CAPTURE(x.accuracy);
    CAPTURE(y.accuracy);
    CHECK(std::abs(x.accuracy - y.accuracy) <= 5 * sigma);
  }
}

void check_fast_matches_analytic(const Setup& s) {
  check_against_exact(s.result(EngineKind::fast), s.result(EngineKind::analytic));
}

// fast and full on independent seeds, so that their errors are independent.
void check_fast_matches_full(Setup s) {
  const auto fast = s.result(EngineKind::fast);
  s.seed += 1000;
  check_agree(fast, s.result(EngineKind::full));
}

}  // namespace

TEST_CASE("fast = analytic, standardized: W=8 S=4, one random head, 8 groups") {
  Setup s;
  s.gates = "random:2:0.5";
  s.beta = 8;
  s.context = 32768;
  s.groups = 8;
  check_fast_matches_analytic(s);
}

TEST_CASE("fast = analytic, standardized: W=6 S=4 (not a multiple), 2 heads, G=6") {
  Setup s;
  s.geometry = {6, 4};
  s.gates = "uniform;onehot:2";
  s.beta = 7;
  s.context = 16384;
  s.groups = 6;  // not a multiple of S: each group mixes two phases
  check_fast_matches_analytic(s);
}

TEST_CASE("fast = analytic, standardized: W=2 S=4 (W < S, blind phases)") {
  Setup s;
  s.geometry = {2, 4};
  s.gates = "weights:1,2";
  s.beta = 5.5;
  const auto fast = s.result(EngineKind::fast);
  CHECK(fast.groups[0].successes == 0);  // phases 0 and 1 are in no entry
  CHECK(fast.groups[1].successes == 0);
  check_against_exact(fast, s.result(EngineKind::analytic));
}

TEST_CASE("fast = analytic, standardized: W=5 S=3, 3 random heads, vote:2") {
  Setup s;
  s.geometry = {5, 3};
  s.gates = "random:7:0.5";
  s.heads = 3;
  s.combine = "vote:2";
  s.beta = 8;
  s.groups = 6;
  check_fast_matches_analytic(s);
}

TEST_CASE("fast = analytic, standardized, with a knockout on the same trials") {
  Setup s;
  s.gates = "random:1:0.5;random:4:0.5;onehot:5";
  s.beta = 7;
  s.knockout = 1;
  const auto fast = s.result(EngineKind::fast);
  const auto exact = s.result(EngineKind::analytic);
  for (std::size_t r = 0; r < fast.knockout.size(); ++r) {
    CAPTURE(r);
    check_near_exact(fast.knockout[r].accuracy, exact.knockout[r].accuracy, s.prompts);
    // Removing a head can only lose trials: -change is the probability of losing one.
    check_near_exact(-fast.knockout[r].change, -exact.knockout[r].change, s.prompts);
  }
}

TEST_CASE("fast = analytic in the limit of vanishing content noise (per-entry gate paths)") {
  Setup s;
  s.gates = "uniform";
  s.beta = 10;
  s.context = 4096;
  const auto exact = s.result(EngineKind::analytic);
  s.content_noise = 1e-9;  // takes the content-noise paths; the gates barely move
  check_against_exact(s.result(EngineKind::fast), exact);  // streaming independent entries
  s.rms_norm = true;
  check_against_exact(s.result(EngineKind::fast), exact);  // needle entries' own gates
}

TEST_CASE("fast = full, full-vector d=16: one-hot gates (conditional path, empty entries)") {
  Setup s;
  s.full_vector(16, 1.0);
  s.context = 1024;
  s.gates = "last";
  check_fast_matches_full(s);
  s.geometry = {12, 4};
  s.gates = "onehot:1";  // entries 0 and 1 pool nothing and score 0
  check_fast_matches_full(s);
}

TEST_CASE("fast = full, full-vector d=64: uniform gate, entries share tokens (streaming)") {
  // W = 8, S = 2: every token sits in 4 entries, so entry logits are strongly correlated;
  // sampling them as independent would be 8 points too high here, well beyond 5 sigma.
  Setup s;
  s.full_vector(64, 1.0);
  s.geometry = {8, 2};
  s.gates = "uniform";
  s.context = 512;
  s.groups = 2;
  s.prompts = 3000;
  check_fast_matches_full(s);
}

TEST_CASE("fast = full, full-vector d=16: --rms-norm with boundary entries") {
  Setup s;
  s.full_vector(16, 0.7);
  s.geometry = {6, 4};
  s.gates = "weights:1,2,3,4,0,0";  // no token shared; entry 0 renormalizes over slots 2..5
  s.context = 1024;
  s.rms_norm = true;
  check_fast_matches_full(s);
}

TEST_CASE("fast = full, full-vector d=16: content noise, with and without --rms-norm") {
  Setup s;
  s.full_vector(16, 0.7);
  s.geometry = {6, 4};
  s.gates = "weights:1,2,3,4,0,0";
  s.context = 1024;
  s.content_noise = 1;
  check_fast_matches_full(s);  // streaming over shared tokens
  s.rms_norm = true;
  check_fast_matches_full(s);  // conditional with the needle entries' own gates
}

TEST_CASE("fast = full, full-vector d=16: two heads combined, with a knockout") {
  Setup s;
  s.full_vector(16, 1.0);
  s.gates = "last;random:5";
  s.context = 1024;
  s.knockout = 0;
  check_fast_matches_full(s);
}

TEST_CASE("periodicity: a one-hot gate repeats with period S over the groups") {
  Setup s;
  s.gates = "onehot:6";
  s.beta = 4;
  s.groups = 8;
  const auto exact = s.result(EngineKind::analytic);
  const auto fast = s.result(EngineKind::fast);
  for (std::size_t r = 0; r < 4; ++r) {
    CAPTURE(r);
    CHECK(exact.groups[r].accuracy == exact.groups[r + 4].accuracy);
    const double sigma = std::hypot(fast.groups[r].std_error, fast.groups[r + 4].std_error);
    CHECK(std::abs(fast.groups[r].accuracy - fast.groups[r + 4].accuracy) <= 5 * sigma);
  }
  CHECK(exact.groups[2].accuracy > 0.5);  // the covered phase
  CHECK(exact.groups[0].accuracy < 0.01);
}

TEST_CASE("full attention (W = S = 1) is flat") {
  Setup s;
  s.geometry = {1, 1};
  s.beta = 4;
  const auto exact = s.result(EngineKind::analytic);
  for (const auto& g : exact.groups) CHECK(g.accuracy == exact.groups[0].accuracy);
  check_against_exact(s.result(EngineKind::fast), exact);
  s.full_vector(16, 1.0);
  s.context = 1024;
  const auto full = s.result(EngineKind::full);
  for (const auto& g : full.groups) check_near_exact(g.accuracy, full.summary.mean, s.prompts);
}

TEST_CASE("knockout of the only head covering a phase drops that phase to chance") {
  Setup s;
  s.geometry = {4, 4};
  s.gates = "onehot:0;onehot:1;onehot:2;onehot:3";  // head h alone covers phase h
  s.beta = 5;
  s.context = 16384;
  s.knockout = 2;
  const double entries = 4096;
  const double chance = 1 - std::pow(1 - 1 / entries, 3);  // 3 blind heads, 1 entry each
  const auto exact = s.result(EngineKind::analytic);
  CHECK(exact.groups[2].accuracy > 0.9);
  CHECK(exact.knockout[2].accuracy == doctest::Approx(chance).epsilon(1e-6));
  const auto fast = s.result(EngineKind::fast);
  check_near_exact(fast.knockout[2].accuracy, chance, s.prompts);
  CHECK(fast.knockout[2].change < -0.9);
  for (std::size_t r : {0, 1, 3}) {
    CHECK(std::abs(exact.knockout[r].change) < 1e-3);
    check_near_exact(-fast.knockout[r].change, -exact.knockout[r].change, s.prompts);
  }
}

TEST_CASE("engines refuse what they cannot do exactly") {
  Setup s;
  s.content_noise = 0.5;
  CHECK_THROWS_WITH(s.result(EngineKind::analytic),
                    "invalid --content-noise 0.5 with --engine analytic (the analytic channel "
                    "has no content noise; use --engine fast)");
  CHECK_THROWS_WITH(s.result(EngineKind::full),
                    "invalid --engine full without --dim (the full-vector engine needs --dim D)");
  s.full_vector(16, 0);
  s.gates = "uniform";
  s.rms_norm = true;
  CHECK_THROWS_WITH(s.result(EngineKind::fast),
                    "invalid --rms-norm with --engine fast (gate 'uniform' weights slots 0 and 4, "
                    "so neighbouring entries share a token and their RMS norms have no exact fast "
                    "reduction; use --engine full)");
  CHECK(engine_paths(EngineKind::full, s.run().model) == std::vector<std::string>{"full-vector"});
}
