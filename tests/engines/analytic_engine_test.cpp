// The analytic engine computes each distinct head once: the query heads of a cache (they attend
// alike in the analytic channel) and heads with the same geometry, gate and split projection
// repeat the first one's P_h(phi), which is the channel's own, bit for bit.
#include "phasesim/engines/analytic_engine.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "phasesim/channel/phase_channel.hpp"
#include "support/niah_fixture.hpp"

using namespace phasesim;
using namespace phasesim::engines;
using namespace phasesim::niah;

namespace {

// The architecture `toml` at beta 6, L = 8192, 4 groups of 2 prompts.
NiahSpec small(const std::string& toml) {
  NiahSpec spec;
  spec.architecture = test::architecture(toml);
  spec.beta = 6;
  spec.context = 8192;
  spec.groups = 4;
  spec.prompts = 2;
  return spec;
}

}  // namespace

TEST_CASE("analytic engine: query heads of a cache and equal heads are computed once") {
  // A cache read by three query heads, a second cache with the same gate and geometry, one
  // with another gate, and a cache with the first's gate and another offset.
  const auto spec = small(
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:5:0.5\"\nquery_heads = 3\n"
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:5:0.5\"\n"
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:6:0.5\"\n"
      "[[layer]]\nwindow = 8\nstride = 4\noffset = 1\ngate = \"random:5:0.5\"");
  const auto registry = builtin_engines();
  const auto plan = prepare(spec, registry.find("analytic"), 2);
  const auto& m = plan.run().model;
  CHECK(AnalyticEngine::computed_as(m) == std::vector<int>{0, 0, 0, 0, 4, 5});
  const auto output = run_engine(plan, Parallel{2});
  REQUIRE(output.phase_success.size() == 6);
  for (int h = 0; h < m.heads(); ++h) {
    CAPTURE(h);
    CHECK(output.phase_success[static_cast<std::size_t>(h)] ==
          channel::phase_success(m.geometry(h), m.gates[static_cast<std::size_t>(h)],
                                 m.beta_effective(), m.entries(h), m.split_rho(h)));
  }
  // The estimate counts the three distinct heads' phases, not six heads'.
  auto alone = spec;
  alone.architecture = test::architecture(
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:5:0.5\"\n"
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:6:0.5\"\n"
      "[[layer]]\nwindow = 8\nstride = 4\noffset = 1\ngate = \"random:5:0.5\"");
  const auto three = prepare(alone, registry.find("analytic"), 2);
  CHECK(plan.estimate().seconds == doctest::Approx(three.estimate().seconds).epsilon(0.01));
}

TEST_CASE("analytic engine: equal caches of query heads, channel groups and read paths") {
  // Two equal caches of two query heads each (the second cache's heads repeat head 0, not head
  // 2, which repeats head 0 itself); a per-channel gate and a one-group gate of the same mean
  // weights (they differ: each channel group pools by its own weights); the first gate again
  // with a selection (another read path).
  const std::string cache = "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:5:0.5\"\n";
  const std::string channels =
      "[[layer]]\nwindow = 4\nstride = 4\ngate = \"channels:onehot:0=0.5|onehot:1=0.5\"\n";
  const std::string mean = "[[layer]]\nwindow = 4\nstride = 4\ngate = \"weights:0.5,0.5,0,0\"\n";
  const std::string selected = cache + "top_k = 8\n";
  const auto spec =
      small(cache + "query_heads = 2\n" + cache + "query_heads = 2\n" + channels + mean + selected);
  const auto registry = builtin_engines();
  const auto plan = prepare(spec, registry.find("analytic"), 2);
  const auto& m = plan.run().model;
  CHECK(AnalyticEngine::computed_as(m) == std::vector<int>{0, 0, 0, 0, 4, 5, 6});
  const auto output = run_engine(plan, Parallel{2});
  REQUIRE(output.phase_success.size() == 7);
  for (int h : {4, 5}) {
    CAPTURE(h);
    CHECK(output.phase_success[static_cast<std::size_t>(h)] ==
          channel::phase_success(m.geometry(h), m.gates[static_cast<std::size_t>(h)],
                                 m.beta_effective(), m.entries(h), m.split_rho(h)));
  }
  CHECK(output.phase_success[4] != output.phase_success[5]);
  const auto one = run_engine(prepare(small(selected), registry.find("analytic"), 2), Parallel{2});
  CHECK(output.phase_success[6] == one.phase_success[0]);
  CHECK(output.phase_selected[6] == one.phase_selected[0]);
}

