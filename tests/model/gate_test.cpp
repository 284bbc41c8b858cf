#include "phasesim/model/gate.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include "phasesim/core/error.hpp"
#include "phasesim/model/coverage.hpp"
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
                       "logits:a,b,..., random:SEED[:SCALE] or channels:SPEC=SHARE|SPEC=SHARE|... "
                       "(per-channel groups))",
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

TEST_CASE("per-channel gates: channel groups, their mean, shares and replication") {
  const auto gate = parse_gate("channels:onehot:3=0.25|weights:1,1,0,0=0.75", 4);
  REQUIRE(gate.per_channel());
  CHECK(gate.spec == "channels:onehot:3=0.25|weights:1,1,0,0=0.75");
  CHECK(gate.channels[0].weights == std::vector<double>{0, 0, 0, 1});
  CHECK(gate.channels[1].share == 0.75);
  CHECK(gate.weights == std::vector<double>{0.375, 0.375, 0, 0.25});  // the channels' mean
  const auto equal = parse_gate("channels:onehot:0|onehot:1|onehot:2", 3);
  for (const auto& group : equal.channels) CHECK(group.share == doctest::Approx(1.0 / 3));
  // Equal groups are one gate for every channel.
  CHECK_FALSE(parse_gate("channels:uniform=0.5|weights:1,1=0.5", 2).per_channel());
  CHECK_FALSE(parse_gate("channels:last", 2).per_channel());
  CHECK(replicate_gate(parse_gate("channels:random:5=0.5|last=0.5", 4), 2).spec ==
        "channels:random:7=0.5|last=0.5");

  const test::TempDir dir("channels");
  const auto file = dir / "gates.json";
  std::ofstream(file) << R"({"gates": [{"channels": ["onehot:0", [0, 1]]},)"
                      << R"( {"channels": [{"gate": "last", "share": 0.25},)"
                      << R"( {"gate": [1, 0], "share": 0.75}]}]})";
  const auto from_file = parse_gates("@" + file.string(), 2);
  REQUIRE(from_file.size() == 2);
  CHECK(from_file[0].spec == "channels:onehot:0|weights:0,1");
  CHECK(from_file[1].spec == "channels:last=0.25|weights:1,0=0.75");
}

TEST_CASE("per-channel gates: coverage's channel share per phase, ties split evenly") {
  const Geometry g{8, 4};
  // V4's preset gate: a share one-hot on the newest slot (phase 3), the rest uniform, which is
  // on every slot alike: a quarter of it on each phase.
  const auto v4 = phase_coverage(g, parse_gate("channels:onehot:7=0.2|uniform=0.8", 8));
  for (int phi = 0; phi < 3; ++phi) CHECK(v4[phi].channel_share == doctest::Approx(0.2));
  CHECK(v4[3].channel_share == doctest::Approx(0.4));
  // A tie over two slots of different phases; one gate puts all channels on its best phase.
  const auto tie = phase_coverage(g, parse_gate("weights:0,0,0,0,0,1,1,0", 8));
  CHECK(tie[1].channel_share == 0.5);
  CHECK(tie[2].channel_share == 0.5);
  CHECK(phase_coverage(g, parse_gate("onehot:4", 8))[0].channel_share == 1);
}

TEST_CASE("per-channel gates: bad groups and shares are refused, saying why") {
  CHECK_THROWS_WITH_AS(parse_gate("channels:last=0.5|uniform=0.6", 2),
                       "invalid gate 'channels:last=0.5|uniform=0.6' (the shares of its channel "
                       "groups sum to 1.1 (must sum to 1))",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_gate("channels:last=0|uniform=1", 2),
                       "invalid gate 'channels:last=0|uniform=1' (the share of channel group "
                       "'last' is 0 (must be in (0, 1]))",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_gate("channels:last=0.5|uniform", 2),
                       "invalid gate 'channels:last=0.5|uniform' (give every channel group a "
                       "share (SPEC=SHARE) or none (equal shares))",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_gate("channels:last=x|uniform", 2),
                       "invalid gate 'channels:last=x|uniform' (the share 'x' of channel group "
                       "'last=x' is not a number)",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_gate("channels:onehot:5|last", 4),
                       "invalid gate 'onehot:5' (onehot:K needs an integer K in [0, 3])",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_gate("channels:channels:last", 2),
                       "invalid gate 'channels:channels:last' (a channel group cannot be "
                       "per-channel)",
                       InputError);
  std::string many = "channels:uniform";
  for (int k = 0; k < 5000; ++k) many += "|uniform";
  CHECK_THROWS_AS(parse_gate(many, 1 << 20), InputError);  // 5001 x 2^20 weights: refused first
  CHECK_THROWS_WITH_AS(
      check_channel_counts(parse_gate("channels:last=0.001|uniform=0.999", 2), 64),
      "invalid gate 'channels:last=0.001|uniform=0.999' (channel group 1 has share "
      "0.001, none of the d = 64 channels; every group needs a share of at least "
      "1/d)",
      InputError);
}

TEST_CASE("per-channel gates: channels by largest remainder, and the slot laws") {
  const auto gate = parse_gate("channels:onehot:3=0.3|onehot:2=0.7", 4);
  CHECK(channel_counts(gate, 20) == std::vector<int>{6, 14});
  CHECK(channel_counts(gate, 7) == std::vector<int>{2, 5});  // 2.1 and 4.9
  CHECK(channel_counts(parse_gate("channels:last|uniform|onehot:0", 4), 10) ==
        std::vector<int>{4, 3, 3});
  CHECK(channel_counts(parse_gate("last", 4), 10) == std::vector<int>{10});
  // One gate: u_s = g_s / ||g||, sd_s = sqrt(1 - u_s^2).
  const auto one = slot_laws(parse_gate("weights:3,4", 2));
  CHECK(one[1].u == doctest::Approx(0.8).epsilon(1e-15));
  CHECK(one[1].sd == doctest::Approx(0.6).epsilon(1e-15));
  // One-hot groups spread evenly over S = 4 phases: n^2 = 1, u = 1/4 and sd^2 = 1 - 1/4 on each
  // (THEORY.md, "Per-channel gates"), against u = 1 on one phase for a concentrated head.
  const auto spread = slot_laws(parse_gate("channels:onehot:4|onehot:5|onehot:6|onehot:7", 8));
  for (int s = 4; s < 8; ++s) {
    CHECK(spread[static_cast<std::size_t>(s)].u == doctest::Approx(0.25).epsilon(1e-15));
    CHECK(spread[static_cast<std::size_t>(s)].sd == doctest::Approx(std::sqrt(0.75)));
  }
  CHECK(spread[0].u == 0.0);
  CHECK(spread[0].sd == 1.0);
  // Groups 0.3 onehot:3 and 0.7 uniform over 4: n^2 = 0.3 + 0.7 / 4 = 0.475.
  const auto mixed = slot_laws(parse_gate("channels:onehot:3=0.3|uniform=0.7", 4));
  const double n = std::sqrt(0.475);
  CHECK(mixed[3].u == doctest::Approx((0.3 + 0.7 / 4) / n));
  CHECK(mixed[3].sd == doctest::Approx(std::sqrt(1 - (0.3 + 0.7 / 16) / 0.475)));
  CHECK(mixed[0].u == doctest::Approx(0.7 / 4 / n));
  CHECK(normalized_weights(gate)[3] == slot_laws(gate)[3].u);
}
