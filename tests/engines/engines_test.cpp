// The engines agree (tests/support/niah_fixture.hpp): every engine that can run a case against the
// exact analytic channel and against each other, in units of the Monte Carlo standard error
// (5 sigma, fixed seeds). Standardized cases compare analytic and fast; full-vector cases
// fast, full, full-double and, where a device is present, gpu.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "support/niah_fixture.hpp"
#include "support/threads.hpp"

using namespace phasesim;
using namespace phasesim::engines;
using namespace phasesim::niah;
using namespace phasesim::test;

namespace {

// W = 8, S = 4, one head "last", beta 4.5, L = 8192, 4 groups x 2000 prompts.
NiahSpec base() {
  NiahSpec s;
  s.context = 8192;
  s.groups = 4;
  s.prompts = 2000;
  return s;
}

const NiahResult& result_of(const std::vector<EngineRun>& runs, const std::string& engine) {
  const auto it = std::find_if(runs.begin(), runs.end(),
                               [&](const EngineRun& r) { return r.engine->name() == engine; });
  REQUIRE(it != runs.end());
  return it->result;
}

// --rms-norm with shared tokens: the fast engine's streaming-rms path against full.
struct RmsCase {
  int dim;
  Geometry geometry;
  std::string gates;
  double query_noise;
  double content_noise;
  std::int64_t context;
};

void check_streaming_rms(const RmsCase& c) {
  CAPTURE(c.dim);
  CAPTURE(c.geometry.window);
  CAPTURE(c.geometry.stride);
  CAPTURE(c.content_noise);
  auto s = full_vector(base(), c.dim, c.query_noise);
  s.geometry = c.geometry;
  s.gates = c.gates;
  s.content_noise = c.content_noise;
  s.context = c.context;
  s.rms_norm = true;
  REQUIRE(shipped_engines().find("fast").paths(make_run(s).model) ==
          std::vector<std::string>{"streaming-rms"});
  const auto runs = check_engines_agree(s, fast_and_full());
  CHECK(runs.size() == 2);
}

}  // namespace

TEST_CASE("standardized: W=8 S=4, one random head, 8 groups") {
  auto s = base();
  s.gates = "random:2:0.5";
  s.beta = 8;
  s.context = 32768;
  s.groups = 8;
  check_engines_agree(s);
}

TEST_CASE("standardized: W=6 S=4 (not a multiple), 2 heads, G=6") {
  auto s = base();
  s.geometry = {6, 4};
  s.gates = "uniform;onehot:2";
  s.beta = 7;
  s.context = 16384;
  s.groups = 6;  // not a multiple of S: each group mixes two phases
  check_engines_agree(s);
}

TEST_CASE("standardized: W=2 S=4 (W < S, blind phases)") {
  auto s = base();
  s.geometry = {2, 4};
  s.gates = "weights:1,2";
  s.beta = 5.5;
  const auto runs = check_engines_agree(s);
  const auto& fast = result_of(runs, "fast");
  CHECK(fast.groups[0].successes == 0);  // phases 0 and 1 are in no entry
  CHECK(fast.groups[1].successes == 0);
}

TEST_CASE("standardized: W=5 S=3, 3 random heads, vote:2") {
  auto s = base();
  s.geometry = {5, 3};
  s.gates = "random:7:0.5";
  s.heads = 3;
  s.combine = "vote:2";
  s.beta = 8;
  s.groups = 6;
  check_engines_agree(s);
}

TEST_CASE("standardized, with a knockout on the same trials") {
  auto s = base();
  s.gates = "random:1:0.5;random:4:0.5;onehot:5";
  s.beta = 7;
  s.knockout = 1;
  CHECK(result_of(check_engines_agree(s), "fast").knockout.has_value());
}

