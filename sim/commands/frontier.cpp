#include "phasesim/commands/frontier.hpp"

#include "commands/common_options.hpp"
#include "phasesim/core/files.hpp"
#include "phasesim/engines/engine.hpp"

namespace phasesim::commands {

CommandInfo Frontier::info() {
  CommandInfo info{"frontier",
                   "The Pareto frontier of KV cost and read cost against the worst phase and mean"};
  info.details =
      "Over a design space of one-layer compressors (the product of --ratios, --overlaps, "
      "--gate-families, --caches, --top-k and --sliding-windows), the designs no other beats "
      "on every one of KV entries per token, entries read per query, the worst phase and the "
      "mean (or, with --weight, the weighted score), above --floor; each row an architecture "
      "file (--out writes them). Exact (the analytic engine) where it computes the design; "
      "needles of 3 tokens or more and --index-rho other than 0 run on the fast engine, each such "
      "row with its trials and standard error. The presets run at the same context (at most "
      "128 groups; a preset the context cannot hold is left out, with a warning) and are "
      "marked against the frontier.";
  return info;
}

OptionTable<Frontier::Options> Frontier::table(const Environment&) {
  OptionTable<Options> t;
  const auto space = [](auto field) {
    return [field](auto& o) -> auto& { return o.spec.space.*field; };
  };
  using Space = frontier::DesignSpace;
  t.add("context", [](auto& o) -> auto& { return o.spec.model.context; },
        "Context length L in tokens", {.short_name = "L"});
  t.add(
      "needle-tokens", [](auto& o) -> auto& { return o.spec.model.needle_tokens; },
      "Tokens n of the needle (n > 1 runs on the fast engine)");
  t.add(
      "beta", [](auto& o) -> auto& { return o.spec.model.beta; },
      "Signal strength beta of the standardized channel (default: where one gate gives "
      "V4-Flash-Base's "
      "table, presets/v4-csa.toml's one_gate_beta)");
  t.add(
      "floor", [](auto& o) -> auto& { return o.spec.floor; },
      "Drop designs whose worst phase is below this accuracy, in [0, 1]");
  t.add(
      "weight", [](auto& o) -> auto& { return o.spec.weight; },
      "One quality score, weight x mean + (1 - weight) x worst, in [0, 1] (default: worst and "
      "mean are separate objectives)");
  t.add("ratios", space(&Space::ratios), "Compress ratios: the strides S");
  t.add("overlaps", space(&Space::overlaps), "Windows as multiples of the stride: W = overlap x S");
  t.add("gate-families", space(&Space::gates),
        "Gates: uniform, last (one-hot on the newest slot), spread (channels one-hot on every "
        "phase, equal shares), or a gate spec in --gates' forms; words, not commas: "
        "--gate-families uniform last");
  t.add("caches", space(&Space::heads),
        "Caches per layer (independent compressors, entry boundaries spread over the stride)");
  t.add("top-k", space(&Space::top_k), "Entries kept by the selection (0: every entry)");
  t.add("sliding-windows", space(&Space::sliding_windows),
        "Raw tokens of the sliding window read beside the entries");
  t.add(
      "index-beta", [](auto& o) -> auto& { return o.spec.model.read.index_beta; },
      "The selection score's signal strength (default: beta)");
  t.add(
      "index-rho", [](auto& o) -> auto& { return o.spec.model.read.index_rho; },
      "Correlation of an entry's selection score and attention logit (not 0: the fast engine)");
  t.add(
      "sink", [](auto& o) -> auto& { return o.spec.model.read.sink; },
      "A stage-2 competitor with this standardized logit");
  t.add("presets", [](auto& o) -> auto& { return o.spec.presets; },
        "Also run the presets (presets/*.toml) and mark them", {.negation = "no-presets"});
  t.add("prompts", [](auto& o) -> auto& { return o.spec.model.prompts; },
        "Prompts per group of the rows the fast engine runs", {.short_name = "P"});
  t.add("out", &Options::out, "Folder to write the frontier's architecture files into (NAME.toml)");
  t.add(
      "seed", [](auto& o) -> auto& { return o.spec.model.seed; }, "Random seed");
  add_threads(t, &Options::threads);
  add_progress(t, &Options::progress);
  return t;
}

namespace {

frontier::FrontierPlan checked_plan(const Frontier::Options& options,
                                    const engines::EngineRegistry& engines) {
  auto plan = frontier::prepare_frontier(options.spec, engines, Parallel{options.threads}.team());
  if (options.out) check_output_folder(*options.out, "--out");
  return plan;
}

}  // namespace

Frontier::Frontier(Options options, const Environment& environment)
    : options_(std::move(options)),
      engines_(environment.engines),
      plan_(checked_plan(options_, *engines_)) {}

Frontier::Result Frontier::run(const Context& context) const {
  Result result{frontier::run_frontier(plan_, context.parallel), {}};
  if (options_.out)
    result.files = frontier::write_frontier_files(plan_, result.frontier, *options_.out);
  return result;
}

Json Frontier::document(const Result& result) const {
  auto doc = frontier::frontier_document(plan_, result.frontier);
  doc["out"] = optional_json(options_.out);
  doc["files"] = result.files;
  return doc;
}

}  // namespace phasesim::commands
