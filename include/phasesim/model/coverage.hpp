#pragma once
// How a gate spreads its weight over phases (MODEL.md section 3).
#include <string>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/model/gate.hpp"
#include "phasesim/model/geometry.hpp"

namespace phasesim {

struct PhaseCoverage {
  int phase = 0;
  std::vector<int> slots;      ///< Slots(phi)
  int multiplicity = 0;        ///< m_phi = |Slots(phi)|
  double coverage = 0;         ///< c_phi = sum of g_s over Slots(phi)
  int best_slot = -1;          ///< slot of phi with the largest weight (-1 if blind)
  double best_weight = 0;      ///< g of that slot
  double best_normalized = 0;  ///< u of that slot (slot_laws: g_s / ||g||_2 for one gate)
  /// The share of channels whose gate puts its largest weight on a slot of phi (a per-channel
  /// gate spreads its groups over phases; one gate puts every channel on its best phase). A
  /// tie (a uniform gate) splits a group's share evenly over its tied slots.
  double channel_share = 0;
};

/// Coverage of every phase 0..S-1 by one gate; the coverages sum to 1.
std::vector<PhaseCoverage> phase_coverage(const Geometry& geometry, const Gate& gate);

/// The phases as the `coverage` document lists them: phase, slots, multiplicity, coverage,
/// best_weight, best_normalized, channel_share.
Json phase_coverage_json(const std::vector<PhaseCoverage>& phases);

/// The channel groups of a per-channel gate, [{"gate", "share", "weights"}, ...] (an empty list
/// for one gate): what reports show beside the mean gate_weights.
Json channel_groups_json(const Gate& gate);

/// The time and memory of one geometry's coverage document and table, which list every slot
/// and every phase (core/budget.hpp).
WorkEstimate coverage_work(const Geometry& geometry);

/// The gate of `coverage --gates SPEC`: validates the geometry, bounds the work
/// (coverage_work) and parses the gate.
Gate coverage_gate(const Geometry& geometry, const std::string& spec);

/// Where the first `entries` entries lie over the tokens, for a picture of the geometry (the
/// teaching page draws it): {"window", "stride", "offset", "entries": [{"entry", "slots":
/// [{"slot", "position", "phase"}]}], "tokens": [{"position", "phase"}]} over every position
/// the entries pool, from the first to the last. Throws InputError for a bad geometry or
/// more than 64 entries.
Json entries_document(const Geometry& geometry, int entries);

/// The `coverage` document of one gate: window, stride, gate, gate_weights, phases.
Json coverage_document(const Geometry& geometry, const Gate& gate);

/// Adds the read path's index gate (stage 1, MODEL.md section 10) to a coverage document or a
/// head of one: index_gate, index_gate_weights and index_phases, as gate, gate_weights and
/// phases.
void add_index_coverage(Json& doc, const Geometry& geometry, const Gate& index_gate);

}  // namespace phasesim
