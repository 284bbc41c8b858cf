#include "phasesim/theorems/objective.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "phasesim/channel/channel.hpp"
#include "phasesim/channel/success_table.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::theorems {
namespace {

// P and dP/dx of one phase's coordinates under a law: from the objective's success tables when
// it has them, else from the quadrature, each distinct x once per evaluation (a one-hot gate
// asks for two: its own phase's and that of every other phase), or once per memo. The tables
// hold the argmax channel; under selection (top_k > 1, the top-k channel) every phase is
// integrated.
class PhaseSuccess {
 public:
  PhaseSuccess(const Objective& objective, channel::EntryLaw law, SuccessMemo* memo)
      : objective_(objective), law_(law), computed_(memo ? memo->computed : own_.computed) {
    if (objective.tables && objective.top_k == 1)
      tabled_.emplace(objective.tables->phases(law, objective.beta, objective.entries));
  }

  // P at x, and dP/dx_s into slope (x.size() of them); a table lookup allocates nothing.
  double operator()(std::span<const double> x, std::span<double> slope) {
    if (tabled_) return (*tabled_)(x, slope);
    const auto& value = quadrature(x);
    std::copy(value.d_u.begin(), value.d_u.end(), slope.begin());
    return value.probability;
  }

  // Phases of one coordinate each, all at once (x[i] the i-th's), where the tables serve them
  // all; false otherwise (ask operator() one at a time).
  bool each(std::span<const double> x, std::span<double> probability, std::span<double> slope) {
    return tabled_ && tabled_->each(x, probability, slope);
  }

 private:
  const channel::SuccessGradient& quadrature(std::span<const double> x) {
    for (const auto& [at, value] : computed_) {
      if (std::equal(at.begin(), at.end(), x.begin(), x.end())) return value;
    }
    const auto& o = objective_;
    computed_.emplace_back(std::vector<double>(x.begin(), x.end()),
                           channel::law_success_gradient(law_, o.beta, o.entries, x, o.top_k));
    return computed_.back().second;
  }

  const Objective& objective_;
  channel::EntryLaw law_;
  std::optional<channel::SuccessTables::Phases> tabled_;
  SuccessMemo own_;
  std::vector<std::pair<std::vector<double>, channel::SuccessGradient>>& computed_;
};

// The slots of every phase in increasing order (Geometry::slots_of_phase of each), in one pass
// and flat (phase phi's are slots[start[phi]] up to slots[start[phi + 1]]): an evaluation at
// W = S = 128 is about a microsecond a phase in the page, where an allocation a phase counted.
struct PhaseSlots {
  std::vector<int> slots;
  std::vector<std::size_t> start;
  std::size_t most = 0;  ///< the largest multiplicity

