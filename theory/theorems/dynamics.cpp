#include "phasesim/theorems/dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "costs.hpp"
#include "flow.hpp"
#include "phasesim/channel/channel.hpp"
#include "phasesim/channel/success_table.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::theorems {
namespace {

// The needle's entries for one content draw. Entry e holds the needle at slot slots[e],
// so its slot j pools the token at offset j - slots[e] from the needle, in [-(W-1), W-1];
// overlapping entries share those tokens' content noise.
struct ContentSample {
  std::vector<std::vector<double>> gates;  ///< per entry, softmax(b + tau xi)
  std::vector<double> u;                   ///< per entry, normalized weight of the needle
};

ContentSample draw_context(std::span<const double> logits, const std::vector<int>& slots,
                           double tau, const RandomStream& stream, std::uint32_t index) {
  // Odd samples are the antithetic partners (-xi) of the even ones: the noise of the
  // gradient to first order in tau cancels within each pair.
  const double sign = index % 2 == 0 ? 1.0 : -1.0;
  index /= 2;
  const auto window = static_cast<int>(logits.size());
  ContentSample sample;
  for (int s : slots) {
    std::vector<double> b(logits.begin(), logits.end());
    for (int j = 0; j < window; ++j) {
      const auto token = static_cast<std::uint32_t>(window - 1 + j - s);
      b[static_cast<std::size_t>(j)] += sign * tau * stream.normal(index, token);
    }
    const auto gate = gate_from_logits(b, "content");
    sample.u.push_back(std::min(1.0, normalized_weights(gate)[static_cast<std::size_t>(s)]));
    sample.gates.push_back(gate.weights);
  }
  return sample;
}

// P of a sample's needle entries: the objective's tables when it has them (table, looked up
// once per evaluation), the quadrature otherwise.
using SampleSuccess = std::function<channel::SuccessGradient(std::span<const double>)>;

SampleSuccess sample_success(const Objective& objective) {
  if (!objective.tables) {
    return [&](std::span<const double> u) {
      return channel::success_gradient(objective.beta, u, objective.entries);
    };
  }
  return objective.tables->phases(channel::EntryLaw::normalized, objective.beta, objective.entries);
}

// Adds the sample's success and its logit gradient (weighted) to `result`.
void add_sample(const SampleSuccess& success, const std::vector<int>& slots,
                const ContentSample& sample, double weight, ObjectiveValue& result,
                double& phase_total) {
  const auto p = success(sample.u);
  phase_total += p.probability;
  result.value += weight * p.probability;
  for (std::size_t e = 0; e < slots.size(); ++e) {
    const auto& g = sample.gates[e];
    std::vector<double> d_u(g.size(), 0.0);
    d_u[static_cast<std::size_t>(slots[e])] = weight * p.d_u[e];
    const auto d_b = softmax_backprop(g, normalized_backprop(g, d_u));
    for (std::size_t l = 0; l < d_b.size(); ++l) result.gradient[l] += d_b[l];
  }
}

// The step direction: dJ/db, or for the replicator dJ/dg - const = (dJ/db)/g.
std::vector<double> direction(const ObjectiveValue& at, std::span<const double> logits,
                              UpdateRule rule) {
  if (rule == UpdateRule::gradient) return at.gradient;
  const auto g = gate_from_logits({logits.begin(), logits.end()}, "logits").weights;
  std::vector<double> d(g.size());
  for (std::size_t s = 0; s < g.size(); ++s) d[s] = g[s] > 0 ? at.gradient[s] / g[s] : 0.0;
  return d;
}

// Condition (M): the heaviest slot has the largest f_s - f_bar = (dJ/db_s)/g_s.
bool heaviest_leads(const ObjectiveValue& at, std::span<const double> logits) {
  const auto g = gate_from_logits({logits.begin(), logits.end()}, "logits").weights;
  const auto top = static_cast<std::size_t>(summarize_gate(g).argmax);
  const double lead = at.gradient[top] / g[top];
  for (std::size_t s = 0; s < g.size(); ++s) {
    if (g[s] > 0 && at.gradient[s] / g[s] > lead + 1e-12 * std::abs(lead)) return false;
  }
  return true;
}

// Counts the objective evaluations of one run.
class Evaluator {
 public:
  Evaluator(const Objective& objective, const ContentNoise& noise)
      : objective_(objective), noise_(noise) {}
  ObjectiveValue operator()(std::span<const double> logits, std::uint32_t step) {
    ++count_;
    return content_objective(objective_, logits, noise_, step);
  }
  Objective& objective() { return objective_; }
  int count() const { return count_; }

 private:
  Objective objective_;
  const ContentNoise& noise_;
  int count_ = 0;
};

TrajectoryPoint point(int step, const ObjectiveValue& at, const std::vector<double>& logits) {
  return {step, at.value, gate_from_logits(logits, "logits").weights};
}

}  // namespace

UpdateRule parse_update_rule(std::string_view name) {
  if (name == "gradient") return UpdateRule::gradient;
  if (name == "replicator") return UpdateRule::replicator;
  throw InputError("invalid --update " + std::string(name) + " (must be gradient or replicator)");
}

std::string to_string(UpdateRule rule) {
  return rule == UpdateRule::replicator ? "replicator" : "gradient";
}

