#include "phasesim/commands/niah.hpp"

#include "commands/common_options.hpp"
#include "phasesim/engines/engine.hpp"

namespace phasesim::commands {

CommandInfo Niah::info() {
  CommandInfo info{"niah", "Per-phase needle-in-a-haystack accuracy of a compressed cache"};
  info.details =
      "Per-group needle-in-a-haystack accuracy (group = needle position mod G) with standard "
      "errors, Wilson intervals, head combination and knockout; per-channel gates "
      "(channels:SPEC=SHARE|...) and split projections (--split-rho), MODEL.md section 9. With "
      "--arch, an architecture: layers of heads, each with its own window, stride, offset and gate "
      "(a file, or a preset: " +
      joined(niah::architecture_presets()) +
      "; whole models layer by layer: v4-flash, v4-pro, v41-flash, nsa, moba); every run reports "
      "its KV cost. The "
      "read path (MODEL.md section 10): top-k selection by an indexer with its own gate "
      "(--top-k, --index-gates, --index-beta, --index-rho), the sliding window, a sink, the "
      "selected blocks read raw (--raw-blocks: NSA's selection branch, MoBA), needles of "
      "several tokens. "
      "Engines: analytic, fast (the default), full, full-double, gpu (sim/ENGINES.md).";
  return info;
}

OptionTable<Niah::Options> Niah::table(const Environment& environment) {
  OptionTable<Options> t;
  const Traits shorthand{.excludes = {"arch"}};
  add_geometry(
      t, [](auto& o) -> auto& { return o.spec.geometry.window; },
      [](auto& o) -> auto& { return o.spec.geometry.stride; }, shorthand);
  t.add(
      "heads", [](auto& o) -> auto& { return o.spec.heads; },
      "Heads H (replicates a single --gates spec; default: one per gate)", shorthand);
  t.add("gates", [](auto& o) -> auto& { return o.spec.gates; },
        std::string("Gate per head, ';'-separated, or @file.json: ") + kGateFormsHelp,
        {.aliases = {"gate"}, .excludes = {"arch"}});
  t.add(
      "offset", [](auto& o) -> auto& { return o.spec.geometry.offset; },
      "Entry boundaries shifted by O tokens (0 <= O < S), for every head", shorthand);
  t.add(
      "split-rho", [](auto& o) -> auto& { return o.spec.split_rho; },
      "Correlation of a token's keys in its entries' newer and older slots (split "
      "projections, MODEL.md section 9; 1: one projection; an architecture file gives "
      "split_rho per layer or head)",
      shorthand);
  add_arch(t, &Options::arch, {"window", "stride", "heads", "gates", "offset", "split-rho"});
  add_read_path(t);
  add_run_options(t, environment.engines->names());
  t.add(
      "knockout", [](auto& o) -> auto& { return o.spec.knockout; },
      "Also report each group without head H (0-based, over all layers)");
  add_progress(t, &Options::progress);
  return t;
}

namespace {

// The engine first, then --arch's file: the order the checks have always had.
engines::NiahPlan niah_plan(const Niah::Options& options, const engines::EngineRegistry& engines) {
  const auto& engine = engines.find(options.engine);
  auto spec = options.spec;
  if (options.arch) spec.architecture = niah::load_architecture(*options.arch);
  return engines::prepare(spec, engine, Parallel{options.threads}.team());
}

}  // namespace

Niah::Niah(Options options, const Environment& environment)
    : options_(std::move(options)),
      engines_(environment.engines),
      plan_(niah_plan(options_, *engines_)) {}

Work Niah::work() const {
  const bool counted = plan_.engine().monte_carlo();
  return {plan_.estimate(), counted ? static_cast<std::size_t>(plan_.run().needles.trials()) : 0,
          "trials"};
}

Niah::Result Niah::run(const Context& context) const {
  return engines::run_niah(plan_, context.parallel);
}

Json Niah::document(const Result& result) const {
  return engines::niah_plan_document(plan_, result);
}

CommandInfo Compare::info() {
  CommandInfo info{
      "compare", "Architectures on the same needles: KV cost, mean, worst, gap, paired difference"};
  info.details =
      "Architectures on the same needles (paired trials): KV cost, mean, worst, gap, worst/mean "
      "and the paired difference of each against the first, with standard errors.";
  return info;
}

OptionTable<Compare::Options> Compare::table(const Environment& environment) {
  OptionTable<Options> t;
  t.add("architectures", &Options::architectures,
        "Architecture files or presets (" + joined(niah::architecture_presets()) +
            "); differences are against the first",
        {.positional = true, .required = true, .role = Role::input_file});
  add_run_options(t, environment.engines->names());
  return t;
}

namespace {

// The architectures' files first, then the engine.
compare::ComparePlan compare_plan(const Compare::Options& options,
                                  const engines::EngineRegistry& engines) {
  compare::CompareSpec spec{{}, options.spec};
  for (const auto& file : options.architectures)
    spec.architectures.push_back(niah::load_architecture(file));
  const auto& engine = engines.find(options.engine);
  return compare::prepare_compare(spec, engine, Parallel{options.threads}.team());
}

}  // namespace

Compare::Compare(Options options, const Environment& environment)
    : options_(std::move(options)),
      engines_(environment.engines),
      plan_(compare_plan(options_, *engines_)) {}

Compare::Result Compare::run(const Context& context) const {
  return compare::run_compare(plan_, context.parallel);
}

Json Compare::document(const Result& result) const {
  return compare::compare_document(result, plan_.engine());
}

}  // namespace phasesim::commands
