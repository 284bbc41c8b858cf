// The read path's two stages by quadrature (read_path.hpp; theory/THEORY.md, "The read path").
#include "phasesim/channel/read_path.hpp"

#include <algorithm>
#include <array>
#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <vector>

#include "order_law.hpp"
#include "phasesim/core/contract.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/normal.hpp"
#include "phasesim/core/portable_math.hpp"

namespace phasesim::channel {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr int kMaxPlaces = 20;
// Each integral's pieces: the error allowed, absolute (probabilities: 1e-12 is far below what a
// table shows) or relative to the piece (the order statistic's density, a product of powers
// near 10^3 in log space, carries rounding noise of a few 1e-13 of itself, which an absolute
// tolerance alone would chase to the last bisection), and the bisections allowed.
constexpr double kPieceTolerance = 1e-12;
constexpr double kPieceRelative = 1e-10;
constexpr int kPieceDepth = 10;
constexpr double kReach = 9;  // sds either side of a place's mean hold all but 2e-19 of it
// E[f(R)] over a needle's factor: its tolerance is above the inner integrals' rounding, which an
// absolute 1e-12 would chase to the last bisection.
constexpr double kFactorTolerance = 1e-10;
constexpr int kFactorDepth = 8;

// How a read computes (ReadAccuracy). The table read asks less of each piece and of the factor,
// takes erfc and log Phi in double (Boost's erfc of a double runs in long double, most of the
// exact read's time), folds a factor that moves one place into its sd, and reads stage 2 by
// this file's integral over the rival's density.
struct Precision {
  double piece = kPieceTolerance;
  double factor = kFactorTolerance;
  bool fast = false;
};

Precision precision_of(ReadAccuracy accuracy) {
  if (accuracy == ReadAccuracy::exact) return {};
  return {1e-10, 1e-9, true};
}

double upper_tail(double x, bool fast) {
  if (fast) return 0.5 * portable::erfc(x / std::numbers::sqrt2);
  return 0.5 * boost::math::erfc(x / std::numbers::sqrt2, detail::DoublePolicy{});
}

// Gauss-Kronrod (15/31) on [a, b], bisected until its error estimate is within an absolute
// tolerance: a relative one would chase the rounding of pieces that hold nothing.
template <class F>
double integrate(F& f, double a, double b, double tolerance, int depth) {
  double error = 0;
  const double value =
      boost::math::quadrature::gauss_kronrod<double, 31>::integrate(f, a, b, 0, 0, &error);
  if (error <= std::max(tolerance, kPieceRelative * std::abs(value)) || depth == 0) return value;
  const double mid = 0.5 * (a + b);
  return integrate(f, a, mid, tolerance / 2, depth - 1) +
         integrate(f, mid, b, tolerance / 2, depth - 1);
}

// B(v; j) = P(#{D > v} <= j) for n iid N(0, 1): P(Bin(n, Q(v)) <= j) = 1 - I_Q(j + 1, n - j).
double at_most_above(double v, std::int64_t j, std::int64_t n) {
  if (j < 0) return 0;
  if (j >= n) return 1;
  const double q = upper_tail(v, false);
  if (q <= 0) return 1;
  if (q >= 1) return 0;
  return boost::math::ibetac(static_cast<double>(j + 1), static_cast<double>(n - j), q,
                             detail::DoublePolicy{});
}

// P(X <= v) and its density for one place's law (a step at the mean when sd = 0).
double cdf(const NeedleEntry& e, double v, bool fast) {
  if (e.sd == 0) return v >= e.mean ? 1.0 : 0.0;
  return 1 - upper_tail((v - e.mean) / e.sd, fast);
}
double pdf(const NeedleEntry& e, double v) {
  const double z = (v - e.mean) / e.sd;
  return portable::exp(log_normal_pdf(z)) / e.sd;
}

// The law of min (or max) of independent places: its CDF, the density of its continuous part,
// and the atom a deterministic place puts where it is the extreme.
struct Extreme {
  std::vector<NeedleEntry> places;
  bool minimum = true;
  bool fast = false;  // Precision::fast

  double cdf(const NeedleEntry& e, double v) const { return channel::cdf(e, v, fast); }