TEST_CASE("fast = analytic in the limit of vanishing content noise (per-entry gate paths)" *
          doctest::test_suite("statistics")) {
  auto s = base();
  s.gates = "uniform";
  s.beta = 10;
  s.context = 4096;
  const auto exact = run_spec(s, "analytic");
  s.content_noise = 1e-9;  // takes the content-noise paths; the gates barely move
  check_against_exact(run_spec(s, "fast"), exact);  // streaming independent entries
  s.rms_norm = true;
  check_against_exact(run_spec(s, "fast"), exact);  // needle entries' own gates
}

TEST_CASE("full-vector d=16: one-hot gates (conditional path, empty entries)" *
          doctest::test_suite("statistics")) {
  auto s = full_vector(base(), 16, 1.0);
  s.context = 1024;
  s.gates = "last";
  check_engines_agree(s);
  s.geometry = {12, 4};
  s.gates = "onehot:1";  // entries 0 and 1 pool nothing and score 0
  check_engines_agree(s);
}

TEST_CASE("full-vector d=64: uniform gate, entries share tokens (streaming)" *
          doctest::test_suite("statistics")) {
  // W = 8, S = 2: every token sits in 4 entries, so entry logits are strongly correlated;
  // sampling them as independent would be 8 points too high here, well beyond 5 sigma.
  auto s = full_vector(base(), 64, 1.0);
  s.geometry = {8, 2};
  s.gates = "uniform";
  s.context = 512;
  s.groups = 2;
  s.prompts = 3000;
  check_engines_agree(s);
}

TEST_CASE("full-vector d=16: --rms-norm with boundary entries" *
          doctest::test_suite("statistics")) {
  auto s = full_vector(base(), 16, 0.7);
  s.geometry = {6, 4};
  s.gates = "weights:1,2,3,4,0,0";  // no token shared; entry 0 renormalizes over slots 2..5
  s.context = 1024;
  s.rms_norm = true;
  check_engines_agree(s);
}

TEST_CASE("full-vector d=16: content noise, with and without --rms-norm" *
          doctest::test_suite("statistics")) {
  auto s = full_vector(base(), 16, 0.7);
  s.geometry = {6, 4};
  s.gates = "weights:1,2,3,4,0,0";
  s.context = 1024;
  s.content_noise = 1;
  check_engines_agree(s);  // fast streams over shared tokens
  s.rms_norm = true;
  check_engines_agree(s);  // fast conditions on the needle entries' own gates
}

TEST_CASE("full-vector --rms-norm, shared tokens, d=8 and 16: streaming-rms against full" *
          doctest::test_suite("statistics")) {
  check_streaming_rms({8, {8, 4}, "uniform", 0.5, 0, 1024});
  check_streaming_rms({8, {32, 16}, "random:2:0.5", 0.3, 0.7, 1024});  // 17 axes capped at D = 7
  check_streaming_rms({16, {4, 2}, "uniform", 0.7, 1, 1024});
  check_streaming_rms({16, {8, 4}, "random:6", 0.7, 0.5, 1024});
  // exp(tau xi) overflows a double: with the weights as plain numbers instead of logarithms
  // (PooledFrame::add_logs) fast gave 0.0095 +- 0.0015 here against full's 0.168 +- 0.006
  check_streaming_rms({16, {8, 4}, "uniform", 0.7, 1000, 512});
}

TEST_CASE("full-vector --rms-norm, shared tokens, d=64 and 128: streaming-rms against full" *
          doctest::test_suite("statistics")) {
  check_streaming_rms({64, {8, 4}, "uniform", 1.5, 0, 1024});
  check_streaming_rms({64, {4, 2}, "random:3", 1.5, 1, 1024});
  check_streaming_rms({128, {32, 16}, "uniform", 2, 0.5, 512});
  check_streaming_rms({128, {8, 4}, "uniform", 2, 1, 1024});
}

