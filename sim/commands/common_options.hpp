#pragma once
// The options several commands declare alike, each written here once: the geometry, --arch,
// --threads and --progress.
#include <string>
#include <vector>

#include "phasesim/commands/option.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/niah/architecture.hpp"
#include "phasesim/niah/run.hpp"

namespace phasesim::commands {

/// "a, b, c".
std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ");

/// --window/-W and --stride/-S.
template <class Options, class Window, class Stride>
void add_geometry(OptionTable<Options>& table, Window window, Stride stride, Traits traits = {}) {
  traits.short_name = "W";
  table.add("window", window, "Window W (tokens per entry)", traits);
  traits.short_name = "S";
  table.add("stride", stride, "Stride S (tokens between entries)", traits);
}

/// The help of --arch, which replaces the one-layer shorthand's options `shorthand`.
std::string arch_help(const std::vector<std::string>& shorthand);

/// --arch FILE (an architecture file or a preset), excluding the shorthand's options.
template <class Options, class Arch>
void add_arch(OptionTable<Options>& table, Arch arch, const std::vector<std::string>& shorthand) {
  table.add("arch", arch, arch_help(shorthand), {.excludes = shorthand, .role = Role::input_file});
}

/// --threads N.
template <class Options, class Threads>
void add_threads(OptionTable<Options>& table, Threads threads,
                 std::string help = "OpenMP threads (0: the OpenMP default)") {
  table.add("threads", threads, std::move(help), {.role = Role::threads});
}

/// --progress.
template <class Options, class Progress>
void add_progress(
    OptionTable<Options>& table, Progress progress,
    std::string help = "Show progress and the time left on stderr (default: only on a terminal)") {
  table.add("progress", progress, std::move(help), {.role = Role::progress});
}

/// --context/-L and --groups/-G of a NIAH table.
template <class Options, class Context, class Groups>
void add_context_and_groups(OptionTable<Options>& t, Context context, Groups groups) {
  t.add("context", context, "Context length L in tokens", {.short_name = "L"});
  t.add("groups", groups, "Groups G (group = needle position mod G)", {.short_name = "G"});
}

/// What every NIAH run takes beside its model, on the fields of Options::spec (a
/// niah::NiahSpec): --content-noise, --rms-norm, --context, --groups and --prompts.
template <class Options>
void add_protocol(OptionTable<Options>& t) {
  t.add(
      "content-noise", [](auto& o) -> auto& { return o.spec.content_noise; },
      "Content noise tau of the gate");
  t.add(
      "rms-norm", [](auto& o) -> auto& { return o.spec.rms_norm; },
      "RMS-normalize every pooled entry");
  add_context_and_groups(
      t, [](auto& o) -> auto& { return o.spec.context; },
      [](auto& o) -> auto& { return o.spec.groups; });
  t.add("prompts", [](auto& o) -> auto& { return o.spec.prompts; }, "Prompts (trials) per group",
        {.short_name = "P"});
}

/// The read path (MODEL.md section 10) on the fields of Options::spec (a niah::NiahSpec): what
/// it says applies to every head whose architecture file gives no value of its own.
template <class Options>
void add_read_path(OptionTable<Options>& t) {
  t.add(
      "top-k", [](auto& o) -> auto& { return o.spec.read.top_k; },
      "Stage 1 keeps the K entries with the best selection scores (default: every entry, the "
      "argmax over all; a K at least the entries selects nothing)");
  t.add(
      "index-gates", [](auto& o) -> auto& { return o.spec.read.index_gates; },
      "The selection score's gate: one for every head or one per head, ';'-separated, in the "
      "forms of --gates (default: the head's own gate)");
  t.add(
      "index-beta", [](auto& o) -> auto& { return o.spec.read.index_beta; },
      "The selection score's signal strength (default: the model's beta)");
  t.add(
      "index-rho", [](auto& o) -> auto& { return o.spec.read.index_rho; },
      "Correlation of an entry's selection score and attention logit, in [-1, 1] (default 0)");
  t.add(
      "sliding-window", [](auto& o) -> auto& { return o.spec.read.sliding_window; },
      "The last N tokens are also read raw in stage 2, one entry each (default 0)");
  t.add(
      "sink", [](auto& o) -> auto& { return o.spec.read.sink; },
      "A stage-2 competitor with this standardized logit: when it wins, nothing is read");
  t.add(
      "raw-blocks", [](auto& o) -> auto& { return o.spec.read.raw_blocks; },
      "Stage 2 reads the raw tokens of the kept entries (NSA's selection branch, MoBA), the "
      "needle's at u = 1, not their pooled keys (needs --window = --stride)");
  t.add(
      "needle-tokens", [](auto& o) -> auto& { return o.spec.needle_tokens; },
      "Tokens n of the needle (p..p+n-1); the query matches the normalized sum of their keys");
}

/// --seed (Options::spec.seed) and --threads (Options::threads).
template <class Options>
void add_seed_and_threads(OptionTable<Options>& t) {
  t.add(
      "seed", [](auto& o) -> auto& { return o.spec.seed; }, "Random seed");
  add_threads(
      t, [](auto& o) -> auto& { return o.threads; });
}

/// The model's parameterization and the protocol that niah and compare take, on the fields of
/// Options::spec (a niah::NiahSpec), then --engine (Options::engine, one of `engines`), --seed
/// and --threads.
template <class Options>
void add_run_options(OptionTable<Options>& t, const std::vector<std::string>& engines) {
  t.add(
      "beta", [](auto& o) -> auto& { return o.spec.beta; },
      "Standardized channel: signal strength beta (" + format_number(kDefaultBeta) +
          " when neither --beta nor --dim is given)");
  t.add(
      "dim", [](auto& o) -> auto& { return o.spec.dim; },
      "Full-vector model: key dimension d (instead of --beta)");
  t.add(
      "query-noise", [](auto& o) -> auto& { return o.spec.query_noise; },
      "Full-vector model: query noise sigma_q");
  add_protocol(t);
  t.add(
      "combine", [](auto& o) -> auto& { return o.spec.combine; }, "Combine heads: any or vote:K");
  t.add(
      "engine", [](auto& o) -> auto& { return o.engine; }, joined(engines));
  add_seed_and_threads(t);
}

}  // namespace phasesim::commands