  // P(extreme <= v).
  double below(double v) const {
    double all = 1;  // min: P(all > v); max: P(all <= v)
    for (const auto& e : places) all *= minimum ? 1 - cdf(e, v) : cdf(e, v);
    return minimum ? 1 - all : all;
  }
  // The density of the continuous places' part at v (deterministic places as factors).
  double density(double v) const {
    double sum = 0;
    for (std::size_t i = 0; i < places.size(); ++i) {
      if (places[i].sd == 0) continue;
      double rest = pdf(places[i], v);
      for (std::size_t t = 0; t < places.size() && rest > 0; ++t) {
        if (t != i) rest *= minimum ? 1 - cdf(places[t], v) : cdf(places[t], v);
      }
      sum += rest;
    }
    return sum;
  }
  // The deterministic places' extreme (the atom's place), or +-inf when there is none.
  double atom() const {
    double at = minimum ? kInfinity : -kInfinity;
    for (const auto& e : places) {
      if (e.sd == 0) at = minimum ? std::min(at, e.mean) : std::max(at, e.mean);
    }
    return at;
  }
  // The probability of the atom: the continuous places all beyond it.
  double atom_mass() const {
    const double at = atom();
    if (!std::isfinite(at)) return 0;
    double mass = 1;
    for (const auto& e : places) {
      if (e.sd > 0) mass *= minimum ? 1 - cdf(e, at) : cdf(e, at);
    }
    return mass;
  }
  // Break points of the continuous part's density: each place's mean +- 0, 3, 9 sd.
  std::vector<double> points() const {
    std::vector<double> list;
    for (const auto& e : places) {
      if (e.sd == 0) continue;
      for (double k : {-kReach, -3.0, 0.0, 3.0, kReach}) list.push_back(e.mean + k * e.sd);
    }
    return list;
  }
};

// Integral of f over the continuous part of `x`'s law, between break points (x's and
// `more`), the part beyond the deterministic atom excluded (there the atom is the extreme).
template <class F>
double over_density(const Extreme& x, std::vector<double> more, double tolerance, F f) {
  auto points = x.points();
  if (points.empty()) return 0;
  const double lo = *std::min_element(points.begin(), points.end());
  const double hi = *std::max_element(points.begin(), points.end());
  const double atom = x.atom();
  points.insert(points.end(), more.begin(), more.end());
  if (std::isfinite(atom)) points.push_back(atom);
  std::sort(points.begin(), points.end());
  double sum = 0;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const double a = std::max(points[i], lo), b = std::min(points[i + 1], hi);
    if (!(a < b)) continue;
    if (x.minimum ? a >= atom : b <= atom) continue;  // past the atom the density is 0
    auto g = [&](double v) { return x.density(v) * f(v); };
    sum += integrate(g, a, b, tolerance, kPieceDepth);
  }
  return sum;
}

// Integral of f over `points`' pieces (in order), where it lives.
template <class F>
double over_pieces(const std::vector<double>& points, double tolerance, F f) {
  double sum = 0;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    if (points[i] < points[i + 1])
      sum += integrate(f, points[i], points[i + 1], tolerance, kPieceDepth);
  }
  return sum;
}

// The law of an order statistic of the others and its break points (quantiles 1e-14 to
// 1 - 1e-14, which hold all but 2e-14 of it): they do not depend on the needle's factor, so a
// set's integral over the factor computes them once.
struct OthersLaw {
  detail::OrderLaw d;
  std::vector<double> quantiles;

  OthersLaw(std::int64_t n, std::int64_t k, bool fast)
      : d(static_cast<double>(n), k, fast),
        quantiles(d.quantiles({1e-14, 1e-6, 0.1, 0.5, 0.9, 1 - 1e-6, 1 - 1e-14})) {}
};

// The table read's fixed rule over an order statistic's range: 10-point Gauss-Legendre on each
// piece between finer quantiles, each node's weight times the density and times the binomial
// P(exactly k - 1 above) computed once a kept set (they do not depend on the needle). A piece
// where some place turns sharply (its sd below the piece's width, its mean within 8 sd) is cut
// at that place's mean and +-1.5, 3, 5, 8 sd, where its CDF is smooth on each part's scale (a
// step, sd 0, at its mean only), and each part read by the same rule with the density computed.
struct FixedRule {
  struct Piece {
    double a, b;
    std::size_t first;  // its nodes: first to first + kNodes
  };
  static constexpr std::size_t kNodes = 10;
  using Gauss = boost::math::quadrature::gauss<double, kNodes>;
  static constexpr std::array<double, 9> kBands{-8, -5, -3, -1.5, 0, 1.5, 3, 5, 8};
  std::vector<Piece> pieces;
  std::vector<double> nodes, density, binomial;