TEST_CASE("full-vector --rms-norm, shared tokens, at the frame's bounds: S = 1, d = 2 and 4" *
          doctest::test_suite("statistics")) {
  check_streaming_rms({16, {3, 1}, "uniform", 0.5, 0, 256});   // W - 1 entries stay open
  check_streaming_rms({4, {8, 1}, "uniform", 0.3, 0.5, 256});  // the frame spans D = 3
  check_streaming_rms({2, {8, 4}, "uniform", 0.3, 0, 256});    // D = 1: one axis
}

TEST_CASE("full-vector --rms-norm, shared tokens: needles near the start, boundary entries" *
          doctest::test_suite("statistics")) {
  // L = 64: needles from position 8, entry 0 renormalizes over slots 4..7 (W = 8, S = 4), and
  // W = 32, S = 16 leaves entry 0 half before position 0.
  check_streaming_rms({16, {8, 4}, "uniform", 0.7, 1, 64});
  check_streaming_rms({16, {32, 16}, "uniform", 0.5, 0, 96});
}

TEST_CASE("full-vector d=16: two heads combined, with a knockout" *
          doctest::test_suite("statistics")) {
  auto s = full_vector(base(), 16, 1.0);
  s.gates = "last;random:5";
  s.context = 1024;
  s.knockout = 0;
  check_engines_agree(s);
}

TEST_CASE("standardized: per-channel gates, each phase its share of the channels") {
  auto s = base();
  s.gates = "channels:onehot:4=0.7|onehot:5=0.3;channels:random:1|random:2|uniform";
  s.beta = 9;
  s.groups = 4;
  check_engines_agree(s);
}

TEST_CASE("full-vector d=20: per-channel gates, no shared token (conditional-channels)" *
          doctest::test_suite("statistics")) {
  // Groups of 6 and 14 channels (shares 0.3 and 0.7 of 20); at W = 12 entry 0 holds slots 8 to
  // 11, where group 1 renormalizes onto slot 11, and entry 1 slots 4 to 11.
  auto s = full_vector(base(), 20, 0.8);
  s.context = 1024;
  s.gates = "channels:onehot:7=0.3|weights:0,0,0,0,0,1,1,0=0.7";
  REQUIRE(shipped_engines().find("fast").paths(make_run(s).model) ==
          std::vector<std::string>{"conditional-channels"});
  check_engines_agree(s);
  s.geometry = {12, 4};
  s.gates = "channels:weights:0,0,1,0,0,0,0,0,0,0,0,3=0.3|onehot:9=0.7";
  check_engines_agree(s);
}

TEST_CASE(
    "full-vector d=16: per-channel gates sharing tokens, with content noise "
    "(streaming-channels)" *
    doctest::test_suite("statistics")) {
  auto s = full_vector(base(), 16, 0.7);
  s.geometry = {8, 4};
  s.gates = "channels:uniform=0.25|onehot:7=0.5|weights:4,3,2,1,0,0,0,0=0.25";
  s.context = 1024;
  REQUIRE(shipped_engines().find("fast").paths(make_run(s).model) ==
          std::vector<std::string>{"streaming-channels"});
  check_engines_agree(s);
  s.content_noise = 1;
  s.geometry = {6, 4};
  s.gates = "channels:weights:1,2,3,4,0,0|onehot:5|random:4";
  check_engines_agree(s);
}

TEST_CASE("standardized: split projections, the older slots' needle at rho beta u") {
  auto s = base();
  s.gates = "uniform;random:3:0.5;channels:onehot:1|onehot:6";
  s.split_rho = 0.5;
  s.beta = 9;
  check_engines_agree(s);
  s.gates = "uniform";
  s.split_rho = 0;  // no older slot can retrieve: phases read only their newer slot
  s.beta = 12;
  check_engines_agree(s);
}

TEST_CASE("fast = analytic with split projections in the limit of vanishing content noise" *
          doctest::test_suite("statistics")) {
  auto s = base();
  s.gates = "weights:1,2,3,4,4,3,2,1";
  s.split_rho = 0.4;
  s.beta = 10;
  s.context = 4096;
  const auto exact = run_spec(s, "analytic");
  s.content_noise = 1e-9;  // the streaming-entries path, whose older needle slots draw b
  check_against_exact(run_spec(s, "fast"), exact);
}

