#include "phasesim/theorems/diversity.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "costs.hpp"
#include "flow.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::theorems {
namespace {

// s = M e^-z / (1 + M e^-z), the weight of the competing answers.
double competitor_share(double answers, double z) {
  return 1 / (1 + portable::exp(z - portable::log(answers)));
}

// log of the Binomial(N, pi) probability of k.
double log_binomial_pmf(int n, int k, double pi) {
  const double log_choose = std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
  const double log_hit = k > 0 ? k * portable::log(pi) : 0.0;
  const double log_miss = n - k > 0 ? (n - k) * portable::log1p(-pi) : 0.0;
  return log_choose + log_hit + log_miss;
}

// E[L] - l(mu) over the multinomial assignment: every phase count is Binomial(N, 1/S), so
// E[L] = E[l(beta_o p X / N)]; subtracting l(mu) term by term keeps the small gap exact.
double excess_random_loss(const DiversityModel& model, int heads, double mu,
                          const Parallel& parallel) {
  const double pi = 1.0 / model.stride;
  if (model.stride == 1) return 0.0;
  const double a = model.beta_out * model.success;
  const double l_mu = model.loss.value(mu);
  double total = 0;
  for (int k = 0; k <= heads; ++k) {
    if (k % 65536 == 0) check_stop(parallel);
    const double z = a * k / heads;
    total += portable::exp(log_binomial_pmf(heads, k, pi)) * (model.loss.value(z) - l_mu);
  }
  return total;
}

// The counts of the most even split: r = N mod S phases get q + 1 heads, the rest q.
std::vector<int> balanced_counts(int stride, int heads) {
  std::vector<int> counts(static_cast<std::size_t>(stride), heads / stride);
  for (int phi = 0; phi < heads % stride; ++phi) ++counts[static_cast<std::size_t>(phi)];
  return counts;
}

// N gap = C + D_N / N + O(1/N^2): the third and fourth moments of X/N - 1/S and the
// O(1/N^2) excess of the balanced split when S does not divide N (THEORY.md, T3).
double second_order_term(const DiversityModel& model, int heads) {
  const double pi = 1.0 / model.stride, a = model.beta_out * model.success, mu = a * pi;
  const auto& l = model.loss;
  const double var = pi * (1 - pi);
  const int r = heads % model.stride;
  const double uneven = 0.5 * l.derivative(mu, 2) * a * a * r * (model.stride - r) /
                        (double(model.stride) * model.stride);
  return l.derivative(mu, 3) * a * a * a * var * (1 - 2 * pi) / 6 +
         l.derivative(mu, 4) * a * a * a * a * var * var / 8 - uneven;
}

std::vector<double> initial_head_logits(const TrainingSettings& settings, int head, int window) {
  const auto seed = settings.seed + static_cast<std::uint64_t>(head);
  return initial_logits("random:" + std::to_string(seed) + ":" + format_number(settings.init_scale),
                        window);
}

}  // namespace

double OutputLoss::value(double z) const { return portable::log1p(answers * portable::exp(-z)); }

double OutputLoss::derivative(double z, int order) const {
  const double s = competitor_share(answers, z);
  const double v = s * (1 - s);
  switch (order) {
    case 1:
      return -s;
    case 2:
      return v;
    case 3:
      return -v * (1 - 2 * s);
    default:
      return v * (1 - 6 * s + 6 * s * s);
  }
}

void DiversityModel::validate() const {
  require_at_least(stride, 1, "--stride");
  require_non_negative(beta_out, "--beta-out");
  require(success >= 0 && success <= 1,
          "invalid --success " + format_number(success) + " (must be in [0, 1])");
  require_positive(loss.answers, "--answers");
}

double DiversityModel::loss_of(const std::vector<int>& counts) const {
  const int heads = std::accumulate(counts.begin(), counts.end(), 0);
  double total = 0;
  for (int n : counts) total += loss.value(beta_out * success * n / heads);
  return total / static_cast<double>(counts.size());
}

double DiversityModel::constant() const {
  const double a = beta_out * success, s = stride;
  return 0.5 * a * a * loss.derivative(a / s, 2) * (s - 1) / (s * s);
}

