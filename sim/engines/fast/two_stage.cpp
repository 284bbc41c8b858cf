// The read path's two stages from the drawn places and the iid rest (sim/ENGINES.md, "The read
// path"): stage 1 by the rest's order statistics around rank k, stage 2 by exact maxima.
#include "two_stage.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "phasesim/core/extremes.hpp"
#include "phasesim/core/order_statistics.hpp"
#include "phasesim/core/portable_math.hpp"

namespace phasesim::engines::fast {
namespace {

constexpr double kLowest = -std::numeric_limits<double>::infinity();

// Indices of the selection stream.
enum : std::uint32_t {
  kGammas = 0,     // 0 and 1: the gamma variates of Y_(R)
  kSteps = 2,      // block R - r: the uniform of the step from Y_(r+1) up to Y_(r)
  kAttention = 3,  // component R - r: Z of Y_(r)'s attention logit (rho != 0)
  kRestMax = 4,    // the exact maximum of the selected rest's attention logits
  kRawMax = 5,     // the exact maximum of the window's iid raw tokens
  kAbove = 6,      // the Bernoulli of the rest above the drawn order statistics
};

// The order statistics of the rest's selection scores at ranks lo..hi: their upper tails and
// values, at index r - lo.
struct Ranks {
  std::int64_t lo = 1, hi = 0;
  std::vector<UpperTail> tails;
  std::vector<double> values;
  double value(std::int64_t r) const { return values[static_cast<std::size_t>(r - lo)]; }
};

Ranks draw_ranks(std::int64_t n, std::int64_t lo, std::int64_t hi, const RandomStream& stream) {
  if (hi < lo) return {lo, hi, {}, {}};  // no rest
  const auto count = static_cast<std::size_t>(hi - lo + 1);
  Ranks ranks{lo, hi, std::vector<UpperTail>(count), std::vector<double>(count)};
  auto tail = upper_order_statistic(n, hi, stream, kGammas);
  ranks.tails.back() = tail;
  for (std::int64_t r = hi; r > lo; --r) {
    tail = step_up(tail, r, stream.uniform_pair(kSteps, static_cast<std::uint32_t>(hi - r)).x);
    ranks.tails[static_cast<std::size_t>(r - 1 - lo)] = tail;
  }
  for (std::size_t i = 0; i < count; ++i) ranks.values[i] = ranks.tails[i].value();
  return ranks;
}

// How many of the rest score above s, as far as stage 1 needs it: exact within the drawn ranks,
// hi when below them all (then at least k score above), lo - 1 when above them all.
std::int64_t rest_above(const Ranks& ranks, std::int64_t n, double s) {
  if (ranks.hi < ranks.lo) return 0;
  if (s > ranks.value(ranks.lo)) return ranks.lo - 1;
  std::int64_t above = ranks.lo - 1;
  for (std::int64_t r = ranks.lo; r <= ranks.hi && ranks.value(r) > s; ++r) ++above;
  return above == ranks.hi && ranks.hi < n ? ranks.hi : above;
}

double upper_tail(double x) { return 0.5 * portable::erfc(x * 0.70710678118654752440); }

// P(a >= x | s > t) for a = rho s + sqrt(1 - rho^2) Z, s ~ N(0, 1): one of the rest above a drawn
// rank t (its upper tail `above` = P(s > t), drawn to full precision).
double above_given_above(double x, const UpperTail& above, double rho) {
  const double t = above.value();
  if (rho >= 1) return x <= t ? 1.0 : upper_tail(x) / above.tail;
  if (rho <= -1) return 1 - upper_tail(std::max(-x, t)) / above.tail;
  return std::min(1.0, upper_orthant(x, t, rho) / above.tail);
}

}  // namespace

TwoStage read_two_stages(std::span<Place> places, const Rest& rest, const RandomStream& stream) {
  // Compressed entries first, by selection score (a tie keeps their order); raw tokens after.
  const auto raw_begin =
      std::stable_partition(places.begin(), places.end(), [](const Place& p) { return !p.raw; });
  std::stable_sort(places.begin(), raw_begin,
                   [](const Place& a, const Place& b) { return a.selection > b.selection; });
  const auto e = static_cast<std::int64_t>(raw_begin - places.begin());
  const std::int64_t n = rest.entries;
  const bool selects = rest.top_k < n + e;
  std::vector<bool> kept(static_cast<std::size_t>(e), true);
  std::int64_t rest_kept = n;
  std::int64_t places_kept = e;
  Ranks ranks;
  if (selects) {
    // Some rank in [k - e, k] of the rest bounds every place's rank: draw those.
    ranks =
        draw_ranks(n, std::max<std::int64_t>(1, rest.top_k - e), std::min(rest.top_k, n), stream);
    places_kept = 0;
    for (std::int64_t i = 0; i < e; ++i) {
      const auto above = rest_above(ranks, n, places[static_cast<std::size_t>(i)].selection);
      kept[static_cast<std::size_t>(i)] = i + above < rest.top_k;
      places_kept += kept[static_cast<std::size_t>(i)] ? 1 : 0;
    }
    rest_kept = std::min(n, rest.top_k - places_kept);
  }
  TwoStage outcome;
  double needle = kLowest, rival = kLowest;
  for (std::size_t i = 0; i < places.size(); ++i) {
    const auto& p = places[i];
    if (i < kept.size() && !kept[i]) continue;  // a raw token is always read
    outcome.selected = outcome.selected || p.needle;
    double& best = p.needle ? needle : rival;
    best = std::max(best, p.attention);
  }
  if (!outcome.selected) return outcome;
  if (rest.raw > 0) {
    const double u = stream.uniform_pair(kRawMax, 0).x;
    rival = std::max(rival, rest.raw_scale * max_of_normals(rest.raw, u));
  }
  if (rest.sink) rival = std::max(rival, *rest.sink);
  // Raw blocks: the kept entries' raw tokens but the needle's own, one in each kept place.
  const std::int64_t rivals = rest.block_tokens > 0
                                  ? rest.block_tokens * (rest_kept + places_kept) - places_kept
                                  : rest_kept;
  if (!(needle > rival) || rivals == 0) {
    outcome.retrieved = needle > rival;
    return outcome;
  }
  if (!selects || rest.rho == 0) {  // the kept rest's logits do not depend on their scores
    outcome.retrieved =
        needle > rest.scale * max_of_normals(rivals, stream.uniform_pair(kRestMax, 0).x);
    return outcome;
  }
  // rho != 0: the drawn ranks lo..rest_kept one by one, the lo - 1 above them by their law.
  const double spread = std::sqrt((1 - rest.rho) * (1 + rest.rho));
  const double x = needle / rest.scale;
  for (std::int64_t r = ranks.lo; r <= rest_kept; ++r) {
    const double z = stream.normal(kAttention, static_cast<std::uint32_t>(ranks.hi - r));
    if (!(x > rest.rho * ranks.value(r) + spread * z)) return outcome;
  }
  if (ranks.lo > 1) {
    const double q = above_given_above(x, ranks.tails.front(), rest.rho);
    const double log_all =
        q >= 1 ? kLowest : static_cast<double>(ranks.lo - 1) * portable::log1p(-q);
    if (!(portable::log(stream.uniform_pair(kAbove, 0).x) < log_all)) return outcome;
  }
  outcome.retrieved = true;
  return outcome;
}

}  // namespace phasesim::engines::fast