TEST_CASE(
    "full-vector d=16: split projections on every fast path without --rms-norm "
    "shared tokens" *
    doctest::test_suite("statistics")) {
  auto s = full_vector(base(), 16, 0.7);
  s.context = 1024;
  s.split_rho = 0.3;
  s.gates = "onehot:1;weights:0,0,1,0,0,0,0,3";  // conditional: the needle's older slot
  check_engines_agree(s);
  s.gates = "uniform";  // streaming-tokens: every token in an older and a newer entry
  check_engines_agree(s);
  s.gates = "channels:weights:1,0,0,0,0,1,0,0|onehot:6;channels:uniform|last";
  check_engines_agree(s);  // conditional-channels, streaming-channels
  s.gates = "weights:1,2,3,4,0,0,0,0";
  s.rms_norm = true;  // conditional-rms: the needle entry from its older key in d dimensions
  s.content_noise = 0.5;
  check_engines_agree(s);
}

// One cache read by 3 query heads (layer 1) and a head with its own (layer 2).
constexpr const char* kSharedCache =
    "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:5:0.5\"\nquery_heads = 3\n"
    "[[layer]]\nwindow = 6\nstride = 4\ngate = \"onehot:1\"";

TEST_CASE("standardized: query heads of one cache attend alike and combine as one") {
  auto s = base();
  s.architecture = architecture(kSharedCache);
  s.beta = 8;
  check_engines_agree(s);
  s.combine = "vote:3";  // the cache's 3 votes come together: the cache alone decides
  s.knockout = 1;        // two query heads left: the cache no longer reaches 3 votes alone
  check_engines_agree(s);
}

TEST_CASE("full-vector d=16: a shared cache without query noise (fast) and with it (full)" *
          doctest::test_suite("statistics")) {
  auto s = full_vector(base(), 16, 0.0);
  s.context = 1024;
  s.architecture = architecture(kSharedCache);
  check_engines_agree(s);  // fast's query heads draw alike; full's scans give equal argmaxes
  s = full_vector(s, 16, 0.8);
  s.combine = "vote:2";
  const auto runs = check_engines_agree(s);  // full against full-double
  CHECK(runs.size() == 2);
}

TEST_CASE(
    "query heads of one cache read the same keys: equal argmaxes without query noise, "
    "the same entries' logits differ with it" *
    doctest::test_suite("bitexact")) {
  auto s = full_vector(base(), 16, 0.0);
  s.context = 1024;
  s.prompts = 20;
  s.architecture = architecture(kSharedCache);
  for (const double noise : {0.0, 0.8}) {
    s.query_noise = noise;
    // The engines scan the cache's first query head and the other layer's head, or all four.
    const auto scanned = plan(s, "full").run().model.scanned_heads();
    CHECK(scanned == (noise == 0 ? std::vector<int>{0, 3} : std::vector<int>{0, 1, 2, 3}));
    const auto output = run_engine(plan(s, "full"), Parallel{1});
    int differing = 0;
    for (std::int64_t t = 0; t < output.outcomes->trials(); ++t) {
      const auto row = static_cast<std::size_t>(t * 4);
      const auto& first = output.argmaxes[row];
      for (std::size_t q = 1; q < 3; ++q) {
        const auto& other = output.argmaxes[row + q];
        differing += other.entry != first.entry || other.logit != first.logit ? 1 : 0;
      }
    }
    CAPTURE(noise);
    if (noise == 0) CHECK(differing == 0);
    if (noise > 0) CHECK(differing > 0);
  }
}