  FixedRule(const detail::OrderLaw& d, const std::vector<double>& points) {
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
      const double half = (points[i + 1] - points[i]) / 2, mid = (points[i + 1] + points[i]) / 2;
      if (!(half > 0)) continue;
      pieces.push_back({points[i], points[i + 1], nodes.size()});
      for (std::size_t g = 0; g < Gauss::abscissa().size(); ++g) {
        for (const double sign : {-1.0, 1.0}) {
          const double x = mid + sign * half * Gauss::abscissa()[g];
          nodes.push_back(x);
          density.push_back(half * Gauss::weights()[g] * portable::exp(d.log_density(x)));
          binomial.push_back(half * Gauss::weights()[g] * d.binomial(x));
        }
      }
    }
  }

  // The integral over the rule's range: `term(i)` summed on a smooth piece's nodes; elsewhere
  // `f` (the integrand, density included) adaptively, split at the places' means and +-3 sd.
  template <class Term, class F>
  double sum(std::initializer_list<const Extreme*> laws, Term term, F f) const {
    double total = 0;
    for (const auto& piece : pieces) {
      std::vector<double> points{piece.a, piece.b};
      for (const auto* law : laws) {
        for (const auto& e : law->places) {
          const double gap = std::max({0.0, piece.a - e.mean, e.mean - piece.b});
          if (e.sd >= piece.b - piece.a || gap > 8 * e.sd) continue;
          for (const double k : kBands) {
            const double v = e.mean + k * e.sd;
            if (v > piece.a && v < piece.b) points.push_back(v);
          }
        }
      }
      if (points.size() == 2) {
        for (std::size_t i = piece.first; i < piece.first + kNodes; ++i) total += term(i);
        continue;
      }
      std::sort(points.begin(), points.end());
      for (std::size_t i = 0; i + 1 < points.size(); ++i) {
        if (points[i] < points[i + 1]) total += Gauss::integrate(f, points[i], points[i + 1]);
      }
    }
    return total;
  }
};

constexpr std::initializer_list<double> kFineQuantiles{1e-14, 1e-8,     1e-3,     0.1,      0.5,
                                                       0.9,   1 - 1e-3, 1 - 1e-8, 1 - 1e-14};

// The fixed rule of D = D_(j+1) of the n others for stage 1 (table read): over D's range, then
// up to D_(j)'s upper end, past which P(N(v) = j) <= P(D_(j) > v) is below 1e-14. None for j = 0,
// whose binomial Phi(v)^n does not vanish above.
std::optional<FixedRule> stage_one_rule(std::int64_t n, std::int64_t j) {
  if (j < 1) return std::nullopt;
  const detail::OrderLaw d(static_cast<double>(n), j + 1, true);
  auto points = d.quantiles(kFineQuantiles);
  const double top = detail::OrderLaw(static_cast<double>(n), j, true).range(1e-14).second;
  if (top > points.back()) points.push_back(top);
  return FixedRule(d, points);
}

// Stage 1 of a kept set on the fixed rule (table read): kept_below_count's two integrals, the
// second over the dropped places' density, and a deterministic dropped place's atom.
double kept_below_fixed(const Extreme& kept, const Extreme& dropped, const FixedRule& rule,
                        const detail::OrderLaw& d) {
  const auto above = [&](double v) { return 1 - kept.below(v); };
  const bool any = !dropped.places.empty();
  double p = rule.sum(
      {&kept, &dropped},
      [&](std::size_t i) {
        const double v = rule.nodes[i];
        const double binomial = any ? rule.binomial[i] * dropped.density(v) : 0.0;
        return above(v) * (rule.density[i] * dropped.below(v) + binomial);
      },
      [&](double v) {
        const double binomial = any ? d.binomial(v) * dropped.density(v) : 0.0;
        return above(v) * (portable::exp(d.log_density(v)) * dropped.below(v) + binomial);
      });
  if (std::isfinite(dropped.atom())) {
    p += dropped.atom_mass() * above(dropped.atom()) * d.binomial(dropped.atom());
  }
  return std::clamp(p, 0.0, 1.0);
}