ObjectiveValue content_objective(const Objective& objective, std::span<const double> logits,
                                 const ContentNoise& noise, std::uint32_t step) {
  if (noise.tau == 0) return evaluate_logits(objective, logits);
  const auto& geometry = objective.geometry;
  const auto w = objective.weights();
  const RandomStream stream(noise.seed, step, 0, Stream::content_context);
  const auto success = sample_success(objective);
  ObjectiveValue result{0.0, {}, std::vector<double>(logits.size(), 0.0)};
  for (int phi = 0; phi < geometry.stride; ++phi) {
    const auto slots = geometry.slots_of_phase(phi);
    const double weight = w[static_cast<std::size_t>(phi)] / noise.samples;
    double phase_total = 0;
    for (int k = 0; k < noise.samples && !slots.empty(); ++k) {
      const auto index = static_cast<std::uint32_t>((k / 2 * geometry.stride + phi) * 2 + k % 2);
      const auto sample = draw_context(logits, slots, noise.tau, stream, index);
      add_sample(success, slots, sample, weight, result, phase_total);
    }
    result.per_phase.push_back(phase_total / noise.samples);
  }
  return result;
}

WorkEstimate dynamics_estimate(const Objective& objective, const DynamicsSettings& settings,
                               double runs, double steps) {
  // A step evaluates J about once (the flow's sub-steps are rare once it settles); with content
  // noise it draws `samples` contexts per phase, a gate for each entry holding the needle and a
  // table lookup (a quadrature where entries of different draws leave the table's domain):
  // about 3 us per sample and slot at W = 8 and 32. The tables, built once for all runs, and
  // each run's first steps: about 10 ms.
  const auto& geometry = objective.geometry;
  const double window = geometry.window;
  double per_step = detail::evaluation_seconds(geometry);
  // A run locks in on one slot: its phase, if of more than two slots, is the rule's narrow case.
  if (detail::most_slots(geometry) > 2) per_step += detail::kNarrowRulePhase;
  if (settings.content.tau > 0) {
    per_step = settings.content.samples * 3e-6 * window;
  }
  const double points = steps / settings.record_every + 2;  // a gate of W doubles each
  return {detail::table_seconds(geometry, 10e-3) + runs * (2e-3 + steps * per_step),
          runs * (points * (window + 4) * 8 + 1024)};
}

void validate_dynamics(const Objective& objective, const DynamicsSettings& settings) {
  objective.validate();
  require_at_least(settings.steps, 1, "--steps");
  require_positive(settings.lr, "--lr");
  require_positive(settings.max_logit_step, "--max-logit-step");
  require(settings.reweight_at < settings.steps,
          "invalid --reweight-at " + std::to_string(settings.reweight_at) +
              " (must be below --steps " + std::to_string(settings.steps) + ")");
  if (settings.reweight_at >= 0)
    normalized_phase_weights(settings.reweight, objective.geometry.stride);
  const auto& noise = settings.content;
  require_non_negative(noise.tau, "--content-noise");
  require(noise.tau == 0 || objective.model == RetentionModel::normalized,
          "invalid --content-noise " + format_number(noise.tau) +
              " (content noise needs --model normalized)");
  require_at_least(noise.samples, 1, "--content-samples");
  require_at_least(settings.record_every, 1, "--record-every");
}

DynamicsRun run_dynamics(Objective objective, std::vector<double> logits,
                         const DynamicsSettings& settings, const Parallel& parallel) {
  validate_dynamics(objective, settings);
  Evaluator evaluate(tabled(std::move(objective)), settings.content);
  detail::FlowStep flow{settings.lr, settings.max_logit_step, settings.content.tau == 0};
  auto direction_of = [&](const ObjectiveValue& at, const std::vector<double>& x) {
    return direction(at, x, settings.rule);
  };
  DynamicsRun run;
  run.init_gate = gate_from_logits(logits, "init").weights;
  run.initial = summarize_gate(run.init_gate);
  auto at = evaluate(logits, 0);
  run.trajectory.push_back(point(0, at, logits));
  const bool noisy = settings.content.tau > 0;
  bool fresh = true;  // `at` holds J at the current logits with this step's draws
  for (int step = 1; step <= settings.steps; ++step) {
    check_stop(parallel);
    const auto key = static_cast<std::uint32_t>(step);
    if (step - 1 == settings.reweight_at) {
      evaluate.objective().phase_weights = settings.reweight;
      run.at_reweight = summarize_gate(gate_from_logits(logits, "logits").weights);
      fresh = false;
    }
    if (!fresh || noisy) at = evaluate(logits, key);
    if (settings.reweight_at < 0 || step - 1 < settings.reweight_at) {
      run.order_condition = run.order_condition && heaviest_leads(at, logits);
    }
    detail::flow_step(
        logits, at, flow, [&](std::span<const double> x) { return evaluate(x, key); },
        direction_of);
    fresh = !noisy;  // with content noise `at` is stale after a step
    if (step % settings.record_every == 0 || step == settings.steps) {
      if (noisy) at = evaluate(logits, key);  // J here, with this step's draws
      run.trajectory.push_back(point(step, at, logits));
    }
  }
  run.final_gate = gate_from_logits(logits, "final").weights;
  run.final = summarize_gate(run.final_gate);
  run.final_objective = at.value;
  run.evaluations = evaluate.count();
  return run;
}

}  // namespace phasesim::theorems