TEST_CASE("architecture, standardized: strides 4, 3 and 5 with offsets, G=6") {
  auto s = base();
  s.architecture = architecture(R"(
[[layer]]
window = 8
stride = 4
gate = "random:2:0.5"
heads = [{ offset = 0 }, { offset = 3 }]
[[layer]]
window = 5
stride = 3
offset = 1
gate = "weights:1,2,3,4,5"
[[layer]]
window = 6
stride = 5
offset = 4
gate = "uniform"
)");
  s.beta = 7;
  s.context = 16384;
  s.groups = 6;  // each group holds needles of many stride classes (lcm 60)
  check_engines_agree(s);
  s.combine = "vote:2";
  s.knockout = 1;
  check_engines_agree(s);
}

TEST_CASE("architecture, full-vector d=16: mixed windows, strides and offsets, every fast path" *
          doctest::test_suite("statistics")) {
  auto s = full_vector(base(), 16, 1.0);
  s.architecture = architecture(R"(
[[layer]]
window = 8
stride = 4
offset = 1
gate = "last"
[[layer]]
window = 6
stride = 4
offset = 3
gate = "uniform"
[[layer]]
window = 12
stride = 5
offset = 2
gate = "onehot:1"
)");  // conditional; streaming tokens (shared, noisy); boundary entries that pool nothing
  s.context = 1024;
  s.content_noise = 0.8;  // moves only the uniform gate: one-slot gates cannot move
  const auto runs = check_engines_agree(s);
  std::vector<std::string> names;  // analytic has no content noise; gpu runs where a device is
  for (const auto& r : runs) {
    if (r.engine->name() != "gpu") names.push_back(r.engine->name());
  }
  CHECK(names == std::vector<std::string>{"fast", "full", "full-double"});
  CHECK(shipped_engines().find("fast").paths(make_run(s).model) ==
        std::vector<std::string>{"conditional", "streaming-tokens", "conditional"});
}

TEST_CASE("architecture, full-vector d=16: --rms-norm with offsets and W < S" *
          doctest::test_suite("statistics")) {
  auto s = full_vector(base(), 16, 0.7);
  s.architecture = architecture(R"(
[[layer]]
window = 6
stride = 4
offset = 1
gate = "weights:1,2,3,4,0,0"
[[layer]]
window = 3
stride = 5
offset = 4
gate = "weights:1,2,3"
)");
  s.context = 1024;
  s.rms_norm = true;
  check_engines_agree(s);
}

TEST_CASE("architecture, full-vector d=16: --rms-norm, shared and unshared tokens, offsets" *
          doctest::test_suite("statistics")) {
  auto s = full_vector(base(), 16, 0.7);
  s.architecture = architecture(R"(
[[layer]]
window = 8
stride = 4
offset = 1
gate = "uniform"
[[layer]]
window = 6
stride = 2
offset = 1
gate = "random:4"
[[layer]]
window = 6
stride = 4
offset = 3
gate = "weights:1,2,3,4,0,0"
)");
  s.context = 1024;
  s.rms_norm = true;
  s.content_noise = 0.8;
  CHECK(shipped_engines().find("fast").paths(make_run(s).model) ==
        std::vector<std::string>{"streaming-rms", "streaming-rms", "conditional-rms"});
  check_engines_agree(s, fast_and_full());
}

TEST_CASE("periodicity: a one-hot gate repeats with period S over the groups") {
  auto s = base();
  s.gates = "onehot:6";
  s.beta = 4;
  s.groups = 8;
  const auto runs = check_engines_agree(s);
  const auto& exact = result_of(runs, "analytic");
  const auto& fast = result_of(runs, "fast");
  for (std::size_t r = 0; r < 4; ++r) {
    CAPTURE(r);
    CHECK(exact.groups[r].accuracy == exact.groups[r + 4].accuracy);
    const double sigma = std::hypot(fast.groups[r].std_error, fast.groups[r + 4].std_error);
    CHECK(std::abs(fast.groups[r].accuracy - fast.groups[r + 4].accuracy) <= 5 * sigma);
  }
  CHECK(exact.groups[2].accuracy > 0.5);  // the covered phase
  CHECK(exact.groups[0].accuracy < 0.01);
}