std::vector<double> blind_distribution(int stride, int heads, const Parallel& parallel) {
  // covered[c]: probability that exactly c phases have a head so far.
  std::vector<double> covered(static_cast<std::size_t>(stride) + 1, 0.0);
  covered[0] = 1;
  const double s = stride;
  for (int h = 0; h < heads; ++h) {
    if (h % 4096 == 0) check_stop(parallel);
    for (int c = std::min(h + 1, stride); c >= 1; --c) {
      const auto i = static_cast<std::size_t>(c);
      covered[i] = covered[i] * c / s + covered[i - 1] * (s - c + 1) / s;
    }
    covered[0] = 0;
  }
  std::reverse(covered.begin(), covered.end());  // index j = S - c blind phases
  return covered;
}

double p_all_covered_inclusion_exclusion(int stride, int heads) {
  double total = 0, choose = 1;
  for (int k = 0; k <= stride; ++k) {
    total += (k % 2 ? -1 : 1) * choose * portable::pow(1 - double(k) / stride, heads);
    choose = choose * (stride - k) / (k + 1);
  }
  return total;
}

std::string heads_list(const std::vector<int>& heads) {
  std::string text;
  for (int n : heads) text += (text.empty() ? "" : ",") + std::to_string(n);
  return text;
}

WorkEstimate diversity_estimate(const DiversityModel& model, const std::vector<int>& heads,
                                double samples) {
  // Measured on a loaded 2-core machine: a row takes about 0.2 us per head and phase (the
  // occupancy recursion; 13 s for N = 10^6, S = 64), a sampled assignment 50 ns per head
  // and 32 bytes (3.3 s and 31 MB for 10^6 samples of N = 64).
  const double phases = model.stride;
  WorkEstimate total;
  for (const double n : heads) {
    total.seconds += 2e-7 * n * phases + 5e-8 * samples * (n + phases);
    total.bytes = std::max(total.bytes, 48 * (phases + 1) + 48 * samples);
  }
  return total;
}

DiversityRow diversity_row(const DiversityModel& model, int heads, const Parallel& parallel) {
  model.validate();
  require(heads >= 1, "invalid --heads " + std::to_string(heads) + " (each must be at least 1)");
  // The exact sums take O(N S) work: beyond 1e7 heads the expansion C/N is exact anyway.
  require(heads <= 10000000,
          "invalid --heads " + std::to_string(heads) + " (each must be at most 10000000)");
  DiversityRow row;
  row.heads = heads;
  const double mu = model.beta_out * model.success / model.stride;
  const double l_mu = model.loss.value(mu);
  row.loss_balanced = model.loss_of(balanced_counts(model.stride, heads));
  const double excess = excess_random_loss(model, heads, mu, parallel);
  row.loss_random = l_mu + excess;
  row.gap = excess - (row.loss_balanced - l_mu);
  row.gap_times_n = row.gap * heads;
  row.constant_c = model.constant();
  row.gap_second_order = row.constant_c / heads + second_order_term(model, heads) / heads / heads;
  row.blind_distribution = blind_distribution(model.stride, heads, parallel);
  row.p_all_covered = row.blind_distribution[0];
  row.expected_blind = model.stride * portable::pow(1 - 1.0 / model.stride, heads);
  return row;
}

Json diversity_row_json(const DiversityRow& row) {
  return {{"heads", row.heads},
          {"loss_balanced", row.loss_balanced},
          {"loss_random", row.loss_random},
          {"gap", row.gap},
          {"gap_times_n", row.gap_times_n},
          {"constant_c", row.constant_c},
          {"gap_second_order", row.gap_second_order},
          {"p_all_covered", row.p_all_covered},
          {"p_some_blind", 1 - row.p_all_covered},
          {"expected_blind", row.expected_blind},
          {"blind_distribution", row.blind_distribution}};
}