// P(exactly the places S of the needle's compressed places pass stage 1) (read_path.hpp), for
// j = k - |S| below the others' count n. With x = min_S, y = max of the dropped places and D =
// D_(j+1): P(x > max(D, y)) - E[1{x > y} B(y; j - 1)] =
//   int f_D(d) P(x > d) P(y <= d) dd + int P(x > y) P(N(y) = j) dF_y(y),
// whose integrands need no incomplete beta (theory/THEORY.md, "The read path").
double kept_below_count(const Extreme& kept, const Extreme& dropped, const OthersLaw& law,
                        double tolerance) {
  const auto& d = law.d;        // D = D_(j+1)
  auto points = law.quantiles;  // D's range holds all but 2e-14 of f_D
  const double lo = points.front(), hi = points.back();
  for (const auto* e : {&kept, &dropped}) {  // steps of deterministic places, and their spread
    for (const auto& place : e->places) {
      for (double k : {-3.0, 0.0, 3.0}) {
        const double v = place.mean + k * place.sd;
        if (v > lo && v < hi) points.push_back(v);
      }
    }
  }
  std::sort(points.begin(), points.end());
  const auto above = [&](double v) { return 1 - kept.below(v); };
  double p = over_pieces(points, tolerance, [&](double v) {
    return portable::exp(d.log_density(v)) * above(v) * dropped.below(v);
  });
  if (dropped.places.empty()) return std::clamp(p, 0.0, 1.0);
  // The binomial is not small above D's range (P(N(v) = j) -> 1 for j = 0): the dropped
  // places' own range.
  p += over_density(dropped, law.quantiles, tolerance,
                    [&](double v) { return above(v) * d.binomial(v); });
  if (std::isfinite(dropped.atom())) {
    p += dropped.atom_mass() * above(dropped.atom()) * d.binomial(dropped.atom());
  }
  return std::clamp(p, 0.0, 1.0);
}

// The same for j = n, where k keeps all n others and the places S (so some dropped place
// exists): B(v; n) = 1 and B(y; n - 1) = 1 - Q(y)^n, so P = P(x > y) - E[1{x > y} B(y; n - 1)].
double kept_all_others(const Extreme& kept, const Extreme& dropped, std::int64_t n,
                       double tolerance) {
  const auto first = [&](double x) { return dropped.below(x); };
  double p = over_density(kept, {}, tolerance, first);
  if (kept.places.empty()) {
    p = 1;
  } else if (std::isfinite(kept.atom())) {
    p += kept.atom_mass() * first(kept.atom());
  }
  const auto second = [&](double y) { return at_most_above(y, n - 1, n) * (1 - kept.below(y)); };
  double q = over_density(dropped, {}, tolerance, second);
  if (std::isfinite(dropped.atom())) q += dropped.atom_mass() * second(dropped.atom());
  return std::clamp(p - q, 0.0, 1.0);
}

// A needle's logits given its stage's factor R = r: each place's mean moved by tie x r.
struct Tied {
  std::vector<NeedleEntry> laws;
  std::vector<double> ties;

  void add(const NeedleEntry& law, double tie) {
    laws.push_back(law);
    ties.push_back(tie);
  }
  bool tied() const {
    return std::any_of(ties.begin(), ties.end(), [](double t) { return t != 0; });
  }
  std::vector<NeedleEntry> at(double r) const {
    auto out = laws;
    for (std::size_t i = 0; i < out.size(); ++i) out[i].mean += ties[i] * r;
    return out;
  }
  // The table read's simplifications. A tie or an sd below 1e-9 (a gate's rounding: weights
  // equal but for their last bits) is none: a place of sd 1e-17 is a step that the adaptive
  // pieces around it would miss, and moving a place by 1e-8 moves a probability by less than
  // 1e-8 times a density. A factor that moves one place only is that place's own noise:
  // N(mean + t R, sd^2) over R is N(mean, sd^2 + t^2), with no integral over R.
  void simplify() {
    constexpr double kNone = 1e-9;
    for (std::size_t i = 0; i < ties.size(); ++i) {
      if (std::abs(ties[i]) < kNone) ties[i] = 0;
    }
    if (std::count_if(ties.begin(), ties.end(), [](double t) { return t != 0; }) == 1) {
      for (std::size_t i = 0; i < ties.size(); ++i) {
        laws[i].sd = std::hypot(laws[i].sd, ties[i]);
        ties[i] = 0;
      }
    }
    for (auto& law : laws) {
      if (law.sd < kNone) law.sd = 0;
    }
  }
  // Where f(R) may kink or step: deterministic logits crossing one another or the floor.
  std::vector<double> crossings(double floor) const {
    std::vector<double> points;
    for (std::size_t a = 0; a < laws.size(); ++a) {
      if (laws[a].sd != 0) continue;
      if (std::isfinite(floor) && ties[a] != 0) points.push_back((floor - laws[a].mean) / ties[a]);
      for (std::size_t b = a + 1; b < laws.size(); ++b) {
        if (laws[b].sd == 0 && ties[a] != ties[b])
          points.push_back((laws[b].mean - laws[a].mean) / (ties[a] - ties[b]));
      }
    }
    return points;
  }
};

