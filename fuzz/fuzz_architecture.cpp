// Fuzzes architecture files (parse_architecture, the TOML of `--arch`;
// include/phasesim/niah/architecture.hpp, MODEL.md sections 2, 3 and 9): any text gives an
// architecture whose heads (caches, each read by its query heads) are numbered layer by layer
// from 1, each with a valid geometry
// and a gate of W finite non-negative weights summing to 1, whose KV cost and JSON follow;
// or one InputError.
#include <cmath>

#include "fuzz_input.hpp"
#include "phasesim/niah/architecture.hpp"

namespace {

void check_head(const phasesim::niah::ArchitectureHead& h) {
  using phasesim::fuzz::check;
  const auto& g = h.geometry;
  check(g.window >= 1 && g.stride >= 1 && g.offset >= 0 && g.offset < g.stride,
        "window >= 1, stride >= 1, 0 <= offset < stride");
  check(h.gate.window() == g.window, "one gate weight per slot of the head's window");
  double total = 0;
  for (double w : h.gate.weights) {
    check(std::isfinite(w) && w >= 0, "gate weights finite and >= 0");
    total += w;
  }
  check(std::abs(total - 1) < 1e-9, "gate weights sum to 1");
}

void check_architecture(const phasesim::niah::Architecture& arch) {
  using phasesim::fuzz::check;
  check(!arch.name.empty(), "a name");
  check(arch.layers >= 1 && !arch.heads.empty(), "at least one layer and one head");
  int layer = 1, head = 0, caches = 0;
  for (std::size_t i = 0; i < arch.heads.size(); ++i) {
    const auto& h = arch.heads[i];
    if (h.layer != layer) {
      check(h.layer == layer + 1 && head >= 1 && h.query_head == 1, "layers in order, none empty");
      layer = h.layer, head = 0;
    }
    // A cache read by K query heads is one head of its layer, its query heads 1..K in a row.
    check(h.query_head >= 1 && h.query_head <= h.query_heads, "query head within its cache");
    if (h.query_head == 1) {
      check(h.head == ++head, "heads numbered from 1 within their layer");
      ++caches;
    } else {
      const auto& before = arch.heads[i - 1];
      check(h.head == head && h.query_head == before.query_head + 1,
            "a cache's query heads in a row");
    }
    check_head(h);
  }
  check(layer == arch.layers, "as many layers as the heads name");
  const auto geometries = arch.geometries();
  check(phasesim::niah::kv_cost(geometries).heads == static_cast<int>(arch.heads.size()),
        "the KV cost of the geometries alone counts every head");
  const auto cost = phasesim::niah::kv_cost(geometries, arch.key_heads());
  check(cost.heads == caches, "the KV cost counts a cache once");
  check(std::isfinite(cost.relative()) && cost.relative() > 0 && cost.relative() <= 1,
        "a KV cost in (0, 1] of full attention");
  check(phasesim::niah::architecture_json(arch)["heads"].size() == arch.heads.size(),
        "the JSON lists every head");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = phasesim::fuzz::as_text(data, size);
  phasesim::fuzz::expect_value_or_input_error(
      [&] { check_architecture(phasesim::niah::parse_architecture(text, "fuzz.toml")); });
  return 0;
}
