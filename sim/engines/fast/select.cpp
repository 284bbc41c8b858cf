// The fast engine's selector: which path a head takes (path_for, once per run), and the call to
// it (Sampler::retrieves, per trial and head). The paths are one file each in this folder.
#include "phasesim/core/error.hpp"
#include "sampler.hpp"

namespace phasesim::engines::fast {
namespace {

// True when two weighted slots a < b have one phase: the token an entry holds at slot b is
// held by the entry (b - a) / S later at slot a, so those entries share it.
bool shares_tokens(const Geometry& geometry, const Gate& gate) {
  const auto support = support_of(gate);
  for (std::size_t a = 0; a < support.size(); ++a) {
    for (std::size_t b = a + 1; b < support.size(); ++b) {
      if ((support[b] - support[a]) % geometry.stride == 0) return true;
    }
  }
  return false;
}

// Per-channel gates: the channel path in the standardized channel (without content noise), a
// channel-groups path in the full-vector model, none with --rms-norm.
Path channels_path(const niah::NiahModel& model, int head, bool noisy) {
  const auto& gate = model.gates[static_cast<std::size_t>(head)];
  const auto refuse = [&](const std::string& why) {
    throw InputError("invalid --engine fast: head " + std::to_string(head) +
                     " has the per-channel gate '" + gate.spec + "', " + why);
  };
  if (model.rms_norm) {
    refuse(
        "and fast has no exact path for it with --rms-norm (its pooled entries' channels "
        "have unequal variances); use --engine full");
  }
  if (!model.full_vector()) {
    if (noisy) {
      refuse(
          "and the standardized channel has no channels to give content noise; give "
          "--dim D and use --engine full or fast");
    }
    return Path::channel;
  }
  return shares_tokens(model.geometry(head), gate) || noisy ? Path::streaming_channels
                                                            : Path::conditional_channels;
}

// A head that reads beyond section 4 (MODEL.md section 10): exact in the standardized channel
// without content noise, and in the full-vector model where neither gate weights a token in two
// entries, without content noise or RMS norm.
Path read_path_for(const niah::NiahModel& model, int head, bool noisy) {
  const auto refuse = [&](const std::string& why) {
    throw InputError("invalid --engine fast: head " + std::to_string(head) +
                     " reads with top-k selection, a sliding window, a sink or a needle of "
                     "several tokens (MODEL.md section 10), " +
                     why);
  };
  if (noisy) {
    refuse(model.full_vector()
               ? "which fast has no exact path for with content noise; use --engine full"
               : "which fast has no exact path for with content noise; give --dim D and use "
                 "--engine full");
  }
  if (!model.full_vector()) return Path::two_stage;
  const auto& g = model.geometry(head);
  if (model.rms_norm || shares_tokens(g, model.gates[static_cast<std::size_t>(head)]) ||
      shares_tokens(g, model.index_gate(head))) {
    refuse(
        "which fast samples in the full-vector model only where neither gate weights a token "
        "in two entries and without --rms-norm; use --engine full");
  }
  return Path::two_stage_conditional;
}

}  // namespace

Path path_for(const niah::NiahModel& model, int head) {
  const auto& gate = model.gates[static_cast<std::size_t>(head)];
  const bool noisy = model.content_noise > 0 && support_of(gate).size() > 1;
  // Before the read path's paths too: they draw each query head's keys on their own.
  // shares_cache last: it scans every head.
  if (model.full_vector() && model.head_query_noise(head) > 0 && model.shares_cache(head)) {
    throw InputError("invalid --engine fast: head " + std::to_string(head) +
                     " shares its cache with other query heads, and with query noise "
                     "(--query-noise, or a layer's beta below sqrt(d)) their logits are "
                     "correlated through the keys, which fast has no exact path for; use "
                     "--engine full (without query noise they attend alike)");
  }
  if (!model.plain(head)) return read_path_for(model, head, noisy);
  if (gate.per_channel()) return channels_path(model, head, noisy);
  if (!model.full_vector()) {
    return noisy && !model.rms_norm ? Path::streaming_entries : Path::channel;
  }
  const bool shared = shares_tokens(model.geometry(head), gate);
  const auto& g = model.geometry(head);
  if (model.rms_norm && shared && model.split_rho(head) < 1 && g.older_slots() > 0) {
    throw InputError("invalid --engine fast: head " + std::to_string(head) +
                     " has split projections (split_rho " + format_number(model.split_rho(head)) +
                     ") with --rms-norm and shared tokens, and fast has no exact path for them; "
                     "use --engine full");
  }
  if (model.rms_norm) return shared ? Path::streaming_rms : Path::conditional_rms;
  return shared || noisy ? Path::streaming_tokens : Path::conditional;
}

std::string path_name(Path path) {
  switch (path) {
    case Path::channel:
      return "channel";
    case Path::streaming_entries:
      return "streaming-entries";
    case Path::conditional:
      return "conditional";
    case Path::conditional_rms:
      return "conditional-rms";
    case Path::streaming_tokens:
      return "streaming-tokens";
    case Path::streaming_rms:
      return "streaming-rms";
    case Path::conditional_channels:
      return "conditional-channels";
    case Path::streaming_channels:
      return "streaming-channels";
    case Path::two_stage:
      return "two-stage";
    case Path::two_stage_conditional:
      return "two-stage-conditional";
  }
  return "unknown";
}

TwoStage Sampler::retrieves(std::uint32_t trial, std::int64_t needle, int head,
                            Workspace& ws) const {
  const auto& h = heads_[static_cast<std::size_t>(head)];
  const Trial t{trial, needle, head};
  // Section 4's paths read every entry: stage 1 passes the needle.
  const auto read = [](bool retrieved) { return TwoStage{true, retrieved}; };
  switch (h.path) {
    case Path::channel:
      return read(sample_channel(*this, h, t, ws));
    case Path::streaming_entries:
      return read(sample_streaming_entries(*this, h, t, ws));
    case Path::conditional:
      return read(sample_conditional(*this, h, t, ws));
    case Path::conditional_rms:
      return read(sample_conditional_rms(*this, h, t, ws));
    case Path::streaming_tokens:
      return read(sample_streaming_tokens(*this, h, t, ws));
    case Path::streaming_rms:
      return read(sample_streaming_rms(*this, h, t, ws));
    case Path::conditional_channels:
      return read(sample_conditional_channels(*this, h, t, ws));
    case Path::streaming_channels:
      return read(sample_streaming_channels(*this, h, t, ws));
    case Path::two_stage:
      return sample_two_stage(*this, h, t, ws);
    case Path::two_stage_conditional:
      return sample_two_stage_conditional(*this, h, t, ws);
  }
  return {};
}

}  // namespace phasesim::engines::fast
