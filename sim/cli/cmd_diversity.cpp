// phasesim diversity: the 1/N diversification gain and blind phases (Theorem 3), and
// joint training of several heads on the output loss.
#include <cmath>
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/theory_options.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/theorems/diversity.hpp"

namespace phasesim::cli {
namespace {

struct DiversityOptions {
  DiversityModelOptions t3{{4, 12.0, 0.9, {1000.0}}, {4, 8, 16, 32, 64, 128, 256, 512, 1024}};
  int samples = 0;
  std::uint64_t seed = 1;
  // Joint training (only with --train-heads):
  ObjectiveOptions channel;
  std::vector<int> train_heads;
  int train_runs = 12;
  theorems::TrainingSettings training;
  std::string json;
};

// The blind phases of joint training against the multinomial law, one line per H.
void print_training(const theorems::TrainingStatistics& t, std::ostream& out) {
  out << "  H=" << t.heads << ": blind phases " << fixed(t.blind_mean, 3) << " +- "
      << fixed(t.blind_se, 3) << " (multinomial " << fixed(t.blind_predicted, 3) << "; at init "
      << fixed(t.blind_initial_mean, 3) << "), heads on their initial argmax's phase "
      << t.heads_kept << " of " << t.heads_total << '\n';
}

int run_diversity(const DiversityOptions& options, std::ostream& out) {
  const auto& m = options.t3.model;
  auto doc = new_document("diversity");
  options.t3.put(doc);
  doc["samples"] = options.samples;
  doc["seed"] = options.seed;
  std::vector<theorems::DiversityRow> rows;
  Json rows_json = Json::array();
  Table table(
      {"N", "L_balanced", "E[L_random]", "gap", "N*gap", "C", "P(all covered)", "E[blind]"});
  for (int n : options.t3.heads) {
    rows.push_back(theorems::diversity_row(m, n));
    const auto& r = rows.back();
    rows_json.push_back(theorems::diversity_row_json(r));
    if (options.samples > 0) {
      rows_json.back().update(theorems::sampled_diversity_json(
          theorems::sample_diversity(m, n, options.samples, options.seed, Parallel{})));
    }
    table.add_row({std::to_string(n), fixed(r.loss_balanced, 8), fixed(r.loss_random, 8),
                   fixed(r.gap, 10), fixed(r.gap_times_n, 6), fixed(r.constant_c, 6),
                   fixed(r.p_all_covered, 6), fixed(r.expected_blind, 4)});
  }
  doc["rows"] = rows_json;
  const double slope = theorems::log_log_slope(rows);  // NaN (one N, or S = 1: no gap): null
  doc["slope"] = slope;
  doc["slope_fit"] = "least squares over all N";
  doc["constant_c"] = m.constant();
  const bool table_out = wants_table(options.json);
  if (table_out) {
    out << "diversification gain, S=" << m.stride << " beta_o=" << m.beta_out << " p=" << m.success
        << " M=" << m.loss.answers << " (exact over the multinomial head assignment)\n";
    table.print(out);
    out << "\n" << slope_line(slope) << '\n';
  }
  if (!options.train_heads.empty()) {
    put_objective(doc, options.channel);
    doc["train_heads"] = options.train_heads;
    doc["train_runs"] = options.train_runs;
    doc["train_steps"] = options.training.steps;
    doc["lr"] = options.training.lr;
    doc["init_scale"] = options.training.init_scale;
    doc["train_seed"] = options.training.seed;
    announce_long_run("diversity",
                      theorems::training_estimate(options.channel.objective(), options.training,
                                                  options.train_heads, options.train_runs),
                      Parallel{}.team(), out);
    if (table_out) out << "\njoint training (each head its own gate, output loss on top):\n";
    const auto channel = options.channel.objective();
    Json training = Json::array();
    for (int h : options.train_heads) {
      auto settings = options.training;
      settings.heads = h;
      const auto statistics =
          theorems::training_statistics(channel, m, settings, options.train_runs, Parallel{});
      if (table_out) print_training(statistics, out);
      training.push_back(theorems::training_json(statistics));
    }
    doc["training"] = training;
  }
  write_json(options.json, doc);
  return kSuccess;
}

void validate(DiversityOptions& options) {
  options.t3.validate();
  require_at_least(options.samples, 0, "--samples");
  if (options.train_heads.empty()) return;
  options.channel.stride = options.t3.model.stride;
  options.channel.objective();
  theorems::validate_training(options.channel.objective(), options.training, options.train_heads,
                              options.train_runs);
}

}  // namespace

void add_diversity_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<DiversityOptions>();
  auto* cmd = app.add_subcommand("diversity",
                                 "The 1/N diversification gain and blind phases of N heads (T3)");
  add_diversity_model_options(*cmd, options->t3);
  cmd->add_option("--samples", options->samples,
                  "Also sample K head assignments (Monte Carlo check; 0: exact only)")
      ->capture_default_str();
  cmd->add_option("--seed", options->seed, "Seed of the sampled assignments")
      ->capture_default_str();
  cmd->add_option("--train-heads", options->train_heads,
                  "Also train H1,H2,... heads jointly on the output loss (T3)")
      ->delimiter(',');
  cmd->add_option("--train-runs", options->train_runs, "Training runs per head count")
      ->capture_default_str();
  cmd->add_option("--train-steps", options->training.steps, "Training steps")
      ->capture_default_str();
  cmd->add_option("--train-seed", options->training.seed,
                  "Run r, head h starts from random:TRAIN_SEED+1000r+h:SCALE")
      ->capture_default_str();
  cmd->add_option("--lr", options->training.lr, "Training learning rate (as in dynamics)")
      ->capture_default_str();
  cmd->add_option("--init-scale", options->training.init_scale, "SCALE of the head inits")
      ->capture_default_str();
  cmd->add_option("--window,-W", options->channel.window, "Window W of the heads' channel")
      ->capture_default_str();
  cmd->add_option("--beta", options->channel.beta, "beta of the heads' channel")
      ->capture_default_str();
  cmd->add_option("--entries,-N", options->channel.entries, "Entries N of the heads' channel")
      ->capture_default_str();
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    validate(*options);
    action = [options](std::ostream& out) { return run_diversity(*options, out); };
  });
}

}  // namespace phasesim::cli
