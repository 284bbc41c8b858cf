#include "phasesim/model/gate.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include "phasesim/core/error.hpp"
#include "support/cli_runner.hpp"

using namespace phasesim;

TEST_CASE("gate presets") {
  CHECK(parse_gate("uniform", 4).weights == std::vector<double>(4, 0.25));
  CHECK(parse_gate("last", 3).weights == std::vector<double>{0, 0, 1});
  CHECK(parse_gate("onehot:1", 3).weights == std::vector<double>{0, 1, 0});
  CHECK(parse_gate("weights:1,3", 2).weights == std::vector<double>{0.25, 0.75});
  const auto softmax = parse_gate("logits:0,0,0,1", 4).weights;
  const double e = std::exp(1.0);
  CHECK(softmax[3] == doctest::Approx(e / (3 + e)).epsilon(1e-15));
  CHECK(parse_gate(" last ", 3).spec == "last");
}

// Found by fuzz_gate_spec (fuzz/corpus/gate_spec/regression-weights-sum-overflow): the sum
// of weights near the double range was inf, and every weight became 0.
TEST_CASE("weights near the largest double still give a gate summing to 1") {
  CHECK(parse_gate("weights:1e308,1e308", 2).weights == std::vector<double>{0.5, 0.5});
  CHECK(parse_gate("weights:1.7e308,0,1.7e308,0", 4).weights ==
        std::vector<double>{0.5, 0, 0.5, 0});
  CHECK(parse_gate("weights:1e-320,3e-320", 2).weights[1] == doctest::Approx(0.75));
}

TEST_CASE("random gates are reproducible and scale sets their spread") {
  const auto a = parse_gate("random:7", 8);
  CHECK(a.weights == parse_gate("random:7:1", 8).weights);
  CHECK(a.weights != parse_gate("random:8", 8).weights);
  CHECK(parse_gate("random:7:0", 8).weights == std::vector<double>(8, 0.125));
  const auto sharp = parse_gate("random:7:50", 8).weights;
  CHECK(*std::max_element(sharp.begin(), sharp.end()) > 0.99);
  double total = 0;
  for (double w : a.weights) total += w;
  CHECK(total == doctest::Approx(1.0).epsilon(1e-15));
}

TEST_CASE("several heads from a semicolon list, by replication and from JSON files") {
  const auto heads = parse_gates("onehot:0; last;uniform", 4);
  REQUIRE(heads.size() == 3);
  CHECK(heads[1].spec == "last");
  CHECK(replicate_gate(heads[1], 3).weights == heads[1].weights);
  CHECK(replicate_gate(parse_gate("random:5:2", 4), 2).spec == "random:7:2");

  const test::TempDir dir("gates");
  const auto file = dir / "gates.json";
  std::ofstream(file) << R"({"gates": ["onehot:2", [1, 1, 0, 0]]})";
  const auto from_file = parse_gates("@" + file.string(), 4);
  REQUIRE(from_file.size() == 2);
  CHECK(from_file[0].weights == std::vector<double>{0, 0, 1, 0});
  CHECK(from_file[1].weights == std::vector<double>{0.5, 0.5, 0, 0});
}

TEST_CASE("bad gates say what is wrong and what is allowed") {
  CHECK_THROWS_WITH_AS(parse_gate("weights:1,2", 8),
                       "invalid gate 'weights:1,2' (has 2 values, the window needs 8)", InputError);
  CHECK_THROWS_WITH_AS(parse_gate("weights:1,-1", 2),
                       "invalid gate 'weights:1,-1' (weights must be finite and >= 0)", InputError);
  CHECK_THROWS_WITH_AS(parse_gate("weights:1,inf", 2),
                       "invalid gate 'weights:1,inf' (weights must be finite and >= 0)",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_gate("weights:0,0", 2),
                       "invalid gate 'weights:0,0' (weights must not all be zero)", InputError);
  CHECK_THROWS_WITH_AS(parse_gate("logits:1,nan", 2),
                       "invalid gate 'logits:1,nan' (logits must be finite)", InputError);
  CHECK_THROWS_WITH_AS(parse_gate("onehot:8", 8),
                       "invalid gate 'onehot:8' (onehot:K needs an integer K in [0, 7])",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_gate("weights:1,x", 2),
                       "invalid gate 'weights:1,x' ('x' is not a number)", InputError);
  CHECK_THROWS_WITH_AS(parse_gate("spiky", 2),
                       "invalid gate 'spiky' (use uniform, last, onehot:K, weights:a,b,..., "
                       "logits:a,b,... or random:SEED[:SCALE])",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_gate("random:-1", 2),
                       "invalid gate 'random:-1' (random needs random:SEED[:SCALE] with SEED a "
                       "non-negative integer)",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_gates("@/nonexistent/gates.json", 2),
                       "cannot read gate file '/nonexistent/gates.json' (no such file)",
                       InputError);
}

TEST_CASE("normalized and boundary-renormalized weights") {
  const auto gate = parse_gate("weights:3,4", 2);
  const auto u = normalized_weights(gate);
  CHECK(u[0] == doctest::Approx(0.6).epsilon(1e-15));
  CHECK(u[1] == doctest::Approx(0.8).epsilon(1e-15));
  const auto uniform = parse_gate("uniform", 4);
  CHECK(renormalized_weights(uniform, 2) == std::vector<double>{0, 0, 0.5, 0.5});
  CHECK(renormalized_weights(parse_gate("onehot:0", 4), 1) == std::vector<double>(4, 0.0));
}
