// A layer's (or a head's) own beta (docs/MODEL.md, "Layer stacks"): read from a file, checked
// with the file, layer and head in the message, shown and written back; every engine gives a
// head of beta b what --beta b (or, with --dim, the query noise of beta b) gives it, its
// selection included where the file gives no index beta.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <iterator>

#include "phasesim/engines/analytic_engine.hpp"
#include "phasesim/niah/architecture.hpp"
#include "support/niah_fixture.hpp"

using namespace phasesim;
using namespace phasesim::niah;

namespace {

// Layer 1 at --beta; layer 2 at its own beta 2.5, its second head at 4.
const char* kLayers = R"(
[[layer]]
window = 4
stride = 4
gate = "onehot:3"
[[layer]]
window = 4
stride = 4
gate = "onehot:3"
beta = 2.5
heads = [{ offset = 0 }, { offset = 0, beta = 4 }]
)";

// One selecting layer with a window and a sink, `beta` its line (or none).
std::string read_layer(const std::string& beta) {
  return "[[layer]]\nwindow = 4\nstride = 4\ngate = \"uniform\"\nindex_gate = \"last\"\n"
         "top_k = 4\nsliding_window = 16\nsink = 0\n" +
         beta;
}

NiahSpec spec_of(const Architecture& arch, double beta) {
  NiahSpec spec;
  spec.architecture = arch;
  spec.beta = beta;
  spec.context = 2048;
  spec.groups = 8;
  spec.prompts = 64;
  return spec;
}

void check_same_outcomes(const NiahResult& a, const NiahResult& b) {
  REQUIRE(a.groups.size() == b.groups.size());
  for (std::size_t r = 0; r < a.groups.size(); ++r) {
    CAPTURE(r);
    CHECK(a.groups[r].successes == b.groups[r].successes);
  }
}

// presets/v41-flash.toml at --beta 2.824 with needles of 2 tokens, whose header carries `command`
// as a line of its own (the run a user repeats).
NiahSpec v41_flash(const std::string& command) {
  std::ifstream file(PHASESIM_SOURCE_DIR "/presets/v41-flash.toml");
  const std::string text{std::istreambuf_iterator<char>(file), {}};
  CHECK(text.find("\n# " + command + "\n") != std::string::npos);
  NiahSpec spec;
  spec.architecture = load_architecture("v41-flash");
  spec.beta = 2.824;
  spec.needle_tokens = 2;
  return spec;
}

}  // namespace

TEST_CASE("layer beta: read, checked, shown and written back") {
  const auto arch = test::architecture(kLayers);
  REQUIRE(arch.heads.size() == 3);
  CHECK_FALSE(arch.heads[0].read_path.beta);
  CHECK(arch.heads[1].read_path.beta == 2.5);
  CHECK(arch.heads[2].read_path.beta == 4);
  CHECK(architecture_json(arch)["heads"][1]["read_path"]["beta"] == 2.5);
  const auto again = parse_architecture(architecture_toml(arch, {}, {}), "again.toml");
  for (std::size_t h = 0; h < arch.heads.size(); ++h)
    CHECK(again.heads[h].read_path.beta == arch.heads[h].read_path.beta);
  const std::string layer = "[[layer]]\nwindow = 4\nstride = 4\ngate = \"last\"\n";
  CHECK_THROWS_WITH_AS(parse_architecture(layer + "beta = -1\n", "a.toml"),
                       "invalid a.toml: layer 1: beta -1 (must be finite and >= 0)", InputError);
  CHECK_THROWS_WITH_AS(parse_architecture(layer + "heads = [{ beta = nan }]\n", "a.toml"),
                       "invalid a.toml: layer 1, head 1: beta must be a number", InputError);
  CHECK_THROWS_WITH_AS(parse_architecture(layer + "beta = \"4\"\n", "a.toml"),
                       "invalid a.toml: layer 1: beta must be a number", InputError);
  // The full-vector model gives a beta up to sqrt(d).
  CHECK_THROWS_WITH_AS(make_run(test::full_vector(spec_of(arch, 3), 9, 0)),
                       "invalid test.toml: layer 2, head 2: beta 4 with --dim 9 (a layer's beta "
                       "is sqrt(d / (1 + sigma^2)), in (0, sqrt(d)] = (0, 3])",
                       InputError);
}