TEST_CASE("analytic engine: a read path's estimate grows with the places of a needle and with k") {
  // Measured (analytic_engine.cpp): W 8 S 4 at k 512 1.7 ms a phase, W 64 S 8 at k 64 260 ms,
  // W 8 S 4 at k 32768 and L = 2^20 165 ms: the estimate follows, within a few times. A gate
  // of distinct weights, so that no two phases are alike (the engine computes alike ones once).
  const auto registry = builtin_engines();
  const auto seconds = [&](int window, int stride, std::int64_t k, std::int64_t context) {
    NiahSpec spec;
    spec.geometry = {window, stride, 0};
    spec.gates = "weights:1";
    for (int s = 2; s <= window; ++s) spec.gates += "," + std::to_string(s);
    spec.beta = 5;
    spec.context = context;
    spec.groups = stride;
    spec.prompts = 1;
    spec.read.top_k = k;
    const auto plan = prepare(spec, registry.find("analytic"), 1);
    return plan.estimate().seconds / stride;  // a phase's
  };
  const double v4 = seconds(8, 4, 512, 1 << 20);
  CHECK(v4 == doctest::Approx(1.6e-3).epsilon(0.05));
  CHECK(seconds(64, 8, 64, 65536) > 0.1);
  CHECK(seconds(8, 4, 32768, 1 << 20) > 0.05);
  CHECK(seconds(8, 4, 2048, 1 << 20) == doctest::Approx(v4));
}

TEST_CASE("analytic engine: the estimate counts the phases it computes, once each alike") {
  // A uniform gate with W = S makes every phase alike: one is computed (MoBA's 4096 blocks).
  const auto registry = builtin_engines();
  const auto seconds = [&](const std::string& gates) {
    NiahSpec spec;
    spec.geometry = {64, 64, 0};
    spec.gates = gates;
    spec.beta = 5;
    spec.context = 65536;
    spec.groups = 64;
    spec.prompts = 1;
    spec.read.top_k = 64;
    return prepare(spec, registry.find("analytic"), 1).estimate().seconds;
  };
  std::string distinct = "weights:1";
  for (int s = 2; s <= 64; ++s) distinct += "," + std::to_string(s);
  CHECK(seconds(distinct) > 20 * seconds("uniform"));
}

TEST_CASE("analytic engine: a later cache's query heads follow it to the head computed") {
  // Layer 3 is alike layer 1, and its query heads read layer 3's first head: they must read
  // the head that is computed (layer 1's), not layer 3's, which is not (a stack of alike
  // layers crashed the engine: V4-Flash's CSA, HCA, CSA, ...).
  const auto spec = small(
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:5:0.5\"\nquery_heads = 2\n"
      "[[layer]]\nwindow = 4\nstride = 4\ngate = \"uniform\"\nquery_heads = 2\n"
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:5:0.5\"\nquery_heads = 2\n");
  const auto registry = builtin_engines();
  const auto plan = prepare(spec, registry.find("analytic"), 2);
  const auto& m = plan.run().model;
  CHECK(AnalyticEngine::computed_as(m) == std::vector<int>{0, 0, 2, 2, 0, 0});
  const auto output = run_engine(plan, Parallel{2});
  REQUIRE(output.phase_success.size() == 6);
  CHECK(output.phase_success[5] == output.phase_success[0]);
}