TEST_CASE("full attention (W = S = 1) is flat" * doctest::test_suite("statistics")) {
  auto s = base();
  s.geometry = {1, 1};
  s.beta = 4;
  const auto runs = check_engines_agree(s);
  const auto& exact = result_of(runs, "analytic");
  for (const auto& g : exact.groups) CHECK(g.accuracy == exact.groups[0].accuracy);
  s = full_vector(s, 16, 1.0);
  s.context = 1024;
  for (const auto& run : check_engines_agree(s)) {
    const auto& r = run.result;
    for (const auto& g : r.groups) check_near_exact(g.accuracy, r.summary.mean, s.prompts);
  }
}

TEST_CASE("knockout of the only head covering a phase drops that phase to chance") {
  auto s = base();
  s.geometry = {4, 4};
  s.gates = "onehot:0;onehot:1;onehot:2;onehot:3";  // head h alone covers phase h
  s.beta = 5;
  s.context = 16384;
  s.knockout = 2;
  const double entries = 4096;
  const double chance = 1 - std::pow(1 - 1 / entries, 3);  // 3 blind heads, 1 entry each
  const auto runs = check_engines_agree(s);
  const auto& exact = result_of(runs, "analytic");
  CHECK(exact.groups[2].accuracy > 0.9);
  CHECK(exact.knockout->groups[2].accuracy == doctest::Approx(chance).epsilon(1e-6));
  const auto& fast = result_of(runs, "fast");
  check_near_exact(fast.knockout->groups[2].accuracy, chance, s.prompts);
  CHECK(fast.knockout->groups[2].change < -0.9);
  for (std::size_t r : {0, 1, 3}) CHECK(std::abs(exact.knockout->groups[r].change) < 1e-3);
}

TEST_CASE("engines refuse what they cannot do exactly, naming one that can") {
  auto s = base();
  s.content_noise = 0.5;
  CHECK_THROWS_WITH(run_spec(s, "analytic"),
                    "invalid --content-noise 0.5 with --engine analytic (the analytic channel "
                    "has no content noise; use --engine fast)");
  CHECK_THROWS_WITH(run_spec(s, "full"),
                    "invalid --engine full without --dim (the full-vector engine needs --dim D)");
  s.gates = "channels:onehot:7|onehot:6";
  CHECK_THROWS_WITH(run_spec(s, "fast"),
                    "invalid --engine fast: head 0 has the per-channel gate "
                    "'channels:onehot:7|onehot:6', and the standardized channel has no channels "
                    "to give content noise; give --dim D and use --engine full or fast");
  s = full_vector(base(), 16, 1.0);
  s.rms_norm = true;
  s.gates = "uniform";
  s.split_rho = 0.5;
  CHECK_THROWS_WITH(run_spec(s, "fast"),
                    "invalid --engine fast: head 0 has split projections (split_rho 0.5) with "
                    "--rms-norm and shared tokens, and fast has no exact path for them; use "
                    "--engine full");
  s.split_rho = 1;
  s.rms_norm = false;
  s.architecture = architecture(kSharedCache);
  CHECK_THROWS_WITH(run_spec(s, "fast"),
                    "invalid --engine fast: head 0 shares its cache with other query heads, and "
                    "with query noise (--query-noise, or a layer's beta below sqrt(d)) their "
                    "logits are correlated through the keys, which fast has no exact path for; "
                    "use --engine full (without query noise they attend alike)");
  s.read.top_k = 8;  // the read path's paths too (they gave each query head its own keys)
  CHECK_THROWS_WITH(run_spec(s, "fast"),
                    "invalid --engine fast: head 0 shares its cache with other query heads, and "
                    "with query noise (--query-noise, or a layer's beta below sqrt(d)) their "
                    "logits are correlated through the keys, which fast has no exact path for; "
                    "use --engine full (without query noise they attend alike)");
  s.read.top_k.reset();
  CHECK_THROWS_WITH(run_spec(s, "analytic"),
                    "invalid --engine analytic: query heads that share a cache (query_heads) with "
                    "query noise (--query-noise, or a layer's beta below sqrt(d)) have correlated "
                    "logits the analytic channel does not compute; use --engine full");
  s.architecture.reset();
  s.rms_norm = true;
  s.gates = "channels:onehot:7|onehot:6";
  CHECK_THROWS_WITH(run_spec(s, "fast"),
                    "invalid --engine fast: head 0 has the per-channel gate "
                    "'channels:onehot:7|onehot:6', and fast has no exact path for it with "
                    "--rms-norm (its pooled entries' channels have unequal variances); use "
                    "--engine full");
  CHECK_THROWS_WITH(shipped_engines().find("cpu"),
                    "invalid --engine cpu (use analytic, fast, full, full-double or gpu)");
}