// E[f(R)], R ~ N(0, 1) (f(0) when nothing is tied): adaptive Gauss-Kronrod between the
// crossings and +-0, 3, 9.
template <class F>
double over_factor(const Tied& needle, double floor, const Precision& precision, F f) {
  if (!needle.tied()) return f(0.0);
  auto points = needle.crossings(floor);
  std::erase_if(points, [](double r) { return !(std::abs(r) < kReach); });
  points.insert(points.end(), {-kReach, -3.0, 0.0, 3.0, kReach});
  std::sort(points.begin(), points.end());
  double sum = 0;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    if (!(points[i] < points[i + 1])) continue;
    auto g = [&](double r) { return portable::exp(log_normal_pdf(r)) * f(r); };
    sum += integrate(g, points[i], points[i + 1], precision.factor, kFactorDepth);
  }
  return sum;
}

// P(exactly the kept set passes stage 1), over the selection's factor: none when it is more
// than k or leaves room for more than the others.
double kept_over_factor(const Tied& kept, const Tied& dropped, std::int64_t k, std::int64_t n,
                        const Precision& precision) {
  const auto j = k - static_cast<std::int64_t>(kept.laws.size());
  if (j < 0 || j > n || (j == n && dropped.laws.empty())) return 0;
  std::optional<OthersLaw> law;  // D_(j+1)
  if (j < n) law.emplace(n, j + 1, precision.fast);
  std::optional<FixedRule> rule;
  if (j < n && precision.fast) rule = stage_one_rule(n, j);
  Tied all = kept;
  for (std::size_t i = 0; i < dropped.laws.size(); ++i) all.add(dropped.laws[i], dropped.ties[i]);
  return over_factor(all, -kInfinity, precision, [&](double r) {
    const Extreme x{kept.at(r), true, precision.fast}, y{dropped.at(r), false, precision.fast};
    if (rule) return kept_below_fixed(x, y, *rule, law->d);
    return law ? kept_below_count(x, y, *law, precision.piece)
               : kept_all_others(x, y, n, precision.piece);
  });
}

// The table read's stage 2: P(max X > max(M, floor)), M the maximum of `against` iid N(0, 1)
// (`rival` its law), = the integral over M's density above the floor of 1 - P(max X <= y), plus
// the atom P(M <= floor) (1 - P(max X <= floor)).
double stage_two(const Extreme& needle, const std::optional<OthersLaw>& rival,
                 const std::optional<FixedRule>& rule, double floor, double tolerance) {
  const bool floored = std::isfinite(floor);
  const double atom = floored ? 1 - needle.below(floor) : 1.0;
  if (!rival) return atom;  // no distractor
  if (rule && !floored) {
    const double p = rule->sum(
        {&needle},
        [&](std::size_t i) { return rule->density[i] * (1 - needle.below(rule->nodes[i])); },
        [&](double y) { return portable::exp(rival->d.log_density(y)) * (1 - needle.below(y)); });
    return std::clamp(p, 0.0, 1.0);
  }
  auto points = rival->quantiles;
  const double lo = floored ? std::max(points.front(), floor) : points.front();
  const double hi = points.back();
  for (const auto& place : needle.places) {
    for (double k : {-3.0, 0.0, 3.0}) points.push_back(place.mean + k * place.sd);
  }
  if (floored) points.push_back(floor);
  std::erase_if(points, [&](double v) { return v < lo || v > hi; });
  std::sort(points.begin(), points.end());
  const double p = over_pieces(points, tolerance, [&](double y) {
    return portable::exp(rival->d.log_density(y)) * (1 - needle.below(y));
  });
  const double below_floor =
      floored ? portable::exp(rival->d.n * log_normal_cdf_double(floor)) : 0.0;
  return std::clamp(p + below_floor * atom, 0.0, 1.0);
}