double log_log_slope(const std::vector<DiversityRow>& rows) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& row : rows) {
    if (!(row.gap > 0)) continue;
    const double x = portable::log(row.heads), y = portable::log(row.gap);
    n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  if (n < 2) return std::nan("");
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

SampledDiversity sample_diversity(const DiversityModel& model, int heads, int samples,
                                  std::uint64_t seed, const Parallel& parallel) {
  struct Sample {
    double loss, blind;
  };
  const auto drawn = parallel_map(parallel, samples, [&](std::int64_t t) {
    const RandomStream stream(seed, static_cast<std::uint32_t>(t), 0, Stream::head_assignment);
    std::vector<int> counts(static_cast<std::size_t>(model.stride), 0);
    for (int h = 0; h < heads; ++h) {
      const double u = stream.uniform_pair(static_cast<std::uint32_t>(h), 0).x;
      ++counts[std::min(static_cast<std::size_t>(u * model.stride), counts.size() - 1)];
    }
    return Sample{model.loss_of(counts),
                  static_cast<double>(std::count(counts.begin(), counts.end(), 0))};
  });
  std::vector<double> loss, blind;
  for (const auto& sample : drawn) {
    loss.push_back(sample.loss);
    blind.push_back(sample.blind);
  }
  auto mean_se = [&](const std::vector<double>& x) {
    double m = 0, v = 0;
    for (double a : x) m += a;
    m /= samples;
    for (double a : x) v += (a - m) * (a - m);
    return std::pair{m, samples > 1 ? std::sqrt(v / (samples - 1) / samples) : 0.0};
  };
  SampledDiversity result;
  std::tie(result.loss_mean, result.loss_se) = mean_se(loss);
  std::tie(result.blind_mean, result.blind_se) = mean_se(blind);
  return result;
}

Json sampled_diversity_json(const SampledDiversity& sampled) {
  return {{"sampled_loss", sampled.loss_mean},
          {"sampled_loss_se", sampled.loss_se},
          {"sampled_blind", sampled.blind_mean},
          {"sampled_blind_se", sampled.blind_se}};
}

TrainingRun train_heads(const Objective& objective, const DiversityModel& model,
                        const TrainingSettings& settings, const Parallel& parallel) {
  const auto channel = tabled(objective);
  const int H = settings.heads, S = channel.geometry.stride;
  const auto W = static_cast<std::size_t>(channel.geometry.window);
  std::vector<double> x;  // the logits of all heads, head after head
  for (int h = 0; h < H; ++h) {
    const auto b = initial_head_logits(settings, h, channel.geometry.window);
    x.insert(x.end(), b.begin(), b.end());
  }
  auto gate_of = [&](const std::vector<double>& all, int h) {
    const auto first = all.begin() + static_cast<std::ptrdiff_t>(W) * h;
    return gate_from_logits({first, first + static_cast<std::ptrdiff_t>(W)}, "head").weights;
  };
  // -L and the ascent direction -(H/beta_o) dL/db^h for every head.
  auto evaluate = [&](std::span<const double> all) {
    const std::vector<double> logits(all.begin(), all.end());
    const auto phases = parallel_map(parallel, H, [&](std::int64_t h) {
      return phase_gradients(channel, gate_of(logits, static_cast<int>(h)));
    });
    std::vector<double> z(static_cast<std::size_t>(S), 0.0);
    for (const auto& p : phases) {
      for (std::size_t phi = 0; phi < z.size(); ++phi)
        z[phi] += model.beta_out * p.success[phi] / H;
    }
    ObjectiveValue at;
    for (double zphi : z) at.value -= model.loss.value(zphi) / S;
    std::vector<double> weight(z.size());
    for (std::size_t phi = 0; phi < z.size(); ++phi)
      weight[phi] = -model.loss.derivative(z[phi], 1) / S;
    for (int h = 0; h < H; ++h) {
      const auto d_g = phases[static_cast<std::size_t>(h)].weighted_gradient(weight);
      const auto d_b = softmax_backprop(gate_of(logits, h), d_g);
      at.gradient.insert(at.gradient.end(), d_b.begin(), d_b.end());
    }
    return at;
  };

  TrainingRun run;
  std::vector<double> init_x = x;
  auto at = evaluate(x);
  run.initial_loss = -at.value;
  detail::FlowStep flow{settings.lr, settings.max_logit_step, true};
  for (int step = 0; step < settings.steps; ++step) {
    detail::flow_step(
        x, at, flow, evaluate,
        [](const ObjectiveValue& v, const std::vector<double>&) { return v.gradient; });
  }
  run.final_loss = -at.value;
  run.coverage.assign(static_cast<std::size_t>(S), 0);
  std::vector<int> initial(static_cast<std::size_t>(S), 0);
  for (int h = 0; h < H; ++h) {
    TrainedHead head;
    head.init_slot = summarize_gate(gate_of(init_x, h)).argmax;
    const auto final = summarize_gate(gate_of(x, h));
    head.final_slot = final.argmax;
    head.final_max_weight = final.max_weight;
    head.init_phase = channel.geometry.phase_of_slot(head.init_slot);
    head.final_phase = channel.geometry.phase_of_slot(head.final_slot);
    ++run.coverage[static_cast<std::size_t>(head.final_phase)];
    ++initial[static_cast<std::size_t>(head.init_phase)];
    run.kept += head.init_phase == head.final_phase ? 1 : 0;
    run.heads.push_back(head);
  }
  run.blind = static_cast<int>(std::count(run.coverage.begin(), run.coverage.end(), 0));
  run.initial_blind = static_cast<int>(std::count(initial.begin(), initial.end(), 0));
  return run;
}

WorkEstimate training_estimate(const Objective& channel, const TrainingSettings& settings,
                               const std::vector<int>& heads, double runs) {
  // Every step evaluates each head's phases from the success tables (built once), and the
  // output loss and the logit gradients: about 3.5 us + 0.1 us x W per head and step.
  const double window = channel.geometry.window;
  const double all = std::accumulate(heads.begin(), heads.end(), 0.0);
  const double per_head_step = 3.5e-6 + detail::evaluation_seconds(channel.geometry);
  return {
      detail::table_seconds(channel.geometry, 15e-3) + runs * all * settings.steps * per_head_step,
      runs * all * (window * 32 + 256)};
}

void validate_training(const Objective& channel, const TrainingSettings& settings,
                       const std::vector<int>& heads, int runs) {
  for (int h : heads) require_at_least(h, 1, "--train-heads");
  require_at_least(runs, 1, "--train-runs");
  require_at_least(settings.steps, 1, "--train-steps");
  require_positive(settings.lr, "--lr");
  require_non_negative(settings.init_scale, "--init-scale");
  check_work("--train-runs " + std::to_string(runs) + " of --train-steps " +
                 std::to_string(settings.steps),
             training_estimate(channel, settings, heads, runs), Parallel{}.team());
}

TrainingStatistics training_statistics(const Objective& channel, const DiversityModel& model,
                                       const TrainingSettings& settings, int runs,
                                       const Parallel& parallel) {
  require_at_least(runs, 1, "--train-runs");
  const int S = channel.geometry.stride;
  TrainingStatistics t;
  t.heads = settings.heads;
  t.blind_distribution_observed.assign(static_cast<std::size_t>(S) + 1, 0.0);
  double blind_sum = 0, blind_sq = 0, initial_sum = 0;
  const auto shared = tabled(channel);  // one set of success tables for every run
  for (int r = 0; r < runs; ++r) {
    auto run_settings = settings;
    run_settings.seed = settings.seed + 1000 * static_cast<std::uint64_t>(r);
    const auto run = train_heads(shared, model, run_settings, parallel);
    t.blind_distribution_observed[static_cast<std::size_t>(run.blind)] += 1.0 / runs;
    blind_sum += run.blind, blind_sq += run.blind * run.blind;
    initial_sum += run.initial_blind;
    t.heads_kept += run.kept;
    t.runs.push_back({run_settings.seed, run});
  }
  const double n = runs;
  t.blind_mean = blind_sum / n;
  t.blind_se = n > 1 ? std::sqrt((blind_sq - n * t.blind_mean * t.blind_mean) / (n - 1) / n) : 0.0;
  t.blind_predicted = S * portable::pow(1 - 1.0 / S, settings.heads);
  t.blind_initial_mean = initial_sum / n;
  t.blind_distribution_predicted = blind_distribution(S, settings.heads);
  t.heads_total = settings.heads * runs;
  return t;
}

Json training_json(const TrainingStatistics& statistics) {
  Json runs = Json::array();
  for (const auto& [seed, run] : statistics.runs) {
    runs.push_back({{"seed", seed},
                    {"coverage", run.coverage},
                    {"blind", run.blind},
                    {"initial_blind", run.initial_blind},
                    {"kept", run.kept},
                    {"initial_loss", run.initial_loss},
                    {"final_loss", run.final_loss}});
  }
  return {{"heads", statistics.heads},
          {"runs", statistics.runs.size()},
          {"blind_mean", statistics.blind_mean},
          {"blind_se", statistics.blind_se},
          {"blind_predicted", statistics.blind_predicted},
          {"blind_initial_mean", statistics.blind_initial_mean},
          {"blind_distribution_observed", statistics.blind_distribution_observed},
          {"blind_distribution_predicted", statistics.blind_distribution_predicted},
          {"heads_kept", statistics.heads_kept},
          {"heads_total", statistics.heads_total},
          {"per_run", runs}};
}

}  // namespace phasesim::theorems
