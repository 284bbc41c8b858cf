#include "phasesim/diagnose/diagnose.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "phasesim/channel/needle_read.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/model/geometry.hpp"
#include "phasesim/niah/needle.hpp"
#include "phasesim/stats/binomial.hpp"
#include "table_fits.hpp"

namespace phasesim::diagnose {
namespace {

// The fits' work grows with phases (the one-head model's allocation) and heads (the
// assignment's dynamic programme): bounded up front.
constexpr int kMaxFitPhases = 64;
constexpr int kMaxHeads = 256;
constexpr int kMaxWindow = 1 << 20;
constexpr double kMaxTokenFitSeconds = 4 * 3600;
constexpr double kMaxTokenHeadsWork = 1e9;                    // about 0.5 s a beta
constexpr std::int64_t kManyEntries = std::int64_t{1} << 40;  // more than any needle needs

template <typename T>
void take(std::optional<T> given, std::optional<T> from_table, std::optional<T>& value,
          Source& source) {
  value = given ? given : from_table;
  source = given ? Source::given : from_table ? Source::table : Source::unknown;
}

// m_phi for each of the S phases: from the geometry when the window is known, else 1
// (window <= stride assumed).
std::vector<int> multiplicities(const DiagnosedArchitecture& a, int stride) {
  std::vector<int> m(static_cast<std::size_t>(stride), 1);
  if (!a.window) return m;
  const Geometry geometry{*a.window, stride};
  for (int phi = 0; phi < stride; ++phi)
    m[static_cast<std::size_t>(phi)] = geometry.multiplicity(phi);
  return m;
}

// For a needle of 2 tokens: the entries that hold either token of a needle of each phase.
std::vector<int> token_holders(const DiagnosedArchitecture& a, int stride) {
  const Geometry geometry{*a.window, stride};
  std::vector<int> m;
  for (int phi = 0; phi < stride; ++phi) {
    const auto p = channel::position_of_phase(geometry, phi);
    const auto first = geometry.entries_holding(p, kManyEntries);
    const auto second = geometry.entries_holding(p + 1, kManyEntries);
    const auto low = std::min(first.first, second.first);
    const auto high = std::max(first.last, second.last);
    std::int64_t count = 0;
    for (auto e = low; e <= high; ++e) count += geometry.holds(e, p) || geometry.holds(e, p + 1);
    m.push_back(static_cast<int>(count));
  }
  return m;
}

// Chance of each of the P phase classes: a phase no head covers succeeds with
// 1 - (1 - m/N)^H; a class averages the phases it pools (P < S when G does not resolve them).
std::vector<double> class_chance(const std::vector<int>& m, int phases, std::int64_t entries,
                                 int heads) {
  const auto stride = static_cast<int>(m.size());
  std::vector<double> chance(static_cast<std::size_t>(phases), 0.0);
  for (int phi = 0; phi < stride; ++phi) {
    const double one =
        static_cast<double>(m[static_cast<std::size_t>(phi)]) / static_cast<double>(entries);
    chance[static_cast<std::size_t>(phi % phases)] +=
        -portable::expm1(heads * portable::log1p(-one)) / (stride / phases);
  }
  return chance;
}

// The share of the table's needles in the sliding window, as niah places them (MODEL.md
// section 5: group r at k G + r, k uniform over one range that keeps every entry holding the
// needle complete before the query): a needle is in the window when all its tokens are in the
// last `sliding_window` tokens of the context (niah::window_reach). Window /
// context where the geometry is not known, or where niah's protocol cannot place the groups
// in the context (the table did not come from it). At W = S = 4, L = 2048 and a 64-token
// window, 15 of a group's 510 needles: 0.0294, not 64 / 2048 = 0.0313.
double window_share(const DiagnosedArchitecture& a, int groups) {
  if (a.sliding_window <= 0) return 0;
  const double even =
      std::min(1.0, static_cast<double>(a.sliding_window) / static_cast<double>(a.context));
  if (!a.window || !a.stride) return even;
  niah::NeedlePlan plan;
  try {
    plan =
        niah::plan_needles(Geometry{*a.window, *a.stride}, a.context, groups, 1, a.needle_tokens);
  } catch (const InputError&) {
    return even;
  }
  const auto reach = niah::window_reach(a.context, a.sliding_window, a.needle_tokens);
  std::int64_t inside = 0;
  for (int r = 0; r < groups; ++r) inside += plan.positions_from(r, reach);
  return static_cast<double>(inside) / static_cast<double>(groups * plan.block_count);
}

FitInput fit_input(const PhaseProfile& profile, const std::vector<int>& m, std::int64_t entries,
                   const DiagnosedArchitecture& a, int heads, bool spread) {
  FitInput input;
  input.entries = entries;
  input.heads = heads;
  input.top_k = a.top_k;
  input.sliding_window = a.sliding_window;
  if (a.needle_tokens == 2) {
    input.window = *a.window;
    input.stride = *a.stride;
    input.needle_tokens = 2;
    const Geometry geometry{*a.window, *a.stride};
    for (const auto& p : profile.phases) {
      input.phases.push_back(
          {p.successes,
           p.trials,
           {m[static_cast<std::size_t>(p.phase)], geometry.multiplicity(p.phase)}});
    }
    return input;
  }
  for (const auto& p : profile.phases) {
    const int holding = m[static_cast<std::size_t>(p.phase)];
    input.phases.push_back(
        {p.successes, p.trials, {holding, spread ? holding : std::min(1, holding)}});
  }
  return input;
}

void add_fits(const DiagnosedArchitecture& a, const std::vector<int>& m, Diagnosis& d,
              const Parallel& parallel) {
  const int stride = static_cast<int>(m.size());
  const auto input = [&](int heads, bool spread) {
    auto in = fit_input(d.profile, m, d.entries, a, heads, spread);
    in.window_share = d.window_share;
    return in;
  };
  if (d.phases < stride) {
    d.fit_note = "no fit: the groups pool " + std::to_string(stride / d.phases) +
                 " phases each (the group count and the stride " + std::to_string(stride) +
                 " share only " + std::to_string(d.phases) +
                 "), so per-phase accuracies are not identifiable";
    return;
  }
  if (d.phases > kMaxFitPhases) {
    d.fit_note = "no fit: more than " + std::to_string(kMaxFitPhases) + " phases";
    return;
  }
  if (*std::max_element(m.begin(), m.end()) == 0) {
    d.fit_note = "no fit: every phase is structurally blind (window below the stride)";
    return;
  }
  if (a.needle_tokens == 2) {
    if (a.heads > 1) {
      if (two_token_heads_work(stride, a.heads) > kMaxTokenHeadsWork) {
        d.fit_note = "no fit: " + std::to_string(a.heads) + " heads over " +
                     std::to_string(stride) +
                     " phases with 2-token needles (the assignment's exact search takes S (H + "
                     "1)^4 steps a beta, more than 10^9)";
        return;
      }
      d.fits.push_back(
          {Assumption::two_token_heads, fit_two_token_heads(input(a.heads, false), parallel), {}});
      return;
    }
    d.fits.push_back(
        {Assumption::two_token_needles, fit_two_token_needles(input(1, false), parallel), {}});
    return;
  }
  if (a.heads > 1) {
    d.fits.push_back({Assumption::one_hot_heads, fit_one_hot_heads(input(a.heads, false)), {}});
    return;
  }
  d.fits.push_back({Assumption::one_slot_per_phase, fit_one_head(input(1, false), parallel), {}});
  if (*std::max_element(m.begin(), m.end()) > 1) {
    d.fits.push_back({Assumption::spread_over_slots, fit_one_head(input(1, true), parallel), {}});
  }
}

std::vector<std::string> assumptions(const DiagnosedArchitecture& a, const Diagnosis& d) {
  std::vector<std::string> list;
  if (a.context_source == Source::assumed) {
    list.push_back("context " + std::to_string(a.context) +
                   " tokens assumed (the paper's 128K; give --context)");
  }
  if (!a.stride && d.phases > 1) {
    list.push_back("stride taken as the detected period " + std::to_string(d.phases) +
                   ", window at most the stride (give --window and --stride)");
  } else if (!a.stride) {
    list.push_back("no period and no --stride: one phase, as in full attention");
  } else if (!a.window) {
    list.push_back("window at most the stride: one entry holds each needle (give --window)");
  }
  if (a.heads_source == Source::assumed) list.push_back("one head assumed (give --heads)");
  if (a.top_k || a.sliding_window > 0) {
    list.push_back(
        "read path: stage 1 keeps the top " +
        (a.top_k ? std::to_string(*a.top_k) : std::string("every entry")) +
        " by a selection score of the attention's gate and beta (rho = 0), stage 2 reads them " +
        "against " + std::to_string(a.sliding_window) + " raw window tokens, a share " +
        format_fixed(d.window_share, 4) +
        " of the needles (placed as niah places them) read raw there; chance stays m/N");
  }
  list.push_back("blind: the phase's 95% interval reaches chance, 1 - (1 - m/N)^H with N = " +
                 std::to_string(d.entries) + " entries");
  for (const auto& f : d.fits) {
    if (f.assumption == Assumption::one_slot_per_phase && d.fits.size() > 1) {
      list.push_back(
          "window above the stride: a phase's weight sits on one of its slots (one "
          "slot per phase) or spreads evenly over them; the table cannot tell which, "
          "so both fits are shown, and each interval holds only if its assumption does "
          "(a gate in between, weighting a phase's slots unequally, biases both)");
    }
    if (f.assumption == Assumption::two_token_needles) {
      list.push_back(
          "2-token needles, one head: every slot of a phase weighs the same u (W <= S: the "
          "phase's slot; W > S: spread over its slots), each phase's success the analytic "
          "engine's read of a needle starting there; 'one slot per phase' is not fitted, "
          "since which of a phase's slots holds its weight changes which entries a 2-token "
          "needle falls in, and the table cannot tell; with W = S = 2 the two weights only up "
          "to their order (a gate and its mirror make the same table; each interval covers "
          "both)");
    }
    if (f.assumption == Assumption::two_token_heads) {
      list.push_back(
          "2-token needles, one-hot heads: every head puts all its weight on the first slot of "
          "one phase (T2 lock-in); a head on phase phi or phi + 1 sees one token of a needle "
          "starting at phi, any other none; the heads read independently; a large deviance "
          "says the heads are not one-hot");
    }
    if (f.assumption == Assumption::one_hot_heads) {
      list.push_back(
          "one-hot heads: every head puts all its weight on one slot (T2 lock-in); "
          "a large deviance says the heads are not one-hot");
    }
  }
  return list;
}

Json estimate_json(const PhaseEstimate& e) {
  return {
      {"phase", e.phase}, {"accuracy", e.accuracy}, {"ci_low", e.ci_low}, {"ci_high", e.ci_high}};
}

Json fit_json(const LabelledFit& labelled) {
  const auto& f = labelled.fit;
  const auto& t = labelled.table;
  Json phases = Json::array();
  for (const auto& p : f.phases) {
    phases.push_back({{"phase", p.phase},
                      {"accuracy", p.accuracy},
                      {"weight", optional_json(p.weight)},
                      {"weight_low", optional_json(p.weight_low)},
                      {"weight_high", optional_json(p.weight_high)},
                      {"coverage", optional_json(p.coverage)},
                      {"heads", optional_json(p.heads)},
                      {"heads_low", optional_json(p.heads_low)},
                      {"heads_high", optional_json(p.heads_high)}});
  }
  return {{"assumption", assumption_name(labelled.assumption)},
          {"model", model_name(f.model)},
          {"beta", f.beta},
          {"beta_low", f.beta_low},
          {"beta_high", optional_json(f.beta_high)},
          {"log_likelihood", f.log_likelihood},
          {"deviance", f.deviance},
          {"deviance_df", f.deviance_df},
          {"deviance_p", optional_json(f.deviance_p)},
          {"table_deviance", t.deviance},
          {"table_deviance_df", t.df},
          {"table_deviance_p", optional_json(t.p)},
          {"misfit", t.misfit},
          {"phases", phases}};
}

}  // namespace

const char* source_name(Source source) {
  switch (source) {
    case Source::given:
      return "given";
    case Source::table:
      return "table";
    case Source::assumed:
      return "assumed";
    case Source::unknown:
      return "unknown";
  }
  return "";
}

const char* assumption_name(Assumption assumption) {
  switch (assumption) {
    case Assumption::one_slot_per_phase:
      return "one slot per phase";
    case Assumption::spread_over_slots:
      return "spread over the phase's slots";
    case Assumption::one_hot_heads:
      return "one-hot heads";
    case Assumption::two_token_needles:
      return "2-token needles, one head";
    case Assumption::two_token_heads:
      return "2-token needles, one-hot heads";
  }
  return "";
}

const char* phases_from_name(PhasesFrom from) {
  switch (from) {
    case PhasesFrom::stride:
      return "stride";
    case PhasesFrom::period:
      return "period";
    case PhasesFrom::flat:
      return "flat";
  }
  return "";
}

DiagnosedArchitecture resolve_architecture(const CountTable& table, const DiagnoseSpec& spec) {
  DiagnosedArchitecture a;
  take(spec.window, table.architecture.window, a.window, a.window_source);
  take(spec.stride, table.architecture.stride, a.stride, a.stride_source);
  std::optional<std::int64_t> context;
  take(spec.context, table.architecture.context, context, a.context_source);
  a.context = context.value_or(kAssumedContext);
  if (!context) a.context_source = Source::assumed;
  std::optional<int> heads;
  take(spec.heads, table.architecture.heads, heads, a.heads_source);
  a.heads = heads.value_or(1);
  if (!heads) a.heads_source = Source::assumed;
  if (a.window) {
    require(*a.window >= 1 && *a.window <= kMaxWindow,
            "invalid --window " + std::to_string(*a.window) + " (must be from 1 to " +
                std::to_string(kMaxWindow) + ")");
  }
  if (a.stride) {
    require(*a.stride >= 1 && *a.stride <= kMaxWindow,
            "invalid --stride " + std::to_string(*a.stride) + " (must be from 1 to " +
                std::to_string(kMaxWindow) + ")");
  }
  require(a.heads >= 1 && a.heads <= kMaxHeads, "invalid --heads " + std::to_string(a.heads) +
                                                    " (must be from 1 to " +
                                                    std::to_string(kMaxHeads) + ")");
  if (spec.top_k) {
    require(*spec.top_k >= 1,
            "invalid --top-k " + std::to_string(*spec.top_k) + " (must be at least 1)");
  }
  if (spec.sliding_window) {
    require(*spec.sliding_window >= 0, "invalid --sliding-window " +
                                           std::to_string(*spec.sliding_window) +
                                           " (must be at least 0)");
  }
  a.needle_tokens = spec.needle_tokens.value_or(1);
  require(a.needle_tokens == 1 || a.needle_tokens == 2,
          "invalid --needle-tokens " + std::to_string(a.needle_tokens) +
              " (diagnose fits needles of 1 or 2 tokens, as niah --engine analytic computes "
              "them; niah --engine fast computes tables of longer needles)");
  require(a.needle_tokens == 1 || (a.window && a.stride),
          "invalid --needle-tokens 2 without --window and --stride (where a needle's two "
          "tokens fall is the geometry's: give both, or a niah JSON that has them)");
  a.top_k = spec.top_k;
  a.sliding_window = spec.sliding_window.value_or(0);
  const int stride = a.stride.value_or(table.size());
  require(a.context >= 2 * static_cast<std::int64_t>(stride),
          "invalid --context " + std::to_string(a.context) + " (must be at least " +
              std::to_string(2 * static_cast<std::int64_t>(stride)) +
              " tokens: two entries of the stride, or of the group count without one)");
  return a;
}

namespace {

// The 2-token fit tabulates, at each beta of the profile (its scan of 13 from 0 to 40, then
// about 30 near the answer), each kind of phase: a value when one phase carries weight, a curve
// of 21 + 3 ceil(beta) nodes when two do, a surface of its square when more do (2256 and 135702
// nodes over the profile), half of it where the kind is its own mirror (tokens_fit.cpp: with
// W = S every kind) and none for a phase whose mirror made it. Two or more phases carrying
// weight add the weight intervals' 13 betas. A node is the needle's read at the table accuracy, its
// cost set by the entries that hold the needle: measured (BM_TokenRead, one core, N = 32768, beta
// 5) 1.6, 6.9 and 21 ms for 1, 2 and 3 entries under top-k 512 with a 128-token window, about 3.5
// times an entry; by the argmax about 0.2 ms an entry (W = S = 4 at L = 2048: 54 s of CPU
// without the intervals).
// Measured fits against it (one thread): W = S = 2, top-k 64, L = 2048: 11 s (12 s estimated);
// W = S = 4 by the argmax, L = 2048: 68 s with the weight intervals (81 s); W = S = 4, top-k
// 512, L = 131072: 415 s (11 minutes). The 4 h limit stays: it refuses what would run past a
// working day by mistake (W 16 / S 4 under top-k: 11.7 h), and V4's W 8 / S 4 (58 minutes)
// falls well inside it.
WorkEstimate token_fit_estimate(const DiagnosedArchitecture& a) {
  const int window = *a.window, stride = *a.stride;
  const Geometry geometry{window, stride};
  const auto holders = token_holders(a, stride);
  int active = 0;
  for (int phi = 0; phi < stride; ++phi) active += geometry.multiplicity(phi) > 0 ? 1 : 0;
  const double full = active <= 1 ? 45 : active == 2 ? 2256 * 1.3 : 135702 * 1.3;
  const double half = active <= 1 ? 45 : active == 2 ? 1150 * 1.3 : 68979 * 1.3;
  const double entry = a.top_k || a.sliding_window > 0 ? 0.0017 : 0.0002;
  double seconds = 0;
  for (int phi = 0; phi < stride; ++phi) {
    const bool aligned = window == stride && phi + 1 < stride;
    if (aligned && phi > 0) continue;  // the aligned phases are alike
    const int mirror = ((-2 - phi - window) % stride + stride) % stride;
    if (window != stride && mirror < phi) continue;  // its mirror's table
    const bool symmetric = window == stride || mirror == phi;
    seconds += (symmetric ? half : full) * entry *
               std::pow(3.5, holders[static_cast<std::size_t>(phi)] - 1);
  }
  require(seconds <= kMaxTokenFitSeconds,
          "invalid --needle-tokens 2 for this architecture (the fit would take about " +
              format_fixed(seconds / 3600, 1) + " h on one core: it tabulates " +
              std::to_string(active) + " phases' weights two at a time; allowed: up to " +
              format_fixed(kMaxTokenFitSeconds / 3600, 0) +
              " h: fewer phases carrying weight, or fewer entries holding a needle)");
  return {seconds, 0};
}

// The one-hot heads' fit of 2-token needles reads, at each beta (about 65: the profile's and
// the 25 of the head ranges), each phase's needle by a head on its phase, on the next one and
// elsewhere: at most 3 S reads, each by a one-hot gate, measured 0.0046 s by section 4's argmax
// (W = S = 4, N = 4096: 3.5 s CPU) and 0.094 s under top-k 64 with a window of 128 (71 s); and
// the assignment's programme, 2 S (H + 1)^4 steps at about 0.25 ns (H = 64: 1.7 s over the fit).
WorkEstimate token_heads_estimate(const DiagnosedArchitecture& a) {
  const Geometry geometry{*a.window, *a.stride};
  const int stride = *a.stride;
  const auto seat = [&](int psi) { return geometry.multiplicity(psi) > 0; };
  int seats = 0;
  for (int psi = 0; psi < stride; ++psi) seats += seat(psi) ? 1 : 0;
  double reads = 0;
  for (int phi = 0; phi < stride; ++phi) {
    const int next = (phi + 1) % stride;
    const int covering = (seat(phi) ? 1 : 0) + (next != phi && seat(next) ? 1 : 0);
    reads += covering + (seats > covering ? 1 : 0);
  }
  const double read_seconds = a.top_k || a.sliding_window > 0 ? 0.094 : 0.0046;
  constexpr double kBetas = 65;
  return {kBetas * (reads * read_seconds + 2 * two_token_heads_work(stride, a.heads) * 0.25e-9), 0};
}

}  // namespace

WorkEstimate fit_estimate(const CountTable& table, const DiagnoseSpec& spec) {
  const auto a = resolve_architecture(table, spec);
  if (a.needle_tokens == 2) return a.heads > 1 ? token_heads_estimate(a) : token_fit_estimate(a);
  if (!a.top_k && a.sliding_window == 0) return {};
  const int stride = a.stride.value_or(table.size());
  const auto m = multiplicities(a, stride);
  const double holding = *std::max_element(m.begin(), m.end());
  // W = S = 4, N = 2048, top-k 16: 1.6 s; W = S = 8, N = 16384, top-k 4096: 1.4 s; W = 16,
  // S = 8 (m = 2), top-k 512 and a window of 128: 11.3 s for both fits.
  return {1.5 * holding * holding * (holding > 1 ? 2 : 1), 0};
}

Diagnosis diagnose(const CountTable& table, const DiagnoseSpec& spec, const Parallel& parallel) {
  Diagnosis d;
  d.architecture = resolve_architecture(table, spec);
  const auto& a = d.architecture;
  d.period = stats::test_periods(table.groups, spec.period, parallel);
  if (a.stride) {
    d.phases = std::gcd(table.size(), *a.stride);
    d.phases_from = PhasesFrom::stride;
  } else {
    d.phases = d.period.period.value_or(1);
    d.phases_from = d.period.period ? PhasesFrom::period : PhasesFrom::flat;
  }
  const int stride = a.stride.value_or(d.phases);
  d.entries = a.context / stride;
  const auto m = a.needle_tokens == 2 ? token_holders(a, stride) : multiplicities(a, stride);
  for (int holding : m) {
    require(d.entries > holding, "invalid --context " + std::to_string(a.context) +
                                     " (too short to hold a needle's entries and a distractor)");
  }
  d.profile = phase_profile(table, d.phases, class_chance(m, d.phases, d.entries, a.heads));
  // Retrieval never falls below chance: a phase far under it (deviance 30, p < 1e-7; a blind
  // phase of a true context lands below its 95% interval 2.5% of the time) says the context,
  // through the entries N that set chance, cannot be the one that made the table.
  for (const auto& p : d.profile.phases) {
    require(
        p.accuracy >= p.chance || stats::binomial_deviance(p.successes, p.trials, p.chance) < 30,
        "invalid --context " + std::to_string(a.context) + " (it gives N = " +
            std::to_string(d.entries) + " entries and chance " + format_fixed(p.chance, 4) +
            ", but phase " + std::to_string(p.phase) + " has accuracy " +
            format_fixed(p.accuracy, 4) + ", 95% interval [" + format_fixed(p.ci_low, 4) + ", " +
            format_fixed(p.ci_high, 4) + "], below chance: the context was longer)");
  }
  d.window_share = window_share(a, table.size());
  add_fits(a, m, d, parallel);
  const double within = detail::within_phases(table, d.phases);
  detail::add_table_fits(within, table.size() - d.phases, d);
  detail::add_misfit_warning(d, within);
  detail::add_search_warning(d);
  detail::add_stride_warning(table, d);
  const int power_period = d.period.period.value_or(d.phases > 1 ? d.phases : table.size());
  d.power = power_analysis(table, power_period, spec.period.alpha);
  d.assumptions = assumptions(a, d);
  return d;
}

Json diagnose_document(const std::string& table_path, const CountTable& table,
                       const DiagnoseSpec& spec, const Diagnosis& d) {
  const auto& a = d.architecture;
  auto doc = new_document("diagnose");
  doc["table"] = table_path;
  doc["table_format"] = format_name(table.format);
  doc["window"] = optional_json(a.window);
  doc["window_source"] = source_name(a.window_source);
  doc["stride"] = optional_json(a.stride);
  doc["stride_source"] = source_name(a.stride_source);
  doc["context"] = a.context;
  doc["context_source"] = source_name(a.context_source);
  doc["heads"] = a.heads;
  doc["heads_source"] = source_name(a.heads_source);
  // The read path only when given: a diagnosis without it writes the document it did before.
  if (a.top_k) doc["top_k"] = *a.top_k;
  if (spec.sliding_window) doc["sliding_window"] = a.sliding_window;
  if (spec.needle_tokens) doc["needle_tokens"] = a.needle_tokens;
  doc["replicates"] = spec.period.replicates;
  doc["seed"] = spec.period.seed;
  doc["alpha"] = spec.period.alpha;
  doc["groups"] = Json::array();
  for (const auto& g : table.groups) {
    const auto interval = stats::likelihood_interval(g.successes, g.trials);
    doc["groups"].push_back({{"group", g.group},
                             {"successes", g.successes},
                             {"trials", g.trials},
                             {"accuracy", g.accuracy()},
                             {"ci_low", interval.low},
                             {"ci_high", interval.high}});
  }
  doc["period"] = stats::period_json(d.period);
  doc["period"]["architecture_period"] =
      a.stride ? Json(std::gcd(table.size(), *a.stride)) : Json();
  Json phases = Json::array();
  for (const auto& p : d.profile.phases) {
    phases.push_back({{"phase", p.phase},
                      {"groups", p.groups},
                      {"successes", p.successes},
                      {"trials", p.trials},
                      {"accuracy", p.accuracy},
                      {"ci_low", p.ci_low},
                      {"ci_high", p.ci_high},
                      {"chance", p.chance},
                      {"blind", p.blind}});
  }
  doc["phases"] = {{"count", d.phases},
                   {"from", phases_from_name(d.phases_from)},
                   {"entries", d.entries},
                   {"phases", phases},
                   {"worst", estimate_json(d.profile.worst)},
                   {"best", estimate_json(d.profile.best)},
                   {"gap", d.profile.gap},
                   {"blind", d.profile.blind}};
  doc["fits"] = Json::array();
  for (const auto& f : d.fits) doc["fits"].push_back(fit_json(f));
  doc["fit_note"] = d.fit_note;
  doc["power"] = {{"test", "likelihood-ratio test of period " + std::to_string(d.power.period) +
                               " against flat, chi-squared reference, non-central chi-squared "
                               "power"},
                  {"period", d.power.period},
                  {"alpha", d.power.alpha},
                  {"power", d.power.power},
                  {"gap", d.power.observed.gap},
                  {"prompts_per_group", optional_json(d.power.observed.prompts)},
                  {"half_gap", d.power.half.gap},
                  {"half_gap_prompts_per_group", optional_json(d.power.half.prompts)}};
  doc["assumptions"] = d.assumptions;
  doc["warnings"] = d.warnings;
  return doc;
}

}  // namespace phasesim::diagnose
