#include "cli/theory_options.hpp"

#include <charconv>
#include <cmath>
#include <ostream>

#include "cli/progress.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::cli {
namespace {

double parse_double(const std::string& text, const std::string& option, const std::string& whole) {
  double value = 0;
  const auto* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, value);
  require(result.ec == std::errc() && result.ptr == end && std::isfinite(value),
          "invalid " + option + " " + whole + " (use a:b:step or a comma list of numbers)");
  return value;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (auto end = text.find(separator); end != std::string::npos;
       start = end + 1, end = text.find(separator, start)) {
    parts.push_back(text.substr(start, end - start));
  }
  parts.push_back(text.substr(start));
  return parts;
}

}  // namespace

theorems::Objective ObjectiveOptions::objective() const {
  theorems::Objective o;
  o.geometry = {window, stride};
  o.beta = beta;
  o.entries = entries;
  o.model = theorems::parse_retention_model(model);
  o.phase_weights = weights;
  o.validate();
  if (!weights.empty()) o.phase_weights = theorems::normalized_phase_weights(weights, stride);
  return o;
}

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
                  "normalized (u = g/||g||, the physical model) or linear (A_lin(c), T1a)")
      ->capture_default_str();
  if (!weights.empty()) command.add_option("--weights", options.weights, weights)->delimiter(',');
}

void put_objective(Json& doc, const ObjectiveOptions& options, bool point) {
  doc["window"] = options.window;
  doc["stride"] = options.stride;
  if (point) doc["beta"] = options.beta;
  if (point) doc["entries"] = options.entries;
  doc["model"] = options.model;
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

void put_search(Json& doc, const theorems::OptimizeSettings& search) {
  doc["restarts"] = search.restarts;
  doc["seed"] = search.seed;
  doc["init_scale"] = search.init_scale;
  doc["max_iterations"] = search.max_iterations;
}

void check_optimize_work(const theorems::Objective& objective,
                         const theorems::OptimizeSettings& search, std::int64_t links,
                         std::int64_t chains) {
  const auto work = theorems::chained_optimize_work(objective, search, links, chains);
  check_work("--window " + std::to_string(objective.geometry.window) + " with " +
                 std::to_string(work.ascents) + " ascents",
             work.estimate, Parallel{}.team());
}

Parallel start_optimize(const std::string& command, const theorems::Objective& objective,
                        const theorems::OptimizeSettings& search, bool progress,
                        const std::ostream& out) {
  const auto work = theorems::chained_optimize_work(objective, search);
  return start_run(command, work.estimate, progress, static_cast<std::size_t>(work.ascents),
                   "ascents", out);
}

theorems::DynamicsSettings DynamicsOptions::settings() const {
  theorems::DynamicsSettings s;
  s.steps = steps;
  s.lr = lr;
  s.max_logit_step = max_logit_step;
  s.rule = theorems::parse_update_rule(update);
  s.content = {content_noise, 0, content_samples};  // the seed: each run's own
  return s;
}

std::vector<theorems::RunSpec> DynamicsOptions::runs(int window) const {
  return theorems::run_specs(init, inits, content_seeds, window);
}

WorkEstimate DynamicsOptions::estimate(const theorems::Objective& objective,
                                       int extra_steps) const {
  const double runs = static_cast<double>(inits) * static_cast<double>(content_seeds.size());
  return theorems::dynamics_estimate(objective, settings(), runs,
                                     static_cast<double>(steps) + extra_steps);
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

void put_dynamics(Json& doc, const DynamicsOptions& options) {
  doc["steps"] = options.steps;
  doc["lr"] = options.lr;
  doc["max_logit_step"] = options.max_logit_step;
  doc["update"] = options.update;
  doc["content_noise"] = options.content_noise;
  doc["content_seed"] = options.content_seeds;
  doc["content_samples"] = options.content_samples;
  doc["init"] = options.init;
  doc["inits"] = options.inits;
}

void validate_dynamics_options(const DynamicsOptions& options, const theorems::Objective& objective,
                               int extra_steps) {
  require(!options.content_seeds.empty(), "invalid --content-seed (give at least one seed)");
  theorems::validate_dynamics(objective, options.settings());
  require_at_least(options.inits, 1, "--inits");
  const auto seeds = options.content_seeds.size();
  check_work("--inits " + std::to_string(options.inits) +
                 (seeds > 1 ? " for each of " + std::to_string(seeds) + " content seeds" : "") +
                 ", " + std::to_string(options.steps + extra_steps) + " steps each",
             options.estimate(objective, extra_steps), Parallel{}.team());
  options.runs(objective.geometry.window);
}

void DiversityModelOptions::validate() const {
  model.validate();
  require(!heads.empty(), "invalid --heads (give at least one N)");
  for (int n : heads) {
    require_at_least(n, 1, "--heads");
    require(n <= 10000000, "invalid --heads " + std::to_string(n) + " (must be at most 10000000)");
  }
}

void DiversityModelOptions::put(Json& doc) const {
  doc["stride"] = model.stride;
  doc["heads"] = heads;
  doc["beta_out"] = model.beta_out;
  doc["success"] = model.success;
  doc["answers"] = model.loss.answers;
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

std::vector<double> parse_range(const std::string& text, const std::string& option) {
  const auto parts = split(text, ':');
  std::vector<double> values;
  if (parts.size() == 1) {
    for (const auto& item : split(text, ',')) values.push_back(parse_double(item, option, text));
    return values;
  }
  require(parts.size() == 3,
          "invalid " + option + " " + text + " (use a:b:step or a comma list of numbers)");
  const double a = parse_double(parts[0], option, text), b = parse_double(parts[1], option, text),
               step = parse_double(parts[2], option, text);
  require(step > 0 && a <= b,
          "invalid " + option + " " + text + " (a:b:step needs a <= b and step > 0)");
  // Counted in double: (b - a) / step may exceed any int (or be inf) before the check.
  const double count = std::floor((b - a) / step + 1e-9);
  require(count < 10000, "invalid " + option + " " + text + " (more than 10000 values)");
  for (int i = 0; i <= static_cast<int>(count); ++i) values.push_back(a + i * step);
  for (std::size_t i = 1; i < values.size(); ++i) {
    require(values[i] > values[i - 1],
            "invalid " + option + " " + text + " (step is below the precision of the values)");
  }
  return values;
}

}  // namespace phasesim::cli