TEST_CASE("every engine says how it computes each head and whether it approximates") {
  auto s = full_vector(base(), 16, 1.0);
  s.gates = "last;uniform";
  const auto model = make_run(s).model;
  const auto& engines = shipped_engines();
  CHECK(engines.names() ==
        std::vector<std::string>{"analytic", "fast", "full", "full-double", "gpu"});
  CHECK(engines.find("analytic").paths(model) ==
        std::vector<std::string>{"quadrature", "quadrature"});
  CHECK(engines.find("fast").paths(model) ==
        std::vector<std::string>{"conditional", "streaming-tokens"});
  CHECK(engines.find("full").paths(model) ==
        std::vector<std::string>{"full-vector", "full-vector"});
  CHECK(engines.find("analytic").approximation(model) ==
        "the large-d limit of the full-vector model");
  CHECK(engines.find("fast").approximation(model).empty());
}

TEST_CASE("Monte Carlo output does not depend on the thread count" *
          doctest::test_suite("bitexact")) {
  auto s = full_vector(base(), 16, 1.0);
  s.gates = "uniform;random:3";
  s.context = 1024;
  s.prompts = 50;
  auto arch = s;  // heads of different windows share one workspace a thread
  arch.architecture = architecture(
      "[[layer]]\nwindow = 3\nstride = 2\noffset = 1\ngate = \"uniform\"\n"
      "[[layer]]\nwindow = 9\nstride = 4\ngate = \"random:3\"");
  auto rms = arch;  // the streaming-rms path, with content noise
  rms.rms_norm = true;
  rms.content_noise = 0.5;
  auto channels = s;  // streaming-channels, with split projections
  channels.gates = "channels:uniform|onehot:6;channels:onehot:7=0.25|onehot:2=0.75";
  channels.content_noise = 0.5;
  channels.split_rho = 0.5;
  for (const auto& spec : {s, arch, rms, channels}) {
    for (const auto* name : {"fast", "full", "full-double"}) {
      CAPTURE(name);
      const auto prepared = plan(spec, name);
      // Every (trial, head): the outcome, and the entry and logit where the engine has them.
      const auto bits = [&](const EngineOutput& output) {
        std::vector<std::tuple<std::uint8_t, std::int64_t, double>> rows;
        for (std::int64_t t = 0; t < output.outcomes->trials(); ++t) {
          for (int h = 0; h < output.outcomes->heads(); ++h) {
            const auto i = static_cast<std::size_t>(t * output.outcomes->heads() + h);
            const bool argmax = !output.argmaxes.empty();
            rows.emplace_back(output.outcomes->row(t)[static_cast<std::size_t>(h)],
                              argmax ? output.argmaxes[i].entry : -1,
                              argmax ? output.argmaxes[i].logit : 0.0);
          }
        }
        return rows;
      };
      check_thread_invariance([&](const Parallel& p) { return run_engine(prepared, p); }, bits);
    }
  }
}