TEST_CASE("layer beta: the analytic engine reads each head at its own beta") {
  const auto rows = [](const Architecture& arch, double beta) {
    return engines::run_engine(test::plan(spec_of(arch, beta), "analytic"), Parallel{})
        .phase_success;
  };
  const auto arch = test::architecture(kLayers);
  const auto stack = rows(arch, 3);
  const auto one = test::architecture("[[layer]]\nwindow = 4\nstride = 4\ngate = \"onehot:3\"\n");
  CHECK(stack[0] == rows(one, 3)[0]);
  CHECK(stack[1] == rows(one, 2.5)[0]);
  CHECK(stack[2] == rows(one, 4)[0]);
  // Alike heads of different betas are not one computation.
  const auto model = make_run(spec_of(arch, 3)).model;
  CHECK(engines::AnalyticEngine::computed_as(model) == std::vector<int>{0, 1, 2});
  // The read path's two stages, the selection at the head's beta too.
  const auto own = test::architecture(read_layer("beta = 2.5\n"));
  CHECK(rows(own, 3) == rows(test::architecture(read_layer("")), 2.5));
}

TEST_CASE("layer beta: the Monte Carlo engines draw a head of beta b as --beta b does") {
  const auto own = test::architecture(read_layer("beta = 2.5\n"));
  const auto plain = test::architecture(read_layer(""));
  for (const char* engine : {"fast", "full"}) {
    CAPTURE(engine);
    if (std::string(engine) == "fast") {
      check_same_outcomes(test::run_spec(spec_of(own, 3), engine),
                          test::run_spec(spec_of(plain, 2.5), engine));
    }
    // Full-vector: the head's query noise gives its beta, sigma^2 = d / beta^2 - 1.
    const double noise = std::sqrt(16 / (2.5 * 2.5) - 1);
    auto few = spec_of(own, 3);
    few.prompts = 16;
    auto same = spec_of(plain, 3);
    same.prompts = 16;
    check_same_outcomes(test::run_spec(test::full_vector(few, 16, 0), engine),
                        test::run_spec(test::full_vector(same, 16, noise), engine));
  }
}

// presets/v41-flash.toml reproduces V4.1-Flash's table (even 94.7 to 95.3, odd 89.2 to 90.3)
// with needles of 2 tokens, its ratio-2 layers at --beta and layer 21 at its own beta: the fast
// engine on the preset against the exact values of its caches' law
// (experiments/v41-mechanism/preset_fit.py 2.824 4.933: 0.949955 even, 0.897422 odd), a fifth
// of the header's prompts, pooled by parity.
TEST_CASE("presets: v41-flash reproduces V4.1-Flash's even/odd table" *
          doctest::test_suite("statistics")) {
  auto spec = v41_flash(
      "reproduces: phasesim niah --arch v41-flash --beta 2.824 --needle-tokens 2 --prompts 2560");
  spec.prompts = 512;
  const auto result = test::run_spec(spec, "fast");
  REQUIRE(result.groups.size() == 8);
  for (const int parity : {0, 1}) {
    CAPTURE(parity);
    std::int64_t successes = 0, trials = 0;
    for (std::size_t g = static_cast<std::size_t>(parity); g < 8; g += 2) {
      successes += result.groups[g].successes.value_or(0);
      trials += result.groups[g].trials.value_or(0);
    }
    test::check_near_exact(static_cast<double>(successes) / static_cast<double>(trials),
                           parity == 0 ? 0.949955 : 0.897422, trials);
  }
}

// The same preset in the analytic engine, exact (a needle of 2 tokens: its places tied by one
// factor a stage): the header's exact table. Far from the query it is preset_fit.py's law
// (0.949955 / 0.897422, from grids 0.01 apart); the needles that reach the window (128 of
// 131056 starts), read raw, add 3e-5 and 8e-5.
TEST_CASE("presets: v41-flash's exact table with 2-token needles (analytic)") {
  const auto spec = v41_flash(
      "exact: phasesim niah --arch v41-flash --beta 2.824 --needle-tokens 2 --engine analytic");
  const auto result = test::run_spec(spec, "analytic");
  REQUIRE(result.groups.size() == 8);
  for (std::size_t g = 0; g < 8; ++g) {
    CAPTURE(g);
    const double exact = g % 2 == 0 ? 0.949989 : g == 7 ? 0.897502 : 0.897497;
    CHECK(result.groups[g].accuracy == doctest::Approx(exact).epsilon(1e-6));
    CHECK(std::abs(result.groups[g].accuracy - (g % 2 == 0 ? 0.949955 : 0.897422)) < 1e-4);
  }
}
