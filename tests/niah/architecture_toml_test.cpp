// Architectures written as TOML (architecture_toml, what inspect --save-arch writes) read back
// to the same heads: every preset, heads of their own in one layer, comments.
#include <doctest/doctest.h>

#include "phasesim/niah/architecture.hpp"

using namespace phasesim;
using namespace phasesim::niah;

namespace {

void check_same(const Architecture& a, const Architecture& b) {
  CHECK(a.name == b.name);
  CHECK(a.description == b.description);
  CHECK(a.layers == b.layers);
  CHECK(a.fit.has_value() == b.fit.has_value());
  if (a.fit && b.fit) {
    CHECK((a.fit->table == b.fit->table && a.fit->beta == b.fit->beta &&
           a.fit->one_gate == b.fit->one_gate && a.fit->one_gate_beta == b.fit->one_gate_beta));
  }
  REQUIRE(a.heads.size() == b.heads.size());
  for (std::size_t h = 0; h < a.heads.size(); ++h) {
    const auto& x = a.heads[h];
    const auto& y = b.heads[h];
    CAPTURE(h);
    CHECK((x.layer == y.layer && x.head == y.head));
    CHECK((x.geometry.window == y.geometry.window && x.geometry.stride == y.geometry.stride &&
           x.geometry.offset == y.geometry.offset));
    CHECK(x.gate.weights == y.gate.weights);
    CHECK(x.gate.channels.size() == y.gate.channels.size());
    for (std::size_t c = 0; c < x.gate.channels.size() && c < y.gate.channels.size(); ++c) {
      CHECK(x.gate.channels[c].weights == y.gate.channels[c].weights);
      CHECK(x.gate.channels[c].share == y.gate.channels[c].share);
    }
    CHECK(x.split_rho == y.split_rho);
    CHECK((x.query_head == y.query_head && x.query_heads == y.query_heads));
    const auto& r = x.read_path;
    const auto& q = y.read_path;
    CHECK((r.top_k == q.top_k && r.index_beta == q.index_beta && r.index_rho == q.index_rho &&
           r.sliding_window == q.sliding_window && r.sink == q.sink));
    CHECK(r.index_gate.has_value() == q.index_gate.has_value());
    if (r.index_gate && q.index_gate) {
      CHECK(r.index_gate->weights == q.index_gate->weights);
      CHECK(r.index_gate->channels.size() == q.index_gate->channels.size());
    }
  }
}

}  // namespace

TEST_CASE("architecture_toml reads back to the same heads: every preset") {
  for (const auto& name : architecture_presets()) {
    CAPTURE(name);
    const auto preset = load_architecture(name);
    const auto text = architecture_toml(preset, {"a comment"}, {{"the first layer"}});
    CHECK(text.starts_with("# a comment\nname = "));
    CHECK(text.find("[[layer]]\n# the first layer\n") != std::string::npos);
    check_same(parse_architecture(text, preset.file), preset);
  }
}

TEST_CASE("architecture_toml: heads of their own, offsets, equal shares, quotes in the name") {
  const auto arch = parse_architecture(R"(
name = "a \"quoted\" name"
description = "back\\slash"
[[layer]]
window = 6
stride = 5
gate = "random:3:2"
heads = [{ offset = 2 }, { window = 3, stride = 3, gate = "last", query_heads = 2 },
         { channels = ["onehot:1", "onehot:4"] }, { split_rho = 0.25, channels = [{ gate = "uniform", share = 0.75 }, { gate = "last", share = 0.25 }] }]
[[layer]]
window = 2
stride = 2
gate = "weights:0.3,0.7"
)",
                                       "x.toml");
  const auto text = architecture_toml(arch, {}, {});
  CHECK(text.find("  \"onehot:1\",\n") != std::string::npos);  // equal shares: specs alone
  CHECK(text.find("{ gate = \"uniform\", share = 0.75 }") != std::string::npos);
  check_same(parse_architecture(text, "x.toml"), arch);
}

TEST_CASE("architecture_toml: the read path of a layer and of a head, index channels too") {
  const auto arch = parse_architecture(R"(
name = "read"
[[layer]]
window = 8
stride = 4
gate = "last"
top_k = 16
sliding_window = 32
index_channels = ["onehot:1", "onehot:6"]
heads = [{ index_beta = 3.5, index_rho = 0.5 }, { sink = -1.25, index_gate = "uniform" }]
[[layer]]
window = 4
stride = 4
gate = "uniform"
)",
                                       "r.toml");
  const auto text = architecture_toml(arch, {}, {});
  CHECK(text.find("top_k = 16") != std::string::npos);
  CHECK(text.find("index_channels = [") != std::string::npos);
  CHECK(text.find("index_gate = \"uniform\"") != std::string::npos);
  check_same(parse_architecture(text, "r.toml"), arch);
}
