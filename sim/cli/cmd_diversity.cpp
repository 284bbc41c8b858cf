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
  theorems::DiversityCommand command;
  std::string json;
};

// The blind phases of joint training against the multinomial law, one line per H.
void print_training(const theorems::TrainingStatistics& t, std::ostream& out) {
  out << "  H=" << t.heads << ": blind phases " << fixed(t.blind_mean, 3) << " +- "
      << fixed(t.blind_se, 3) << " (multinomial " << fixed(t.blind_predicted, 3) << "; at init "
      << fixed(t.blind_initial_mean, 3) << "), heads on their initial argmax's phase "
      << t.heads_kept << " of " << t.heads_total << '\n';
}

void print_rows(const theorems::DiversityCommand& command,
                const theorems::DiversityCommand::Result& result, std::ostream& out) {
  const auto& m = command.t3.model;
  out << "diversification gain, S=" << m.stride << " beta_o=" << m.beta_out << " p=" << m.success
      << " M=" << m.loss.answers << " (exact over the multinomial head assignment)\n";
  Table table(
      {"N", "L_balanced", "E[L_random]", "gap", "N*gap", "C", "P(all covered)", "E[blind]"});
  for (const auto& r : result.rows) {
    table.add_row({std::to_string(r.heads), fixed(r.loss_balanced, 8), fixed(r.loss_random, 8),
                   fixed(r.gap, 10), fixed(r.gap_times_n, 6), fixed(r.constant_c, 6),
                   fixed(r.p_all_covered, 6), fixed(r.expected_blind, 4)});
  }
  table.print(out);
  out << "\n" << slope_line(theorems::log_log_slope(result.rows)) << '\n';
  if (result.trained.empty()) return;
  out << "\njoint training (each head its own gate, output loss on top):\n";
  for (const auto& statistics : result.trained) print_training(statistics, out);
}

int run_diversity(const DiversityOptions& options, std::ostream& out) {
  announce_long_run("diversity", options.command.training_estimate(), Parallel{}.team(), out);
  const auto result = options.command.run(Parallel{});
  if (wants_table(options.json)) print_rows(options.command, result, out);
  write_json(options.json, options.command.document(result));
  return kSuccess;
}

}  // namespace

void add_diversity_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<DiversityOptions>();
  auto& command = options->command;
  auto* cmd = app.add_subcommand("diversity",
                                 "The 1/N diversification gain and blind phases of N heads (T3)");
  add_diversity_model_options(*cmd, command.t3);
  cmd->add_option("--samples", command.samples,
                  "Also sample K head assignments (Monte Carlo check; 0: exact only)")
      ->capture_default_str();
  cmd->add_option("--seed", command.seed, "Seed of the sampled assignments")->capture_default_str();
  cmd->add_option("--train-heads", command.train_heads,
                  "Also train H1,H2,... heads jointly on the output loss (T3)")
      ->delimiter(',');
  cmd->add_option("--train-runs", command.train_runs, "Training runs per head count")
      ->capture_default_str();
  cmd->add_option("--train-steps", command.training.steps, "Training steps")->capture_default_str();
  cmd->add_option("--train-seed", command.training.seed,
                  "Run r, head h starts from random:TRAIN_SEED+1000r+h:SCALE")
      ->capture_default_str();
  cmd->add_option("--lr", command.training.lr, "Training learning rate (as in dynamics)")
      ->capture_default_str();
  cmd->add_option("--init-scale", command.training.init_scale, "SCALE of the head inits")
      ->capture_default_str();
  cmd->add_option("--window,-W", command.channel.window, "Window W of the heads' channel")
      ->capture_default_str();
  cmd->add_option("--beta", command.channel.beta, "beta of the heads' channel")
      ->capture_default_str();
  cmd->add_option("--entries,-N", command.channel.entries, "Entries N of the heads' channel")
      ->capture_default_str();
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    options->command.validate();
    action = [options](std::ostream& out) { return run_diversity(*options, out); };
  });
}

}  // namespace phasesim::cli
