#include "cli/theory_options.hpp"

#include <cmath>
#include <ostream>

#include "cli/progress.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::cli {
void add_objective_options(CLI::App& command, ObjectiveOptions& options, bool point,
                           const std::string& weights) {
  command.add_option("--window,-W", options.window, "Window W (tokens per entry)")
      ->capture_default_str();
  command.add_option("--stride,-S", options.stride, "Stride S (tokens between entries)")
      ->capture_default_str();
  if (point) {
    command.add_option("--beta", options.beta, "Signal strength beta >= 0")->capture_default_str();
    command.add_option("--entries,-N", options.entries, "Entries N in all (the needle's included)")
        ->capture_default_str();
  }
  command
      .add_option("--model", options.model,
                  "normalized (u = g/||g||, the physical model), linear (A_lin(c), T1a) or "
                  "channels (the weights are shares of one-hot channel groups)")
      ->capture_default_str();
  if (!weights.empty()) command.add_option("--weights", options.weights, weights)->delimiter(',');
}

void add_search_options(CLI::App& command, theorems::OptimizeSettings& search,
                        const std::string& restarts_help) {
  command.add_option("--restarts", search.restarts, restarts_help)->capture_default_str();
  command.add_option("--seed", search.seed, "SEED of the random starts random:SEED+r:SCALE")
      ->capture_default_str();
  command.add_option("--init-scale", search.init_scale, "SCALE of the random starts")
      ->capture_default_str();
  command.add_option("--max-iterations", search.max_iterations, "L-BFGS iterations per start")
      ->capture_default_str();
}

void add_dynamics_options(CLI::App& command, DynamicsOptions& options,
                          const std::string& inits_help) {
  command.add_option("--steps", options.steps, "Ascent steps")->capture_default_str();
  command.add_option("--lr", options.lr, "Learning rate (step size per unit gradient)")
      ->capture_default_str();
  command
      .add_option("--max-logit-step", options.max_logit_step,
                  "Split a step that would move a logit by more than this (follow the flow)")
      ->capture_default_str();
  command
      .add_option("--update", options.update,
                  "gradient (b += lr dJ/db) or replicator (b += lr dJ/dg, mirror ascent)")
      ->capture_default_str();
  command
      .add_option("--content-noise", options.content_noise,
                  "tau: gate logits b + tau xi per token in the needle's entries (0: none)")
      ->capture_default_str();
  command
      .add_option("--content-seed", options.content_seeds,
                  "Seed(s) of the content draws, comma-separated: one run per seed")
      ->delimiter(',')
      ->capture_default_str();
  command
      .add_option("--content-samples", options.content_samples,
                  "Needle contexts per phase and step (antithetic pairs)")
      ->capture_default_str();
  command.add_option("--init", options.init, std::string("Initial gate: ") + kGateFormsHelp)
      ->capture_default_str();
  command.add_option("--inits", options.inits, inits_help)->capture_default_str();
}

void add_diversity_model_options(CLI::App& command, DiversityModelOptions& options) {
  command.add_option("--stride,-S", options.model.stride, "Stride S (phases)")
      ->capture_default_str();
  command.add_option("--heads", options.heads, "Head counts N1,N2,...")
      ->delimiter(',')
      ->capture_default_str();
  command.add_option("--beta-out", options.model.beta_out, "Output signal scale beta_o")
      ->capture_default_str();
  command.add_option("--success", options.model.success, "p, per-head success on a covered phase")
      ->capture_default_str();
  command.add_option("--answers", options.model.loss.answers, "M competing answers in l(z)")
      ->capture_default_str();
}

void print_verdict(const theorems::Verdict& v, std::ostream& out) {
  out << v.title << "\n"
      << "prediction: " << v.prediction << "\n"
      << "regime:     " << (v.inside ? "inside" : "outside") << " (" << v.regime << ")\n"
      << "check:      " << v.check << "\n"
      << "verdict:    "
      << (v.agree    ? "agree"
          : v.inside ? "DISAGREE"
                     : "DISAGREE, outside the regime (expected)")
      << '\n';
}

std::string slope_line(double slope) {
  return "log-log slope of the gap, least squares over all N: " +
         (std::isfinite(slope) ? format_fixed(slope, 4) : "n/a (needs two N with a gap above 0)") +
         " (theorem diversity checks the slope over the last two N)";
}

}  // namespace phasesim::cli
