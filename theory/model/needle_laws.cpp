#include "phasesim/model/needle_laws.hpp"

#include <algorithm>
#include <cmath>

namespace phasesim {
namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// The channel groups of a gate as (share, weights): one group for one gate.
struct Groups {
  std::vector<double> shares;
  std::vector<const std::vector<double>*> weights;
  double norm2 = 0;  ///< nrm^2 = sum_G w_G ||g_G||^2
};

Groups groups_of(const Gate& gate) {
  Groups groups;
  if (gate.per_channel()) {
    for (const auto& g : gate.channels) {
      groups.shares.push_back(g.share);
      groups.weights.push_back(&g.weights);
    }
  } else {
    groups.shares.push_back(1.0);
    groups.weights.push_back(&gate.weights);
  }
  return groups;
}

// Adds the needle tokens entry j holds to its place: mean, independent variance, residuals.
void add_entry(const Geometry& g, const Groups& groups, const std::vector<SlotLaw>& laws,
               double split_rho, double beta, std::int64_t needle, int tokens, std::int64_t j,
               NeedleLaws& out) {
  const std::int64_t first = g.position(j, 0);
  const std::int64_t lo = std::max(first, needle);
  const std::int64_t hi = std::min(first + g.window - 1, needle + tokens - 1);
  if (lo > hi) return;  // (a window below the stride skips positions)
  NeedlePlace place{0, 0, j, false, out.residuals.size()};
  const bool several = tokens > 1;
  if (several) out.residuals.resize(out.residuals.size() + groups.shares.size() * tokens, 0.0);
  const double root = std::sqrt(static_cast<double>(tokens));
  const double norm = std::sqrt(groups.norm2);
  double variance = 1;
  for (std::int64_t t = lo; t <= hi; ++t) {
    const auto s = static_cast<int>(t - first);
    const double rho = s < g.older_slots() ? split_rho : 1.0;
    const auto& law = laws[static_cast<std::size_t>(s)];
    place.mean += beta * rho * law.u / root;
    variance -= rho * rho * (1 - law.sd * law.sd);
    const auto i = static_cast<std::size_t>(t - needle);
    for (std::size_t k = 0; several && k < groups.shares.size(); ++k) {
      out.residuals[place.residual + k * static_cast<std::size_t>(tokens) + i] +=
          groups.shares[k] * rho * (*groups.weights[k])[static_cast<std::size_t>(s)] / norm;
    }
  }
  place.sd = std::sqrt(std::max(0.0, variance));
  out.places.push_back(place);
}

}  // namespace

std::span<const double> NeedleLaws::residual(const NeedlePlace& place) const {
  if (tokens == 1) return {};
  return {residuals.data() + place.residual,
          group_scales.size() * static_cast<std::size_t>(tokens)};
}

std::size_t NeedleLaws::entries() const {
  return static_cast<std::size_t>(
      std::find_if(places.begin(), places.end(), [](const NeedlePlace& p) { return p.raw; }) -
      places.begin());
}

GateLaws gate_laws(const Gate& gate) {
  GateLaws pooled{slot_laws(gate), 0.0};
  const auto groups = groups_of(gate);
  for (std::size_t k = 0; k < groups.shares.size(); ++k) {
    for (const double w : *groups.weights[k]) pooled.norm2 += groups.shares[k] * w * w;
  }
  return pooled;
}

void needle_laws(const Geometry& geometry, const Gate& gate, const GateLaws& pooled,
                 double split_rho, double beta, std::int64_t needle, int tokens,
                 std::int64_t entries, std::int64_t raw_from, NeedleLaws& laws) {
  auto groups = groups_of(gate);
  groups.norm2 = pooled.norm2;
  laws.tokens = tokens;
  laws.group_scales.clear();
  for (const double w : groups.shares) laws.group_scales.push_back(1 / std::sqrt(w));
  laws.places.clear();
  laws.residuals.clear();
  const auto& slot = pooled.slots;
  const auto& g = geometry;
  const std::int64_t last = needle + tokens - 1;
  const std::int64_t from = std::max<std::int64_t>(0, floor_div(needle - g.offset, g.stride));
  const std::int64_t to =
      std::min(entries - 1, floor_div(last - g.offset - g.stride + g.window, g.stride));
  for (std::int64_t j = from; j <= to; ++j) {
    add_entry(g, groups, slot, split_rho, beta, needle, tokens, j, laws);
  }
  // Raw tokens: one slot weighted 1 in every channel, so c_{G,i} = w_G and nothing is left.
  const double root = std::sqrt(static_cast<double>(tokens));
  for (std::int64_t t = std::max(needle, raw_from); t <= last; ++t) {
    laws.places.push_back({beta / root, 0.0, t, true, laws.residuals.size()});
    if (tokens == 1) continue;
    const auto i = static_cast<std::size_t>(t - needle);
    for (const double w : groups.shares) {
      const auto begin = laws.residuals.size();
      laws.residuals.resize(begin + static_cast<std::size_t>(tokens), 0.0);
      laws.residuals[begin + i] = w;
    }
  }
}

NeedleLaws needle_laws(const Geometry& geometry, const Gate& gate, const GateLaws& pooled,
                       double split_rho, double beta, std::int64_t needle, int tokens,
                       std::int64_t entries, std::int64_t raw_from) {
  NeedleLaws laws;
  needle_laws(geometry, gate, pooled, split_rho, beta, needle, tokens, entries, raw_from, laws);
  return laws;
}

NeedleLaws needle_laws(const Geometry& geometry, const Gate& gate, double split_rho, double beta,
                       std::int64_t needle, int tokens, std::int64_t entries,
                       std::int64_t raw_from) {
  return needle_laws(geometry, gate, gate_laws(gate), split_rho, beta, needle, tokens, entries,
                     raw_from);
}

}  // namespace phasesim