// Stage 2 of the kept places and a variant's raw tokens against `against` others.
double read_kept(Tied all, std::int64_t against, double floor, const Precision& precision) {
  if (!precision.fast) {
    return over_factor(all, floor, precision,
                       [&](double r) { return needle_success_above(all.at(r), against, floor); });
  }
  all.simplify();
  std::optional<OthersLaw> rival;
  std::optional<FixedRule> rule;
  if (against > 0) {
    rival.emplace(against, 1, true);
    rule.emplace(rival->d, rival->d.quantiles(kFineQuantiles));
  }
  return over_factor(all, floor, precision, [&](double r) {
    return stage_two({all.at(r), false, true}, rival, rule, floor, precision.piece);
  });
}

}  // namespace

std::vector<TwoStageValue> two_stage_variants(std::span<const TwoStagePlace> entries,
                                              const TwoStageRest& rest,
                                              std::span<const StageTwoVariant> variants,
                                              ReadAccuracy accuracy) {
  const auto m = static_cast<int>(entries.size());
  PHASESIM_EXPECT(m <= kMaxPlaces);
  const auto precision = precision_of(accuracy);
  const std::int64_t n = rest.entries;
  const bool selects = rest.top_k < n + m;
  const double floor = rest.sink.value_or(-kInfinity);
  Tied selection;  // every place's score, a single tie folded in the table read
  for (const auto& e : entries) {
    PHASESIM_EXPECT(!e.raw);
    selection.add(e.selection, e.selection_tie);
  }
  if (precision.fast) selection.simplify();
  std::vector<TwoStageValue> values(variants.size());
  for (std::uint32_t set = 0; set < (1u << m); ++set) {
    if (!selects && set + 1 != (1u << m)) continue;  // every entry passes
    Tied kept, dropped, read;
    for (int i = 0; i < m; ++i) {
      const auto x = static_cast<std::size_t>(i);
      const bool in = (set >> i & 1u) != 0;
      (in ? kept : dropped).add(selection.laws[x], selection.ties[x]);
      if (in) read.add(entries[x].attention, entries[x].attention_tie);
    }
    const double p = selects ? kept_over_factor(kept, dropped, rest.top_k, n, precision) : 1.0;
    if (p == 0) continue;
    const auto s = static_cast<std::int64_t>(kept.laws.size());
    const auto kept_others = selects ? std::min(n, rest.top_k - s) : n;
    // Raw blocks: each kept entry's W raw tokens, less the needle's own in its kept places.
    const auto others =
        rest.block_tokens > 0 ? rest.block_tokens * (kept_others + s) - s : kept_others;
    for (std::size_t v = 0; v < variants.size(); ++v) {  // stage 2 of each variant
      auto all = read;
      const auto& raw = variants[v].raw;
      for (std::size_t t = 0; t < raw.size(); ++t)
        all.add(raw[t], t < variants[v].raw_tie.size() ? variants[v].raw_tie[t] : 0.0);
      if (all.laws.empty()) continue;
      values[v].selected += p;
      values[v].retrieved +=
          p * read_kept(all, others + variants[v].raw_haystack, floor, precision);
    }
  }
  for (auto& v : values) {
    v.selected = std::clamp(v.selected, 0.0, 1.0);
    v.retrieved = std::clamp(v.retrieved, 0.0, 1.0);
  }
  return values;
}

TwoStageValue two_stage_success(std::span<const TwoStagePlace> places, const TwoStageRest& rest) {
  std::vector<TwoStagePlace> entries;
  StageTwoVariant variant{{}, rest.raw, {}};
  for (const auto& p : places) {
    if (p.raw) {
      variant.raw.push_back(p.attention);
      variant.raw_tie.push_back(p.attention_tie);
    } else {
      entries.push_back(p);
    }
  }
  return two_stage_variants(entries, rest, std::span(&variant, 1)).front();
}

std::vector<StageTwoVariant> far_and_window_variants(double beta, std::int64_t sliding_window) {
  std::vector<StageTwoVariant> variants{{{}, sliding_window, {}}};
  if (sliding_window > 0) variants.push_back({{{beta, 0.0}}, sliding_window - 1, {}});
  return variants;
}

}  // namespace phasesim::channel
