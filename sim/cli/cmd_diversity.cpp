// phasesim diversity: the table of the 1/N diversification gain and blind phases (Theorem 3),
// and of joint training of several heads.
#include <ostream>

#include "cli/door.hpp"
#include "cli/theory_tables.hpp"
#include "phasesim/commands/theorems.hpp"

namespace phasesim::cli {
namespace {

// The blind phases of joint training against the multinomial law, one line per H.
void print_training(const theorems::TrainingStatistics& t, std::ostream& out) {
  out << "  H=" << t.heads << ": blind phases " << fixed(t.blind_mean, 3) << " +- "
      << fixed(t.blind_se, 3) << " (multinomial " << fixed(t.blind_predicted, 3) << "; at init "
      << fixed(t.blind_initial_mean, 3) << "), heads on their initial argmax's phase "
      << t.heads_kept << " of " << t.heads_total << '\n';
}

void print_diversity(const commands::Diversity& command,
                     const theorems::DiversityCommand::Result& result, double, std::ostream& out) {
  const auto& m = command.options().command.t3.model;
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

}  // namespace

void add_diversity_command(CLI::App& app, Action& action,
                           const commands::Environment& environment) {
  add_command<commands::Diversity>(app, action, environment, {print_diversity});
}

}  // namespace phasesim::cli
