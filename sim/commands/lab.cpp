#include "phasesim/commands/lab.hpp"

#include "commands/common_options.hpp"
#include "phasesim/training/report.hpp"

namespace phasesim::commands {
namespace {

// The layer's options: the model of docs/TRAINING.md.
template <class Options>
void add_model_options(OptionTable<Options>& t) {
  add_geometry(
      t, [](auto& o) -> auto& { return o.spec.model.geometry.window; },
      [](auto& o) -> auto& { return o.spec.model.geometry.stride; });
  t.add(
      "offset", [](auto& o) -> auto& { return o.spec.model.geometry.offset; },
      "Entry boundaries shifted by O tokens (0 <= O < S), for every head");
  t.add(
      "heads", [](auto& o) -> auto& { return o.spec.model.heads; }, "Heads H");
  t.add(
      "dim", [](auto& o) -> auto& { return o.spec.model.dim; }, "Embedding dimension d");
  t.add("context", [](auto& o) -> auto& { return o.spec.model.context; },
        "Context length L in tokens", {.short_name = "L"});
  t.add(
      "query-noise", [](auto& o) -> auto& { return o.spec.model.query_noise; },
      "Query noise sigma_q");
  t.add(
      "rms-norm", [](auto& o) -> auto& { return o.spec.model.rms_norm; },
      "RMS-normalize every pooled key");
  t.add("content", [](auto& o) -> auto& { return o.spec.model.content; },
        "Learn the gate's content term a_h . x_t (--no-content: a = 0)",
        {.negation = "no-content"});
  t.add(
      "per-channel", [](auto& o) -> auto& { return o.spec.model.per_channel; },
      "A gate per channel: bias W x d and content matrix d x d per head (V4's ape)");
  t.add(
      "query-heads", [](auto& o) -> auto& { return o.spec.model.query_heads; },
      "K query heads read each head's cache, each its own query noise and lambda");
  t.add(
      "query-projection", [](auto& o) -> auto& { return o.spec.model.query_projection; },
      "Each query head learns a d x d projection of its query (identity at step 0)");
  t.add(
      "split-rho", [](auto& o) -> auto& { return o.spec.model.split_rho; },
      "Older slots read rho x_t + sqrt(1 - rho^2) x''_t (split projections)");
  t.add(
      "beta-out", [](auto& o) -> auto& { return o.spec.model.beta_out; },
      "Output loss scale beta_o in l(beta_o m)");
  t.add(
      "answers", [](auto& o) -> auto& { return o.spec.model.loss.answers; },
      "M competing answers in l(z) = log(1 + M e^-z)");
}

training::LabSpec checked_spec(const Train::Options& options) {
  auto spec = options.spec;
  spec.batches = training::parse_batches(options.batches);
  spec.validate();
  spec.check_work(Parallel{options.threads}.team());
  return spec;
}

}  // namespace

CommandInfo Train::info() {
  CommandInfo info{"train",
                   "Train a tiny compressed-attention layer; read its gates and NIAH table"};
  info.details =
      "Trains a tiny compressed-attention layer (softmax gates with a learned per-slot bias and "
      "content term, softmax attention, a bounded loss) by Adam: log of loss and each head's gate, "
      "initial and final argmax (T2), blind phases against T3, the trained layer's NIAH table "
      "beside its analytic prediction, its period (docs/TRAINING.md); per-channel gates, query "
      "heads and split projections as V4's compressor has them.";
  return info;
}

OptionTable<Train::Options> Train::table(const Environment&) {
  OptionTable<Options> t;
  add_model_options(t);
  t.add(
      "steps", [](auto& o) -> auto& { return o.spec.steps; }, "Adam steps");
  t.add(
      "batch", [](auto& o) -> auto& { return o.spec.batch; },
      "Contexts per step (one needle each)");
  t.add("batches", &Options::batches,
        "shared: every head's gradient from one batch; independent: each head its own batch (H "
        "times the contexts)");
  t.add(
      "lr", [](auto& o) -> auto& { return o.spec.adam.lr; }, "Adam learning rate");
  t.add(
      "init-scale", [](auto& o) -> auto& { return o.spec.init_scale; },
      "Initial biases: head h starts at random:SEED+h:SCALE");
  t.add(
      "init-lambda", [](auto& o) -> auto& { return o.spec.init_lambda; },
      "Initial attention inverse temperature (default sqrt(d), 1 with --rms-norm)");
  t.add(
      "seed", [](auto& o) -> auto& { return o.spec.seed; },
      "Random seed (initial gates, contexts, evaluation)");
  t.add(
      "record-every", [](auto& o) -> auto& { return o.spec.record_every; },
      "Gate trajectory and loss curve every K steps");
  t.add(
      "log-every", [](auto& o) -> auto& { return o.spec.log_every; }, "A log line every K steps");
  add_progress(t, &Options::progress, "Show the time left in the log (always on a terminal)");
  t.add("groups", [](auto& o) -> auto& { return o.spec.groups; },
        "Evaluation: groups G (needle position mod G)", {.short_name = "G"});
  t.add("prompts", [](auto& o) -> auto& { return o.spec.prompts; },
        "Evaluation: prompts (trials) per group", {.short_name = "P"});
  add_threads(t, &Options::threads);
  t.add("save-gates", &Options::save_gates,
        "Write the trained gates as a gate file (niah --gates @FILE.json)",
        {.role = Role::output_file});
  t.add("save-arch", &Options::save_arch,
        "Write the trained layer as an architecture file (niah --arch FILE.toml)",
        {.role = Role::output_file});
  return t;
}

Train::Train(Options options, const Environment&)
    : options_(std::move(options)), spec_(checked_spec(options_)) {}

Train::Result Train::run(const Context& context) const {
  auto result = training::run_lab(spec_, context.parallel, context.training_log);
  const auto& final = result.training.final;
  if (options_.save_gates)
    write_document(*options_.save_gates, training::gates_document(spec_, final));
  if (options_.save_arch)
    write_output(*options_.save_arch, training::architecture_text(spec_, final));
  return result;
}

Json Train::document(const Result& result) const { return training::lab_document(spec_, result); }

CommandInfo Diagnose::info() {
  CommandInfo info{
      "diagnose",
      "From a per-group NIAH table back to the model: period, covered phases, beta and "
      "gates, prompts needed"};
  info.details =
      "From a per-group NIAH table (CSV or a niah JSON) back to the model: exact period tests, "
      "covered and blind phases, the worst phase, beta and the gates with profile-likelihood "
      "intervals, prompts needed (docs/DIAGNOSE.md).";
  return info;
}

OptionTable<Diagnose::Options> Diagnose::table(const Environment&) {
  OptionTable<Options> t;
  t.add("table", &Options::table,
        "CSV with columns group,successes,trials or group,accuracy,trials, or a `phasesim niah "
        "--json` result",
        {.positional = true, .required = true, .role = Role::input_file});
  t.add("window", [](auto& o) -> auto& { return o.spec.window; }, "Window W, when known",
        {.short_name = "W"});
  t.add("stride", [](auto& o) -> auto& { return o.spec.stride; }, "Stride S, when known",
        {.short_name = "S"});
  t.add("context", [](auto& o) -> auto& { return o.spec.context; },
        "Context length L in tokens, when known (default 131072)", {.short_name = "L"});
  t.add(
      "heads", [](auto& o) -> auto& { return o.spec.heads; },
      "KV heads H, when known (default 1); H > 1 fits one-hot heads");
  t.add(
      "top-k", [](auto& o) -> auto& { return o.spec.top_k; },
      "The read path's top-k, when the table was made with one: the fits' success is its two "
      "stages (docs/DIAGNOSE.md)");
  t.add(
      "sliding-window", [](auto& o) -> auto& { return o.spec.sliding_window; },
      "The read path's raw sliding window in tokens, when the table was made with one");
  t.add(
      "needle-tokens", [](auto& o) -> auto& { return o.spec.needle_tokens; },
      "Tokens of the needle: 1 or 2 (2: one head, one weight per phase, or with --heads "
      "one-hot heads, fitted through the analytic engine's 2-token read)");
  t.add(
      "replicates", [](auto& o) -> auto& { return o.spec.period.replicates; },
      "Monte Carlo draws of each exact test's null distribution");
  t.add(
      "seed", [](auto& o) -> auto& { return o.spec.period.seed; },
      "Random seed of the exact tests");
  add_threads(t, &Options::threads);
  return t;
}

namespace {

diagnose::CountTable read_counts(const FileInput& table) {
  return table.text ? diagnose::parse_csv_table(*table.text, table.name)
                    : diagnose::read_table(table.name);
}

}  // namespace

Diagnose::Diagnose(Options options, const Environment&)
    : options_(std::move(options)), counts_(read_counts(options_.table)) {
  diagnose::resolve_architecture(counts_, options_.spec);
  stats::validate_period_options(options_.spec.period, counts_.size());
}

Diagnose::Result Diagnose::run(const Context& context) const {
  return diagnose::diagnose(counts_, options_.spec, context.parallel);
}

Json Diagnose::document(const Result& result) const {
  return diagnose::diagnose_document(options_.table.name, counts_, options_.spec, result);
}

}  // namespace phasesim::commands
