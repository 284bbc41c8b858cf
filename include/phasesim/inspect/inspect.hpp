#pragma once
// `phasesim inspect`: a real checkpoint's predicted phase profile (docs/INSPECT.md). The
// checkpoint's config lays out its layers, its compressor tensors give each layer's
// per-channel gate (checkpoint/, gates.hpp), and the gates give the coverage of every phase
// and a predicted per-phase NIAH table per layer and for the stack, read as today's engines
// read (predict(), the one place that decides it), with the architecture that `niah --arch`
// reruns.
//
//   const Inspection inspection({.path = "DeepSeek-V4-Flash"}, engines);  // reads, checks, plans
//   const auto prediction = inspection.predict();
//   write(inspection_document(inspection, prediction));
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "phasesim/checkpoint/checkpoint.hpp"
#include "phasesim/checkpoint/compressor.hpp"
#include "phasesim/checkpoint/model_config.hpp"
#include "phasesim/engines/engine.hpp"
#include "phasesim/engines/plan.hpp"
#include "phasesim/inspect/gates.hpp"
#include "phasesim/niah/architecture.hpp"
#include "phasesim/niah/report.hpp"

namespace phasesim::inspect {

/// The NIAH protocol of a prediction (niah's options of the same names).
struct Protocol {
  double beta = kDefaultBeta;
  std::int64_t context = 131072;
  int groups = 8;
};

/// What `inspect` is given.
struct InspectSpec {
  std::string path;  ///< a checkpoint folder or one .safetensors file
  Protocol protocol;
  /// Columns of each gate projection's rows read for its content noise (0: all of them).
  std::int64_t content_columns = 256;
};

/// One attention layer of the checkpoint, as read.
struct InspectedLayer {
  checkpoint::LayerPlan plan;
  std::optional<CompressorGate> compressor;  ///< where the layer runs its own
  std::optional<CompressorGate> indexer;     ///< V4's CSA: the Lightning Indexer's own
  std::optional<Sinks> sinks;
};

/// How the layers read a needle: the read path of MODEL.md section 10 from the config, at the
/// protocol's beta for both scores and rho 0 (analytic engine, exact there).
inline constexpr const char* kRead =
    "the read path of MODEL.md section 10 (analytic engine): a layer with a Lightning Indexer "
    "keeps the top index_topk of its cache's entries by the indexer's own gate (its position "
    "bias, at the protocol's beta, selection and attention logits uncorrelated), and every "
    "layer also reads its last sliding_window tokens raw; the sink logits are reported, not "
    "used (a raw logit has no standardized value without the attention scores' scale)";

/// The per-phase NIAH table of `architecture` as the layers read it (kRead), under `protocol`:
/// the one place the read is decided, for a layer and for the stack alike. Throws InputError
/// naming the option when the protocol is invalid or the work beyond the limits.
engines::NiahPlan prediction_plan(const niah::Architecture& architecture, const Protocol& protocol,
                                  const engines::EngineRegistry& engines);

struct Prediction {
  std::vector<niah::NiahResult> layers;  ///< one per cache of the stack, in order
  niah::NiahResult stack;                ///< read if any of its layers reads the needle
};

/// A checkpoint read and checked, its gates made and the stack's prediction planned: what the
/// command's constructor does, before anything long.
class Inspection {
 public:
  /// Throws InputError naming the file, the tensor and what is wrong (checkpoint/), or the
  /// option; "checkpoint ... has no compressed layer" when no layer runs a compressor.
  Inspection(InspectSpec spec, std::shared_ptr<const engines::EngineRegistry> engines);

  const InspectSpec& spec() const { return spec_; }
  const checkpoint::Checkpoint& checkpoint() const { return checkpoint_; }
  const checkpoint::ModelConfig& config() const { return config_; }
  checkpoint::Spelling spelling() const { return spelling_; }
  const std::vector<InspectedLayer>& layers() const { return layers_; }
  /// One layer per cache: every layer that runs its own compressor, in order.
  const niah::Architecture& architecture() const { return architecture_; }
  /// The checkpoint layer of each layer of architecture() (1-based there).
  const std::vector<int>& stack_layers() const { return stack_layers_; }
  const engines::NiahPlan& stack_plan() const { return *stack_plan_; }
  /// The bytes read from the checkpoint (all of it is read by the constructor).
  std::uint64_t bytes_read() const { return bytes_read_; }
  WorkEstimate estimate() const;

  /// The per-layer and stack tables.
  Prediction predict() const;

 private:
  InspectSpec spec_;
  std::shared_ptr<const engines::EngineRegistry> engines_;  // the plans' engine lives there
  checkpoint::Checkpoint checkpoint_;
  checkpoint::ModelConfig config_;
  checkpoint::Spelling spelling_ = checkpoint::Spelling::deepseek;
  std::vector<InspectedLayer> layers_;
  niah::Architecture architecture_;
  std::vector<int> stack_layers_;
  std::optional<engines::NiahPlan> stack_plan_;
  std::uint64_t bytes_read_ = 0;
};

/// The `inspect` document: the spec, the checkpoint (spelling, files, bytes read), its config,
/// the read and the assumptions, every layer (plan, gates, coverage, content noise, sinks and
/// its table), the stack's layers and its table ("groups", "summary", as niah's document), then
/// the warnings.
Json inspection_document(const Inspection& inspection, const Prediction& prediction);

/// The architecture file of the stack (niah --arch reruns the prediction), with a header that
/// says where it came from and what it leaves out, and each layer's checkpoint layer.
std::string inspection_architecture(const Inspection& inspection);

}  // namespace phasesim::inspect
