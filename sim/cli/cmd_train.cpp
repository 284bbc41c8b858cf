// phasesim train: train a tiny compressed-attention layer and read it with the NIAH protocol.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/train_table.hpp"
#include "phasesim/core/files.hpp"
#include "phasesim/core/job.hpp"
#include "phasesim/training/report.hpp"

namespace phasesim::cli {
namespace {

struct TrainOptions {
  training::LabSpec spec;
  double init_lambda = 0;
  const CLI::Option* init_lambda_given = nullptr;
  std::string batches = "shared";
  int threads = 0;
  bool progress = false;
  std::string json;
  std::string save_gates;
  std::string save_arch;
};

int run_train(const training::LabSpec& spec, const TrainOptions& o, std::ostream& out) {
  const bool table = wants_table(o.json);
  auto& log = table ? out : std::cerr;  // stdout holds the JSON with --json -
  const bool terminal = ::isatty(table ? STDOUT_FILENO : STDERR_FILENO) == 1;
  if (table) print_lab_header(spec, out);
  const auto start = std::chrono::steady_clock::now();
  // In an MPI job every rank trains the same layer (the batch loop stays on each rank), and
  // rank 0 alone logs it, as it alone prints and writes.
  training::LabProgressCallback log_lines;
  if (job_rank().root()) log_lines = TrainingLog(log, o.progress || terminal);
  const auto result = training::run_lab(spec, Parallel{o.threads}, log_lines);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (table) print_lab_result(spec, result, elapsed.count(), out);
  if (!o.save_gates.empty())
    write_json(o.save_gates, training::gates_document(spec, result.training.final));
  if (!o.save_arch.empty()) {
    on_root([&] {
      write_file_atomically(o.save_arch, training::architecture_text(spec, result.training.final));
    });
  }
  write_json(o.json, training::lab_document(spec, result));
  return kSuccess;
}

void add_model_options(CLI::App& cmd, training::LayerModel& m) {
  add_geometry_options(cmd, m.geometry);
  cmd.add_option("--offset", m.geometry.offset,
                 "Entry boundaries shifted by O tokens (0 <= O < S), for every head")
      ->capture_default_str();
  cmd.add_option("--heads", m.heads, "Heads H")->capture_default_str();
  cmd.add_option("--dim", m.dim, "Embedding dimension d")->capture_default_str();
  cmd.add_option("--context,-L", m.context, "Context length L in tokens")->capture_default_str();
  cmd.add_option("--query-noise", m.query_noise, "Query noise sigma_q")->capture_default_str();
  cmd.add_flag("--rms-norm", m.rms_norm, "RMS-normalize every pooled key");
  cmd.add_flag("--content,!--no-content", m.content,
               "Learn the gate's content term a_h . x_t (--no-content: a = 0)")
      ->capture_default_str();
  cmd.add_flag("--per-channel", m.per_channel,
               "A gate per channel: bias W x d and content matrix d x d per head (V4's ape)");
  cmd.add_option("--query-heads", m.query_heads,
                 "K query heads read each head's cache, each its own query noise and lambda")
      ->capture_default_str();
  cmd.add_flag("--query-projection", m.query_projection,
               "Each query head learns a d x d projection of its query (identity at step 0)");
  cmd.add_option("--split-rho", m.split_rho,
                 "Older slots read rho x_t + sqrt(1 - rho^2) x''_t (split projections)")
      ->capture_default_str();
  cmd.add_option("--beta-out", m.beta_out, "Output loss scale beta_o in l(beta_o m)")
      ->capture_default_str();
  cmd.add_option("--answers", m.loss.answers, "M competing answers in l(z) = log(1 + M e^-z)")
      ->capture_default_str();
}

void add_options(CLI::App& cmd, TrainOptions& o) {
  auto& s = o.spec;
  add_model_options(cmd, s.model);
  cmd.add_option("--steps", s.steps, "Adam steps")->capture_default_str();
  cmd.add_option("--batch", s.batch, "Contexts per step (one needle each)")->capture_default_str();
  cmd.add_option("--batches", o.batches,
                 "shared: every head's gradient from one batch; independent: each head its own "
                 "batch (H times the contexts)")
      ->capture_default_str();
  cmd.add_option("--lr", s.adam.lr, "Adam learning rate")->capture_default_str();
  cmd.add_option("--init-scale", s.init_scale,
                 "Initial biases: head h starts at random:SEED+h:SCALE")
      ->capture_default_str();
  o.init_lambda_given =
      cmd.add_option("--init-lambda", o.init_lambda,
                     "Initial attention inverse temperature (default sqrt(d), 1 with --rms-norm)");
  cmd.add_option("--seed", s.seed, "Random seed (initial gates, contexts, evaluation)")
      ->capture_default_str();
  cmd.add_option("--record-every", s.record_every, "Gate trajectory and loss curve every K steps")
      ->capture_default_str();
  cmd.add_option("--log-every", s.log_every, "A log line every K steps")->capture_default_str();
  cmd.add_flag("--progress", o.progress, "Show the time left in the log (always on a terminal)");
  cmd.add_option("--groups,-G", s.groups, "Evaluation: groups G (needle position mod G)")
      ->capture_default_str();
  cmd.add_option("--prompts,-P", s.prompts, "Evaluation: prompts (trials) per group")
      ->capture_default_str();
  add_threads_option(cmd, o.threads);
  add_json_option(cmd, o.json);
  cmd.add_option("--save-gates", o.save_gates,
                 "Write the trained gates as a gate file (niah --gates @FILE.json)");
  cmd.add_option("--save-arch", o.save_arch,
                 "Write the trained layer as an architecture file (niah --arch FILE.toml)");
}

// Output paths are checked before training, so that a typo does not cost the run.
void check_outputs(const TrainOptions& o) {
  check_json_path(o.json);
  check_json_path(o.save_gates);
  if (!o.save_arch.empty()) check_output_file(o.save_arch);
}

}  // namespace

void add_train_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<TrainOptions>();
  auto* cmd = app.add_subcommand(
      "train", "Train a tiny compressed-attention layer; read its gates and NIAH table");
  add_options(*cmd, *options);
  cmd->callback([options, &action] {
    auto spec = options->spec;
    if (options->init_lambda_given->count()) spec.init_lambda = options->init_lambda;
    spec.batches = training::parse_batches(options->batches);
    spec.validate();
    check_threads(options->threads);
    spec.check_work(Parallel{options->threads}.team());
    check_outputs(*options);
    action = [spec, options](std::ostream& out) { return run_train(spec, *options, out); };
  });
}

}  // namespace phasesim::cli
