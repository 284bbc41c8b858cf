#pragma once
// Where a needle of one or several tokens can be read from, and the logit law of each such
// place in the standardized channel (MODEL.md section 10; theory/THEORY.md, "Needles of
// several tokens").
//
// A needle of n tokens sits at positions p..p+n-1 and the query matches the normalized sum of
// their keys. With beta fixed, token i's projection in channel group G is beta/sqrt(n) +
// r_{i,G}: the tokens' own iid projections given that their normalized sum is beta, so
// r_{.,G} ~ N(0, (I - 11'/n) / w_G), w_G the group's share of the channels, independent over
// groups (one gate: one group, w = 1). A place that holds needle tokens at slots s (token
// i(s)) has logit
//   mean + sum_{G,i} c_{G,i} r_{i,G} + sd Z,
//   mean = beta / sqrt(n) sum_s rho_s u_s,  c_{G,i} = w_G rho_s g_{G,s} / nrm,
//   sd^2 = 1 - sum_s rho_s^2 v_s,
// u_s, v_s the slot laws (gate.hpp), nrm^2 = sum_G w_G ||g_G||^2, rho_s the split projections'
// correlation at older slots (1 elsewhere), and Z independent of everything: the standardized
// channel's haystack parts are independent from entry to entry, as in section 4. Disjoint
// needle tokens make two places' noises covary by -u_A u_B (one gate); with n = 1 the
// residuals vanish and the laws are slot_laws'. A needle token read raw (the sliding window) is
// a place of one slot weighted 1 in every channel: mean beta / sqrt(n), c_{G,i} = w_G, sd 0.
#include <cstdint>
#include <span>
#include <vector>

#include "phasesim/model/gate.hpp"
#include "phasesim/model/geometry.hpp"

namespace phasesim {

/// One place the needle can be read from: a compressed entry holding needle tokens, or a
/// needle token read raw.
struct NeedlePlace {
  double mean = 0;
  double sd = 1;             ///< the independent part's standard deviation
  std::int64_t where = 0;    ///< the entry, or the raw token's position
  bool raw = false;          ///< a token of the sliding window
  std::size_t residual = 0;  ///< where its coefficients c_{G,i} start in NeedleLaws::residuals
};

/// The places of one needle in one head, compressed entries in entry order, then raw tokens
/// in position order.
struct NeedleLaws {
  int tokens = 1;
  std::vector<double> group_scales;  ///< 1 / sqrt(w_G): r_{i,G} = (e_{i,G} - mean_i e) * scale
  std::vector<NeedlePlace> places;
  std::vector<double> residuals;  ///< groups x tokens coefficients per place (none when n = 1)

  int groups() const { return static_cast<int>(group_scales.size()); }
  /// c_{G,i} of a place, at G * tokens + i (empty when the needle has one token).
  std::span<const double> residual(const NeedlePlace& place) const;
  /// Places that are compressed entries (they come first).
  std::size_t entries() const;
};

/// What needle_laws needs of a gate beyond its weights: O(W) to compute, so a head that reads
/// many needles (every phase, every trial) computes it once.
struct GateLaws {
  std::vector<SlotLaw> slots;  ///< slot_laws(gate)
  double norm2 = 0;            ///< nrm^2 = sum_G w_G ||g_G||^2
};

GateLaws gate_laws(const Gate& gate);

/// Where the needle is read from in a head of `geometry` and `gate`, `pooled` its gate_laws: the
/// first `entries` entries are visible (complete before the query), and positions from `raw_from`
/// on are read raw by the sliding window (the context length when there is none). `split_rho` as
/// NiahModel::split_rhos. Clears and fills `laws` (its capacity is reused).
void needle_laws(const Geometry& geometry, const Gate& gate, const GateLaws& pooled,
                 double split_rho, double beta, std::int64_t needle, int tokens,
                 std::int64_t entries, std::int64_t raw_from, NeedleLaws& laws);

/// The same, returned.
NeedleLaws needle_laws(const Geometry& geometry, const Gate& gate, const GateLaws& pooled,
                       double split_rho, double beta, std::int64_t needle, int tokens,
                       std::int64_t entries, std::int64_t raw_from);

/// The same for one needle: the gate's laws computed here.
NeedleLaws needle_laws(const Geometry& geometry, const Gate& gate, double split_rho, double beta,
                       std::int64_t needle, int tokens, std::int64_t entries,
                       std::int64_t raw_from);

}  // namespace phasesim