  std::span<const int> of(std::size_t phi) const {
    return std::span(slots).subspan(start[phi], start[phi + 1] - start[phi]);
  }
};

// From the phase of each slot (PhaseGradients::phase), S phases.
PhaseSlots slots_by_phase(std::span<const int> phase, int stride_phases) {
  const auto stride = static_cast<std::size_t>(stride_phases);
  PhaseSlots result{std::vector<int>(phase.size()), std::vector<std::size_t>(stride + 1, 0)};
  for (int phi : phase) ++result.start[static_cast<std::size_t>(phi) + 1];
  for (std::size_t phi = 0; phi < stride; ++phi) {
    result.most = std::max(result.most, result.start[phi + 1]);
    result.start[phi + 1] += result.start[phi];
  }
  auto next = result.start;
  for (std::size_t s = 0; s < phase.size(); ++s)
    result.slots[next[static_cast<std::size_t>(phase[s])]++] = static_cast<int>(s);
  return result;
}

PhaseGradients empty_phases(const Geometry& geometry) {
  PhaseGradients result;
  result.phase.reserve(static_cast<std::size_t>(geometry.window));
  for (int s = 0; s < geometry.window; ++s) result.phase.push_back(geometry.phase_of_slot(s));
  result.slope.assign(static_cast<std::size_t>(geometry.window), 0.0);
  result.success.reserve(static_cast<std::size_t>(geometry.stride));
  return result;
}

// Whether phase phi's P is asked for: every phase's when `needed` (the phase weights of an
// evaluation that reads only J) is empty, else those of weight above 0.
bool asked(std::span<const double> needed, std::size_t phi) {
  return needed.empty() || needed[phi] != 0;
}

// Two coordinates alike to the bit: NaN never; 0 and -0 told apart.
bool same_bits(double a, double b) { return a == b && std::signbit(a) == std::signbit(b); }

// each_phase where every phase asked for has one slot (W <= S): the coordinates to compute
// gathered first, each phase alike to the one computed before it reading that one's, as
// each_phase does, and the lookups made together (SuccessTable::lookup_each, the same bits as
// one at a time). False, with `result` untouched, where a phase has no slot or the tables do not
// serve every coordinate.
template <typename Coordinate>
bool one_slot_phases(const PhaseSlots& by_phase, PhaseSuccess& success, Coordinate coordinate,
                     std::span<const double> needed, PhaseGradients& result) {
  constexpr auto kNone = static_cast<std::size_t>(-1);
  const std::size_t phases = by_phase.start.size() - 1;
  std::vector<double> x;
  std::vector<std::size_t> computed(phases, kNone);  // each asked phase's entry of x
  x.reserve(phases);
  for (std::size_t phi = 0; phi < phases; ++phi) {
    if (!asked(needed, phi)) continue;
    const auto slots = by_phase.of(phi);
    if (slots.size() != 1) return false;
    const double at = coordinate(slots[0]);
    if (x.empty() || !same_bits(at, x.back())) x.push_back(at);
    computed[phi] = x.size() - 1;
  }
  std::vector<double> p(x.size()), slope(x.size());
  if (!success.each(x, p, slope)) return false;
  for (std::size_t phi = 0; phi < phases; ++phi) {
    if (computed[phi] == kNone) {
      result.success.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    result.success.push_back(p[computed[phi]]);
    result.slope[static_cast<std::size_t>(by_phase.of(phi)[0])] = slope[computed[phi]];
  }
  return true;
}

// Every phase's P and slopes from its slots' coordinates coordinate(s), into `result`; a phase
// not asked for gets P = NaN and slopes 0. A phase whose coordinates are, to the bit, those of
// the phase computed before it takes that one's P and slopes: the same function of the same
// numbers. Equal splits keep their slots equal to the bit all along their ascents (equal
// coordinates get equal gradients), so at W = S = 128 such an evaluation has two distinct
// phases, not 128.
template <typename Coordinate>
void each_phase(const Geometry& geometry, PhaseSuccess& success, Coordinate coordinate,
                std::span<const double> needed, PhaseGradients& result) {
  const auto by_phase = slots_by_phase(result.phase, geometry.stride);
  if (by_phase.most == 1 && one_slot_phases(by_phase, success, coordinate, needed, result)) return;
  std::vector<double> x(by_phase.most), before(by_phase.most), slope(by_phase.most);
  std::size_t size_before = 0;  // coordinates of the phase computed last (0: none yet)
  double p_before = 0;
  for (std::size_t phi = 0; phi + 1 < by_phase.start.size(); ++phi) {
    const auto slots = by_phase.of(phi);
    if (!asked(needed, phi)) {
      result.success.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    const std::size_t m = slots.size();
    for (std::size_t i = 0; i < m; ++i) x[i] = coordinate(slots[i]);
    if (m == 0 || m != size_before ||
        !std::equal(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(m), before.begin(),
                    same_bits)) {
      p_before = success({x.data(), m}, {slope.data(), m});
      std::swap(x, before);
      size_before = m;
    }
    result.success.push_back(p_before);
    for (std::size_t i = 0; i < m; ++i) result.slope[static_cast<std::size_t>(slots[i])] = slope[i];
  }
}

// P(phi) and dP(phi)/du_s in the normalized model (u = g/||g||); the chain rule to g is
// PhaseGradients' (du_s/dg_t = (delta_st - u_s u_t)/||g||).
PhaseGradients normalized_phases(const Objective& objective, std::span<const double> g,
                                 SuccessMemo* memo, std::span<const double> needed) {
  const auto u = normalized_weights(gate_from_weights({g.begin(), g.end()}, "gate"));
  PhaseSuccess success(objective, channel::EntryLaw::normalized, memo);
  auto result = empty_phases(objective.geometry);
  result.gate.assign(g.begin(), g.end());
  each_phase(
      objective.geometry, success,
      [&](int s) { return std::min(u[static_cast<std::size_t>(s)], 1.0); }, needed, result);
  return result;
}

// P(phi) = A_lin(c_phi), c_phi the largest weight of phi; the gradient flows to that
// slot only (a subgradient at ties).
PhaseGradients linear_phases(const Objective& objective, std::span<const double> g,
                             SuccessMemo* memo, std::span<const double> needed) {
  PhaseSuccess success(objective, channel::EntryLaw::linear, memo);
  auto result = empty_phases(objective.geometry);
  const auto by_phase = slots_by_phase(result.phase, objective.geometry.stride);
  for (std::size_t phi = 0; phi + 1 < by_phase.start.size(); ++phi) {
    const auto slots = by_phase.of(phi);
    result.success.push_back(asked(needed, phi) ? 0.0 : std::numeric_limits<double>::quiet_NaN());
    if (slots.empty() || !asked(needed, phi)) continue;
    auto best = static_cast<std::size_t>(slots.front());
    for (int s : slots) {
      if (g[static_cast<std::size_t>(s)] > g[best]) best = static_cast<std::size_t>(s);
    }
    result.success.back() = success(std::span(&g[best], 1), std::span(&result.slope[best], 1));
  }
  return result;
}

// Channel shares: slot s's entry has mean beta x_s and sd sqrt(1 - x_s) (n = 1, u = v = x).
PhaseGradients channel_phases(const Objective& objective, std::span<const double> x,
                              SuccessMemo* memo, std::span<const double> needed) {
  PhaseSuccess success(objective, channel::EntryLaw::shares, memo);
  auto result = empty_phases(objective.geometry);
  each_phase(
      objective.geometry, success,
      [&](int s) { return std::clamp(x[static_cast<std::size_t>(s)], 0.0, 1.0); }, needed, result);
  return result;
}

// P(phi) and slopes of the phases asked for (`needed`, as each_phase's), by the objective's model.
PhaseGradients phases_of(const Objective& objective, std::span<const double> weights,
                         SuccessMemo* memo, std::span<const double> needed) {
  switch (objective.model) {
    case RetentionModel::linear:
      return linear_phases(objective, weights, memo, needed);
    case RetentionModel::channels:
      return channel_phases(objective, weights, memo, needed);
    case RetentionModel::normalized:
      break;
  }
  return normalized_phases(objective, weights, memo, needed);
}

}  // namespace

Objective tabled(Objective objective) {
  if (!objective.tables) objective.tables = std::make_shared<channel::SuccessTables>();
  objective.every_phase = false;
  return objective;
}

RetentionModel parse_retention_model(std::string_view name) {
  if (name == "normalized") return RetentionModel::normalized;
  if (name == "linear") return RetentionModel::linear;
  if (name == "channels") return RetentionModel::channels;
  throw InputError("invalid --model " + std::string(name) +
                   " (must be normalized, linear or channels)");
}

std::string to_string(RetentionModel model) {
  switch (model) {
    case RetentionModel::normalized:
      return "normalized";
    case RetentionModel::linear:
      return "linear";
    case RetentionModel::channels:
      return "channels";
  }
  return "unknown";
}

void Objective::validate() const {
  geometry.validate();
  require_non_negative(beta, "--beta");
  require(entries >= geometry.window, "invalid --entries " + std::to_string(entries) +
                                          " (must be at least the window, " +
                                          std::to_string(geometry.window) + ")");
  if (!phase_weights.empty()) normalized_phase_weights(phase_weights, geometry.stride);
  require_in_range(top_k, 1, entries - geometry.window, "--top-k");
}

std::vector<double> Objective::weights() const {
  if (phase_weights.empty()) {
    return std::vector<double>(static_cast<std::size_t>(geometry.stride), 1.0 / geometry.stride);
  }
  return normalized_phase_weights(phase_weights, geometry.stride);
}

std::vector<double> normalized_phase_weights(std::span<const double> raw, int stride,
                                             const std::string& option) {
  // The messages are built only on failure: Objective::weights() runs this at every evaluation
  // of J, where formatting S numbers was a fifth of the page's dynamics at W = S = 128.
  if (static_cast<int>(raw.size()) != stride) {
    throw InputError("invalid " + option + " (has " + counted(raw.size(), "value") +
                     ", one per phase needs " + std::to_string(stride) + ")");
  }
  double total = 0;
  for (double x : raw) {
    if (!(std::isfinite(x) && x >= 0)) {
      throw InputError("invalid " + option + " " + format_number(x) +
                       " (each must be finite and >= 0)");
    }
    total += x;
  }
  require(total > 0, "invalid " + option + " (must not all be zero)");
  std::vector<double> w(raw.begin(), raw.end());
  for (double& x : w) x /= total;
  return w;
}

ObjectiveValue evaluate_weights(const Objective& objective, std::span<const double> weights,
                                SuccessMemo* memo) {
  // The message built only on failure (an evaluation's other work at W = 128 is a few
  // microseconds in the page).
  if (static_cast<int>(weights.size()) != objective.geometry.window) {
    throw InputError("gate has " + counted(weights.size(), "weight") + ", the window needs " +
                     std::to_string(objective.geometry.window));
  }
  const auto w = objective.weights();
  const auto phases =
      phases_of(objective, weights, memo, objective.every_phase ? std::span<const double>() : w);
  ObjectiveValue result{0.0, phases.success, phases.weighted_gradient(w)};
  // A phase of weight 0 adds 0 (and its P, left out, is NaN).
  for (std::size_t phi = 0; phi < w.size(); ++phi) {
    if (w[phi] != 0) result.value += w[phi] * phases.success[phi];
  }
  return result;
}

std::vector<double> PhaseGradients::weighted_gradient(std::span<const double> a) const {
  std::vector<double> d_x(slope.size());
  for (std::size_t s = 0; s < slope.size(); ++s)
    d_x[s] = a[static_cast<std::size_t>(phase[s])] * slope[s];
  return gate.empty() ? d_x : normalized_backprop(gate, d_x);
}

double PhaseGradients::derivative(int phi, int t) const {
  const auto at = static_cast<std::size_t>(t);
  const double own = phase[at] == phi ? slope[at] : 0.0;
  if (gate.empty()) return own;
  // normalized_backprop's arithmetic for this phase's d_u (zero off the phase), term by term.
  double norm = 0;
  for (double x : gate) norm += x * x;
  norm = std::sqrt(norm);
  double radial = 0;
  for (std::size_t s = 0; s < gate.size(); ++s) {
    if (phase[s] == phi) radial += gate[s] / norm * slope[s];
  }
  return (own - gate[at] / norm * radial) / norm;
}

PhaseGradients phase_gradients(const Objective& objective, std::span<const double> weights,
                               SuccessMemo* memo) {
  return phases_of(objective, weights, memo, {});
}

ObjectiveValue evaluate_logits(const Objective& objective, std::span<const double> logits) {
  const auto g = gate_from_logits({logits.begin(), logits.end()}, "logits").weights;
  auto result = evaluate_weights(objective, g);
  result.gradient = softmax_backprop(g, result.gradient);
  return result;
}

std::vector<double> normalized_backprop(std::span<const double> g, std::span<const double> d_u) {
  double norm = 0;
  for (double x : g) norm += x * x;
  norm = std::sqrt(norm);
  // u_s = g_s / norm, held in d_g until its own value replaces it: computed once, not twice (a
  // division a slot fewer, and the same numbers).
  std::vector<double> d_g(g.size());
  double radial = 0;  // sum_s u_s dJ/du_s
  for (std::size_t s = 0; s < g.size(); ++s) {
    d_g[s] = g[s] / norm;
    radial += d_g[s] * d_u[s];
  }
  for (std::size_t t = 0; t < g.size(); ++t) d_g[t] = (d_u[t] - d_g[t] * radial) / norm;
  return d_g;
}

std::vector<double> softmax_backprop(std::span<const double> g, std::span<const double> d_g) {
  double mean = 0;  // sum_s g_s dJ/dg_s
  for (std::size_t s = 0; s < g.size(); ++s) mean += g[s] * d_g[s];
  std::vector<double> d_b(g.size());
  for (std::size_t s = 0; s < g.size(); ++s) d_b[s] = g[s] * (d_g[s] - mean);
  return d_b;
}

GateSummary summarize_gate(std::span<const double> weights) {
  GateSummary summary;
  for (std::size_t s = 0; s < weights.size(); ++s) {
    const double g = weights[s];
    if (g > summary.max_weight) summary.max_weight = g, summary.argmax = static_cast<int>(s);
    if (g > 0) summary.entropy -= g * portable::log(g);
    if (g > kEffectiveWeight) ++summary.k_effective;
  }
  return summary;
}

std::vector<double> initial_logits(const std::string& spec, int window) {
  std::vector<double> logits;
  const auto gate = parse_gate(spec, window);
  require_one_gate(gate, "--init");
  for (double w : gate.weights) logits.push_back(portable::log(std::max(w, 1e-300)));
  return logits;
}

}  // namespace phasesim::theorems
