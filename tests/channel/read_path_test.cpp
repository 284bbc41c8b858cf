// The read path's quadrature (channel/read_path.hpp) against closed forms, and its table
// accuracy against its exact read.
#include "phasesim/channel/read_path.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "phasesim/channel/needle_read.hpp"

using namespace phasesim::channel;

namespace {

double phi(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

// E[f(X)] for X ~ N(mean, sd) by the midpoint rule over +-12 sd (smooth integrands).
template <class F>
double expect(double mean, double sd, F f) {
  const int steps = 200000;
  const double h = 24.0 * sd / steps;
  double sum = 0;
  for (int i = 0; i < steps; ++i) {
    const double x = mean - 12 * sd + (i + 0.5) * h;
    const double z = (x - mean) / sd;
    sum += h * std::exp(-0.5 * z * z) / (sd * std::sqrt(2 * std::numbers::pi)) * f(x);
  }
  return sum;
}

}  // namespace

TEST_CASE("two stages: keeping every entry is section 4's channel") {
  const TwoStagePlace places[] = {{{2.0, 0.6}, {1.0, 0.8}, false}, {{1.5, 0.9}, {0.0, 1.0}, false}};
  const NeedleEntry needle[] = {{2.0, 0.6}, {1.5, 0.9}};
  const auto value = two_stage_success(places, {998, 1000, 0, std::nullopt});
  CHECK(value.selected == doctest::Approx(1));
  CHECK(value.retrieved == doctest::Approx(needle_success(needle, 998).probability).epsilon(1e-10));
}

TEST_CASE("two stages, k = 1 and k = 2, one place: P(S above the k-th of n) times stage 2") {
  const std::int64_t n = 500;
  const TwoStagePlace place[] = {{{1.0, 0.5}, {2.5, 0.7}, false}};
  // k = 1: selected iff S beats all n: E[Phi(S)^n]; nothing else reaches stage 2 but the sink.
  const double selected1 = expect(2.5, 0.7, [&](double s) { return std::pow(phi(s), n); });
  const auto one = two_stage_success(place, {n, 1, 0, std::nullopt});
  CHECK(one.selected == doctest::Approx(selected1).epsilon(1e-8));
  CHECK(one.retrieved == doctest::Approx(selected1).epsilon(1e-8));
  const auto sink = two_stage_success(place, {n, 1, 0, 1.2});
  CHECK(sink.retrieved == doctest::Approx(selected1 * (1 - phi((1.2 - 1.0) / 0.5))).epsilon(1e-8));
  // k = 2: selected iff at most one of n is above S; then X against one kept distractor.
  const double selected2 = expect(2.5, 0.7, [&](double s) {
    return std::pow(phi(s), n) + n * std::pow(phi(s), n - 1) * (1 - phi(s));
  });
  const NeedleEntry x[] = {{1.0, 0.5}};
  const auto two = two_stage_success(place, {n, 2, 0, std::nullopt});
  CHECK(two.selected == doctest::Approx(selected2).epsilon(1e-8));
  CHECK(two.retrieved ==
        doctest::Approx(selected2 * needle_success(x, 1).probability).epsilon(1e-8));
}

TEST_CASE("two stages: a raw needle token always passes stage 1, and a window adds distractors") {
  const TwoStagePlace places[] = {{{0.5, 0.9}, {-3.0, 0.5}, false}, {{4.0, 0.0}, {}, true}};
  const auto value = two_stage_success(places, {4000, 8, 127, std::nullopt});
  CHECK(value.selected == doctest::Approx(1));
  // The raw token at beta = 4 against k - |S| kept entries and 127 raw tokens (the compressed
  // place is almost never kept, its selection mean at -3): close to Phi(4)^(8 + 127).
  CHECK(value.retrieved == doctest::Approx(std::pow(phi(4.0), 135)).epsilon(2e-3));
  CHECK(value.retrieved >= std::pow(phi(4.0), 135) - 1e-12);
}

TEST_CASE("the channel against a floor: the sink's atom") {
  const NeedleEntry needle[] = {{1.0, 0.0}};
  // A step at 1: read iff 1 > max(M_n, c); with c = 2 never, with c = 0 iff M_n < 1.
  CHECK(needle_success_above(needle, 50, 2.0) == doctest::Approx(0).epsilon(1e-12));
  CHECK(needle_success_above(needle, 50, 0.0) ==
        doctest::Approx(std::pow(phi(1.0), 50)).epsilon(1e-10));
  const NeedleEntry wide[] = {{0.3, 0.8}};
  CHECK(needle_success_above(wide, 0, 0.5) == doctest::Approx(1 - phi(0.2 / 0.8)).epsilon(1e-12));
}

TEST_CASE("two stages, raw blocks: P(block kept) x P(beta > max(M_{k W - 1 + window}, sink))") {
  // One block of W = 16 raw tokens holds the needle (selection score N(2.5, 0.7)); stage 2
  // reads its token at u = 1 (logit 3, sd 0) against the kept blocks' other raw tokens.
  const std::int64_t n = 500, W = 16;
  const TwoStagePlace place[] = {{{3.0, 0.0}, {2.5, 0.7}, false}};
  TwoStageRest rest{n, 1, 0, std::nullopt, W};
  const double kept1 = expect(2.5, 0.7, [&](double s) { return std::pow(phi(s), n); });
  const auto one = two_stage_success(place, rest);
  CHECK(one.selected == doctest::Approx(kept1).epsilon(1e-8));
  CHECK(one.retrieved == doctest::Approx(kept1 * std::pow(phi(3.0), W - 1)).epsilon(1e-8));
  // k = 3, a window of 40 raw tokens and a sink at 2.5: 3 W - 1 + 40 rivals above the sink.
  rest = {n, 3, 40, 2.5, W};
  const double kept3 = expect(2.5, 0.7, [&](double s) {
    const double p = phi(s);
    return std::pow(p, n) + n * std::pow(p, n - 1) * (1 - p) +
           0.5 * n * (n - 1) * std::pow(p, n - 2) * (1 - p) * (1 - p);
  });
  const auto three = two_stage_success(place, rest);
  CHECK(three.selected == doctest::Approx(kept3).epsilon(1e-8));
  CHECK(three.retrieved ==
        doctest::Approx(kept3 * std::pow(phi(3.0), 3 * W - 1 + 40)).epsilon(1e-8));
}

TEST_CASE("two stages, tied places: one place's tie is more noise, and +-t ties read max + t|R|") {
  // A place m + t R + s Z is the untied place of sd sqrt(s^2 + t^2), in both stages.
  const std::int64_t n = 500;
  const TwoStagePlace tied[] = {{{1.0, 0.4}, {2.5, 0.5}, false, 0.3, 0.5}};
  const TwoStagePlace plain[] = {{{1.0, 0.5}, {2.5, std::sqrt(0.5)}, false}};
  for (const TwoStageRest rest : {TwoStageRest{n, 2, 30, 0.5}, TwoStageRest{n, n + 1, 0, {}}}) {
    const auto a = two_stage_success(tied, rest);
    const auto b = two_stage_success(plain, rest);
    CHECK(a.selected == doctest::Approx(b.selected).epsilon(1e-9));
    CHECK(a.retrieved == doctest::Approx(b.retrieved).epsilon(1e-9));
  }
  // Two deterministic places m +- t R (a 2-token needle in unpooled entries, correlation -1),
  // none dropped: read iff m + t |R| beats n others, E = 2 int_0^inf phi(r) Phi(m + t r)^n dr.
  const TwoStagePlace pair[] = {{{2.0, 0.0}, {}, false, 0.7, 0.0},
                                {{2.0, 0.0}, {}, false, -0.7, 0.0}};
  const double exact =
      expect(0.0, 1.0, [&](double r) { return std::pow(phi(2.0 + 0.7 * std::abs(r)), n); });
  CHECK(two_stage_success(pair, {n, n + 2, 0, {}}).retrieved ==
        doctest::Approx(exact).epsilon(1e-9));
}

TEST_CASE("two stages, 2-token needles: experiments/v41-mechanism/preset_fit.py's caches") {
  // `preset_fit.py OUT 2.824 4.933` (its grids, step 0.01 in R): a ratio-2 cache reads an
  // aligned needle (one entry, u = 1) 0.21933906772898296, a straddling one (two entries, u =
  // 1/2, correlation -1/3) 0.008348869389516796; the ratio-1 cache (two unpooled tokens,
  // correlation -1) at beta 4.933 0.8948095847666089. Top 512, a window of 128, the sink at 0.
  const double beta = 2.824, beta_1 = 4.933, half = 1 / std::numbers::sqrt2;
  const TwoStagePlace aligned[] = {{{beta, 0.0}, {beta, 0.0}, false}};
  CHECK(two_stage_success(aligned, {65535, 512, 128, 0.0}).retrieved ==
        doctest::Approx(0.21933906772898296).epsilon(1e-5));
  const NeedleEntry part{beta / 2, half};  // u = 1/2: sd^2 = 3/4 - 1/4 tied
  const TwoStagePlace straddling[] = {{part, part, false, 0.5, 0.5},
                                      {part, part, false, -0.5, -0.5}};
  CHECK(two_stage_success(straddling, {65534, 512, 128, 0.0}).retrieved ==
        doctest::Approx(0.008348869389516796).epsilon(1e-5));
  // The ratio-1 cache by scipy's adaptive quad of the same sum over kept sets (both kept: the
  // lower m - t|R| above all but k - 2 of the others; one: the higher; stage 2 over R_A),
  // epsrel 1e-13: 0.894811320341, which the grids miss by 1.7e-6 (the max's kink at R = 0).
  const NeedleEntry token{beta_1 * half, 0.0};
  const TwoStagePlace flat[] = {{token, token, false, half, half},
                                {token, token, false, -half, -half}};
  const double read = two_stage_success(flat, {131070, 512, 128, 0.0}).retrieved;
  CHECK(read == doctest::Approx(0.8948095847666089).epsilon(1e-5));
  CHECK(std::abs(read - 0.894811320341) < 1e-9);
}

TEST_CASE("the table read is within 2e-9 of the exact read, steps and corners included") {
  // diagnose's 2-token tables read at ReadAccuracy::table (read_path.hpp). W = S = 4: the aligned
  // needle (one entry) and the straddling one (two tied entries), gates over the quarter circle
  // of their two slots' weights, corners (one slot alone, sd 0) and the diagonal (u = 1 but for
  // the last bits) included, far from the query and in the window. Measured over 420 gates
  // (radii 0.5 to 1, 7 angles, both phases, betas 2, 5, 9, both N): at most 1.3e-9.
  using namespace phasesim;
  const Geometry geometry{4, 4};
  for (const std::int64_t entries : {512, 32768}) {
    HeadRead read;
    read.entries = entries;
    read.top_k = entries == 512 ? 16 : 512;
    read.sliding_window = entries == 512 ? 16 : 128;
    for (const double beta : {2.0, 6.0}) {
      read.beta = read.index_beta = beta;
      for (const double r : {0.8, 0.999, 1.0}) {
        for (const int j : {0, 3, 6}) {
          // the exact read's time (0.1 s at N = 512, 0.15 s at 32768)
          if (entries > 512 ? beta < 6 || r < 1 || j == 6 : beta > 2 || (r == 0.8 && j != 3))
            continue;
          const double psi = std::numbers::pi / 2 * j / 6;
          const double a = r * std::cos(psi), b = r * std::sin(psi);
          const double rest = std::sqrt(std::max(0.0, 1 - r * r) / 2);
          for (const int phi : {0, 3}) {  // phi 0: slots 0 and 1; phi 3: slots 3 and 0
            Gate gate;
            gate.spec = "test";
            gate.weights = phi == 0 ? std::vector<double>{a, b, rest, rest}
                                    : std::vector<double>{b, rest, rest, a};
            const auto stages = needle_stages(geometry, gate, gate, read, phi, 2);
            const auto exact = needle_read_values(stages);
            const auto table = needle_read_values(stages, ReadAccuracy::table);
            for (std::size_t v = 0; v < exact.size(); ++v) {
              CAPTURE(entries);
              CAPTURE(beta);
              CAPTURE(r);
              CAPTURE(j);
              CAPTURE(phi);
              CHECK(std::abs(table[v].selected - exact[v].selected) < 2e-9);
              CHECK(std::abs(table[v].retrieved - exact[v].retrieved) < 2e-9);
            }
          }
        }
      }
    }
  }
}
