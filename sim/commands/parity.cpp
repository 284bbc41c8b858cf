#include "phasesim/commands/parity.hpp"

#include "commands/common_options.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/normal_block.hpp"
#include "phasesim/engines/engine.hpp"
#include "phasesim/engines/gpu.hpp"

namespace phasesim::commands {
namespace {

// The model and run options niah takes, with the check's own defaults.
template <class Options>
OptionTable<Options> parity_table() {
  OptionTable<Options> t;
  add_geometry(
      t, [](auto& o) -> auto& { return o.spec.geometry.window; },
      [](auto& o) -> auto& { return o.spec.geometry.stride; });
  t.add("gates", [](auto& o) -> auto& { return o.spec.gates; },
        "Gate spec, replicated over the heads", {.aliases = {"gate"}});
  t.add(
      "heads", [](auto& o) -> auto& { return *o.spec.heads; }, "Heads H");
  t.add(
      "dim", [](auto& o) -> auto& { return *o.spec.dim; }, "Key dimension d");
  t.add(
      "query-noise", [](auto& o) -> auto& { return o.spec.query_noise; }, "Query noise sigma_q");
  add_protocol(t);
  add_seed_and_threads(t);
  return t;
}

// A check's default run: d = 64, 8 groups x 64 prompts, W = 8, S = 4.
niah::NiahSpec full_vector_run(const std::string& gates, int heads, double query_noise,
                               std::int64_t context) {
  niah::NiahSpec s;
  s.gates = gates;
  s.heads = heads;
  s.dim = 64;
  s.query_noise = query_noise;
  s.context = context;
  s.prompts = 64;
  return s;
}

}  // namespace

ParityRun::ParityRun(const niah::NiahSpec& spec, int threads, const Environment& environment,
                     const std::string& reference, const std::string& candidate,
                     const std::function<void()>& require,
                     std::function<engines::ParityLabels()> labels)
    : spec_(spec),
      threads_(threads),
      engines_(environment.engines),
      reference_(engines::prepare(spec, engines_->find(reference), Parallel{threads}.team())),
      candidate_(
          (require(), engines::prepare(spec, engines_->find(candidate), Parallel{threads}.team()))),
      labels_(std::move(labels)) {}

ParityRun::Result ParityRun::run(const Context& context) const {
  return {engines::check_parity(reference_, candidate_, context.parallel), labels_()};
}

Json ParityRun::document(const Result& result) const {
  return engines::parity_document(reference_.run(), spec_.gates, Parallel{threads_}, result.labels,
                                  result.check);
}

niah::NiahSpec GpuCheck::Options::small_run() { return full_vector_run("random:1", 2, 1, 4096); }

CommandInfo GpuCheck::info() {
  CommandInfo info{
      "gpu-check",
      "The gpu engine against the CPU full engine, draw for draw, with the throughput of "
      "each (exit status 4 when they differ away from near-ties)",
      false};
  info.details =
      "The CUDA gpu engine against the CPU full engine on one small experiment: per-group "
      "accuracies side by side, the differing argmaxes each with both engines' gaps between "
      "their top two logits (allowed only at near-ties), the largest logit difference, trials/s "
      "and key-vectors/s of each; exit status 4 when they differ away from a near-tie.";
  return info;
}

OptionTable<GpuCheck::Options> GpuCheck::table(const Environment&) {
  return parity_table<Options>();
}

GpuCheck::GpuCheck(Options options, const Environment& environment)
    : ParityRun(
          options.spec, options.threads, environment, "full", "gpu",
          [] {
            const auto reason = engines::gpu_unavailable_reason();
            require(reason.empty(), reason);
          },
          [] {
            return engines::ParityLabels{"gpu-check", "cpu", "gpu", "device",
                                         engines::gpu_device_name()};
          }),
      options_(std::move(options)) {}

niah::NiahSpec PrecisionCheck::Options::protocol() {
  return full_vector_run("uniform", 1, 1.47, 8192);
}

CommandInfo PrecisionCheck::info() {
  CommandInfo info{
      "precision-check",
      "The float full engine against full-double on the same trials: differing argmaxes "
      "with their top-two gaps (exit status 4 when one differs away from a near-tie)",
      false};
  info.details =
      "The float full engine against full-double on the same trials, reported as gpu-check "
      "reports (README, Performance); exit status 4 when they differ away from a near-tie.";
  return info;
}

OptionTable<PrecisionCheck::Options> PrecisionCheck::table(const Environment&) {
  return parity_table<Options>();
}

PrecisionCheck::PrecisionCheck(Options options, const Environment& environment)
    : ParityRun(
          options.spec, options.threads, environment, "full-double", "full", [] {},
          [] {
            return engines::ParityLabels{"precision-check", "double", "float", "simd",
                                         simd_target()};
          }),
      options_(std::move(options)) {}

}  // namespace phasesim::commands
