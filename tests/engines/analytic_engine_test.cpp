// The analytic engine computes each distinct head once: the query heads of a cache (they attend
// alike in the analytic channel) and heads with the same geometry, gate and split projection
// repeat the first one's P_h(phi), which is the channel's own, bit for bit.
#include "phasesim/engines/analytic_engine.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "phasesim/channel/phase_channel.hpp"
#include "support/niah_fixture.hpp"

using namespace phasesim;
using namespace phasesim::engines;
using namespace phasesim::niah;

TEST_CASE("analytic engine: query heads of a cache and equal heads are computed once") {
  NiahSpec spec;
  // A cache read by three query heads, a second cache with the same gate and geometry read by
  // two (whose second query head is computed as the first cache: a stack's alike layers), one
  // with another gate, and a cache with the first's gate and another offset.
  spec.architecture = test::architecture(
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:5:0.5\"\nquery_heads = 3\n"
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:5:0.5\"\nquery_heads = 2\n"
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:6:0.5\"\n"
      "[[layer]]\nwindow = 8\nstride = 4\noffset = 1\ngate = \"random:5:0.5\"");
  spec.beta = 6;
  spec.context = 8192;
  spec.groups = 4;
  spec.prompts = 2;
  const auto registry = builtin_engines();
  const auto plan = prepare(spec, registry.find("analytic"), 2);
  const auto& m = plan.run().model;
  CHECK(AnalyticEngine::computed_as(m) == std::vector<int>{0, 0, 0, 0, 0, 5, 6});
  const auto output = run_engine(plan, Parallel{2});
  REQUIRE(output.phase_success.size() == 7);
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
