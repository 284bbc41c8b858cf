#include "phasesim/commands/inspect.hpp"

#include "commands/common_options.hpp"

namespace phasesim::commands {

CommandInfo Inspect::info() {
  CommandInfo info{"inspect",
                   "A real checkpoint's phase profile predicted from its compressor weights"};
  info.details =
      "Reads a V4-style checkpoint (a folder with config.json and safetensors, sharded or not, or "
      "one .safetensors file; DeepSeek's or transformers' tensor names) by offset, only the "
      "tensors that decide the phases: each layer's per-channel gate from its position bias, "
      "its coverage, the content noise its gate projection implies, the indexer's gate and the "
      "sink logits; then the predicted per-phase NIAH table per layer and for the stack "
      "(docs/INSPECT.md). --save-arch writes the architecture that niah --arch reruns.";
  return info;
}

OptionTable<Inspect::Options> Inspect::table(const Environment&) {
  OptionTable<Options> t;
  t.add("path", [](auto& o) -> auto& { return o.spec.path; },
        "Checkpoint: a folder (config.json, model.safetensors or its index and shards) or one "
        ".safetensors file with config.json beside it",
        {.positional = true, .required = true, .role = Role::input_file});
  t.add(
      "beta", [](auto& o) -> auto& { return o.spec.protocol.beta; },
      "Standardized channel: signal strength beta of the predicted tables (not in the weights)");
  add_context_and_groups(
      t, [](auto& o) -> auto& { return o.spec.protocol.context; },
      [](auto& o) -> auto& { return o.spec.protocol.groups; });
  t.add(
      "content-columns", [](auto& o) -> auto& { return o.spec.content_columns; },
      "Columns of each gate projection row read for its content noise (0: all)");
  t.add("save-arch", &Options::save_arch,
        "Write the stack as an architecture file (niah --arch FILE.toml --engine analytic)",
        {.role = Role::output_file});
  return t;
}

Inspect::Inspect(Options options, const Environment& environment)
    : options_(std::move(options)), inspection_(options_.spec, environment.engines) {}

Work Inspect::work() const {
  Work work{inspection_.estimate()};
  work.serial = true;
  return work;
}

Inspect::Result Inspect::run(const Context&) const {
  auto prediction = inspection_.predict();
  if (options_.save_arch) {
    write_output(*options_.save_arch, inspect::inspection_architecture(inspection_));
  }
  return prediction;
}

Json Inspect::document(const Result& result) const {
  return inspect::inspection_document(inspection_, result);
}

}  // namespace phasesim::commands
