#include "phasesim/model/coverage.hpp"

#include <algorithm>
#include <cmath>

#include "phasesim/core/budget.hpp"

namespace phasesim {

std::vector<PhaseCoverage> phase_coverage(const Geometry& geometry, const Gate& gate) {
  const auto u = normalized_weights(gate);
  std::vector<PhaseCoverage> phases;
  for (int phi = 0; phi < geometry.stride; ++phi) {
    PhaseCoverage row;
    row.phase = phi;
    row.slots = geometry.slots_of_phase(phi);
    row.multiplicity = static_cast<int>(row.slots.size());
    for (int s : row.slots) {
      const auto i = static_cast<std::size_t>(s);
      row.coverage += gate.weights[i];
      if (row.best_slot < 0 || gate.weights[i] > row.best_weight) {
        row.best_slot = s;
        row.best_weight = gate.weights[i];
        row.best_normalized = u[i];
      }
    }
    phases.push_back(std::move(row));
  }
  const auto groups = gate.per_channel()
                          ? gate.channels
                          : std::vector<ChannelGroup>{{gate.weights, 1.0, gate.spec}};
  // A group whose largest weight is tied over several slots (a uniform gate) is on each of
  // them alike: its share is split evenly over the tied slots, not given to the first.
  for (const auto& group : groups) {
    const double top = *std::max_element(group.weights.begin(), group.weights.end());
    const auto tied = std::count(group.weights.begin(), group.weights.end(), top);
    for (int s = 0; s < geometry.window; ++s) {
      if (group.weights[static_cast<std::size_t>(s)] != top) continue;
      phases[static_cast<std::size_t>(geometry.phase_of_slot(s))].channel_share +=
          group.share / static_cast<double>(tied);
    }
  }
  return phases;
}

Json phase_coverage_json(const std::vector<PhaseCoverage>& phases) {
  Json list = Json::array();
  for (const auto& p : phases) {
    list.push_back({{"phase", p.phase},
                    {"slots", p.slots},
                    {"multiplicity", p.multiplicity},
                    {"coverage", p.coverage},
                    {"best_weight", p.best_weight},
                    {"best_normalized", p.best_normalized},
                    {"channel_share", p.channel_share}});
  }
  return list;
}

Json channel_groups_json(const Gate& gate) {
  Json list = Json::array();
  for (const auto& g : gate.channels) {
    list.push_back({{"gate", g.spec}, {"share", g.share}, {"weights", g.weights}});
  }
  return list;
}

WorkEstimate coverage_work(const Geometry& geometry) {
  // Measured: 0.7 s and 58 MB per million slots (W = 10^6, S = 4), and 13 us and 1 KB per
  // phase row (64 heads of W = S = 4096: 3.4 s, 270 MB).
  const double slots = geometry.window, phases = geometry.stride;
  return {7e-7 * slots + 6.5e-6 * phases, 64 * slots + 1024 * phases};
}

namespace {

// The option a refusal names: the one whose rows dominate the estimate (slots for --window,
// phase rows for --stride), not always --window.
std::string coverage_sizes(const Geometry& geometry) {
  return 64.0 * geometry.window >= 1024.0 * geometry.stride
             ? "--window " + std::to_string(geometry.window)
             : "--stride " + std::to_string(geometry.stride);
}

}  // namespace

Gate coverage_gate(const Geometry& geometry, const std::string& spec) {
  geometry.validate();
  check_work(coverage_sizes(geometry), coverage_work(geometry), 1);
  return parse_gate(spec, geometry.window);
}

Json entries_document(const Geometry& geometry, int entries) {
  geometry.validate();
  require_in_range(entries, 1, 64, "entries");
  check_work(coverage_sizes(geometry), coverage_work(geometry), 1);
  Json doc;
  doc["window"] = geometry.window;
  doc["stride"] = geometry.stride;
  doc["offset"] = geometry.offset;
  auto list = Json::array();
  for (int j = 0; j < entries; ++j) {
    auto slots = Json::array();
    for (int s = 0; s < geometry.window; ++s) {
      slots.push_back({{"slot", s},
                       {"position", geometry.position(j, s)},
                       {"phase", geometry.phase_of_slot(s)}});
    }
    list.push_back({{"entry", j}, {"slots", slots}});
  }
  doc["entries"] = list;
  auto tokens = Json::array();
  for (auto t = geometry.position(0, 0); t <= geometry.position(entries - 1, geometry.window - 1);
       ++t) {
    tokens.push_back({{"position", t}, {"phase", geometry.phase_of_position(t)}});
  }
  doc["tokens"] = tokens;
  return doc;
}

Json coverage_document(const Geometry& geometry, const Gate& gate) {
  auto doc = new_document("coverage");
  doc["window"] = geometry.window;
  doc["stride"] = geometry.stride;
  doc["gate"] = gate.spec;
  doc["gate_weights"] = gate.weights;
  if (gate.per_channel()) doc["channels"] = channel_groups_json(gate);
  doc["phases"] = phase_coverage_json(phase_coverage(geometry, gate));
  return doc;
}

void add_index_coverage(Json& doc, const Geometry& geometry, const Gate& index_gate) {
  doc["index_gate"] = index_gate.spec;
  doc["index_gate_weights"] = index_gate.weights;
  doc["index_phases"] = phase_coverage_json(phase_coverage(geometry, index_gate));
}

}  // namespace phasesim
