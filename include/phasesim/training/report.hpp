#pragma once
// The `train` document (docs/TRAINING.md lists every key) and the gate file that
// `--save-gates` writes, which `niah`, `coverage` and `knockout` read as --gates @FILE.json.
#include <string>

#include "phasesim/core/document.hpp"
#include "phasesim/training/train.hpp"

namespace phasesim::training {

/// Every parameter under its option name, then the loss curve, each head's gate trajectory
/// and argmaxes, the covered and blind phases against T3's law, and the trained layer's NIAH
/// table (the `niah` layout: "groups", "summary") beside the analytic prediction, and the
/// estimated period.
Json lab_document(const LabSpec& spec, const LabResult& result);

/// {"schema", "command": "train", ..., "window", "stride", "seed", "gates": [[w_0, ...], ...]}:
/// the positional gates softmax(b_h), one weight array per head.
Json gates_document(const LabSpec& spec, const LayerParameters& parameters);

/// The trained layer as an architecture file (niah/architecture.hpp) that `niah --arch` reads:
/// one layer of H heads with the window, stride and offset, each head's gate (logits, or its
/// channel groups of equal logits with share count / d), query_heads = K and split_rho.
std::string architecture_text(const LabSpec& spec, const LayerParameters& parameters);

}  // namespace phasesim::training
