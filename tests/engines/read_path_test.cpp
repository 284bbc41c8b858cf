// The read path (MODEL.md section 10) in every engine: the agreement suite over a grid of its
// options (k, rho, n, the window, the sink, per-channel gates, split projections, query
// heads), a brute-force standardized engine that draws every entry (the one exact reference
// where analytic does not apply: rho != 0, needles of 3 tokens), the bits of the
// plain read where nothing is dropped, and the full engine's selection on every SIMD target.
#include <doctest/doctest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "../../sim/engines/full_vector_heads.hpp"
#include "phasesim/engines/full_vector_read.hpp"
#include "phasesim/engines/full_vector_simd.hpp"
#include "phasesim/model/needle_laws.hpp"
#include "support/niah_fixture.hpp"
#include "support/threads.hpp"

using namespace phasesim;
using namespace phasesim::engines;
using namespace phasesim::niah;
using namespace phasesim::test;

namespace {

// The standardized read path with every visible entry drawn on its own (std::mt19937_64, a
// stream apart from the engines'): the needle's places from their laws and residuals, every
// other entry's (s, a) pair, the top k by sorting, the window's raw tokens, the sink.
class BruteReadEngine final : public Engine {
 public:
  std::string name() const override { return "brute-read"; }
  bool monte_carlo() const override { return true; }
  void check(const NiahModel& m) const override {
    require(!m.full_vector() && m.content_noise == 0,
            "invalid --engine brute-read (standardized, no content noise)");
  }
  std::string approximation(const NiahModel&) const override { return ""; }
  std::vector<std::string> paths(const NiahModel& m) const override {
    return std::vector<std::string>(static_cast<std::size_t>(m.heads()), "every-entry");
  }
  EngineOutput run(const NiahRun& run, const Parallel& parallel) const override {
    const auto& m = run.model;
    OutcomeTable table(run.needles.trials(), m.heads()), selected(run.needles.trials(), m.heads());
    parallel_for(parallel, run.needles.trials(), [&](std::int64_t i) {
      const auto trial = static_cast<std::uint32_t>(i);
      const std::int64_t needle = run.needles.position(m.seed, trial);
      for (int h = 0; h < m.heads(); ++h) {
        // Query heads without query noise read alike: one draw per cache.
        std::mt19937_64 rng(m.seed * 1000003 + trial * 4099 +
                            static_cast<std::uint64_t>(m.key_head(h)));
        const auto [kept, read] = read_trial(m, h, needle, rng);
        table.set(i, h, read);
        selected.set(i, h, kept);
      }
    });
    return {{}, std::move(table), {}, {}, std::move(selected)};
  }

 private:
  static std::pair<bool, bool> read_trial(const NiahModel& m, int h, std::int64_t needle,
                                          std::mt19937_64& rng) {
    std::normal_distribution<double> z;
    const auto& path = m.read_path(h);
    const auto& g = m.geometry(h);
    const int n = m.needle_tokens;
    const auto raw_from = m.context - path.sliding_window;
    const auto laws = needle_laws(g, m.gates[static_cast<std::size_t>(h)], m.split_rho(h),
                                  m.beta_effective(), needle, n, m.entries(h), raw_from);
    const auto index =
        needle_laws(g, m.index_gate(h), 1, m.index_beta(h), needle, n, m.entries(h), m.context);
    const auto residual = [&](const NeedleLaws& l) {
      std::vector<double> r(static_cast<std::size_t>(l.groups() * n));
      for (int k = 0; k < l.groups(); ++k) {
        double mean = 0;
        for (int i = 0; i < n; ++i) mean += r[static_cast<std::size_t>(k * n + i)] = z(rng);
        mean /= n;
        for (int i = 0; i < n; ++i) {
          auto& x = r[static_cast<std::size_t>(k * n + i)];
          x = (x - mean) * l.group_scales[static_cast<std::size_t>(k)];
        }
      }
      return r;
    };
    const auto ra = residual(laws), ri = residual(index);
    const auto logit = [&](const NeedleLaws& l, const NeedlePlace& p,
                           const std::vector<double>& r) {
      double x = p.mean + p.sd * z(rng);
      const auto c = l.residual(p);
      for (std::size_t i = 0; i < c.size(); ++i) x += c[i] * r[i];
      return x;
    };
    const double rho = path.index_rho, spread = std::sqrt(1 - rho * rho);
    struct Entry {
      double s, a;
      bool needle;
    };
    std::vector<Entry> entries;
    double raw_best = -std::numeric_limits<double>::infinity();
    bool raw_needle = false;
    for (std::size_t x = 0; x < laws.places.size(); ++x) {
      const double a = logit(laws, laws.places[x], ra);
      if (laws.places[x].raw) {
        if (a > raw_best) raw_best = a, raw_needle = true;
        continue;
      }
      const double i = logit(index, index.places[x], ri);
      entries.push_back({rho * a + spread * i, a, true});
    }
    const auto raw_needles = static_cast<std::int64_t>(laws.places.size() - laws.entries());
    for (std::int64_t t = 0; t < path.sliding_window - raw_needles; ++t) {
      const double a = z(rng);
      if (a > raw_best) raw_best = a, raw_needle = false;
    }
    while (static_cast<std::int64_t>(entries.size()) < m.entries(h)) {
      const double s = z(rng);
      entries.push_back({s, rho * s + spread * z(rng), false});
    }
    const auto k = std::min<std::int64_t>(path.top_k.value_or(m.entries(h)), m.entries(h));
    std::partial_sort(entries.begin(), entries.begin() + k, entries.end(),
                      [](const Entry& x, const Entry& y) { return x.s > y.s; });
    bool kept = raw_needles > 0;
    double best = raw_best;
    bool read = raw_needle;
    for (std::int64_t j = 0; j < k; ++j) {
      const auto& e = entries[static_cast<std::size_t>(j)];
      kept = kept || e.needle;
      if (!path.raw_blocks) {
        if (e.a > best) best = e.a, read = e.needle;
        continue;
      }
      // Raw blocks: the entry's W raw tokens, the needle's own at u = 1 (logit beta).
      for (int t = 0; t < g.window; ++t) {
        const bool own = e.needle && t == 0;
        const double a = own ? m.beta_effective() : z(rng);
        if (a > best) best = a, read = own;
      }
    }
    if (path.sink && *path.sink >= best) read = false;
    return {kept, read};
  }
};

const EngineRegistry& with_brute() {
  static const EngineRegistry registry = [] {
    auto r = builtin_engines();
    r.add(std::make_unique<BruteReadEngine>());
    return r;
  }();
  return registry;
}

NiahSpec standardized(std::int64_t context = 8192) {
  NiahSpec s;
  s.context = context;
  s.groups = 4;
  s.prompts = 1500;
  s.gates = "random:7:1.5";
  s.beta = 5;
  return s;
}

// Stage 1 agrees too: each group's selected share, within 5 combined standard errors.
void check_stage_one(const std::vector<EngineRun>& runs) {
  for (std::size_t a = 0; a < runs.size(); ++a) {
    for (std::size_t b = a + 1; b < runs.size(); ++b) {
      CAPTURE(runs[a].engine->name());
      CAPTURE(runs[b].engine->name());
      for (std::size_t r = 0; r < runs[a].result.groups.size(); ++r) {
        const auto& x = runs[a].result.groups[r];
        const auto& y = runs[b].result.groups[r];
        REQUIRE(x.selected);
        REQUIRE(y.selected);
        const double n = x.trials ? static_cast<double>(*x.trials) : 0;
        const double m = y.trials ? static_cast<double>(*y.trials) : 0;
        const double p = (*x.selected + *y.selected) / 2;
        const double sigma =
            std::sqrt(std::max(p * (1 - p), 1e-4) * ((n > 0 ? 1 / n : 0) + (m > 0 ? 1 / m : 0)));
        CHECK(std::abs(*x.selected - *y.selected) <= 5 * sigma + 1e-9);
      }
    }
  }
}

}  // namespace

TEST_CASE("read path, standardized: k = 8, a random gate (analytic, fast, brute force)") {
  auto s = standardized(4096);
  s.read.top_k = 8;
  const auto runs = check_engines_agree(s, with_brute());
  CHECK(runs.size() == 3);
  check_stage_one(runs);
}

TEST_CASE(
    "read path, standardized: k = 512, window 128, a sink, per-channel gates, split "
    "projections, an index gate and beta") {
  auto s = standardized();
  s.gates = "channels:onehot:7=0.3|uniform=0.7";
  s.split_rho = 0.5;
  s.read = {512, "channels:onehot:6=0.5|uniform=0.5", 3.5, std::nullopt, 128, 1.5};
  const auto runs = check_engines_agree(s, with_brute());
  CHECK(runs.size() == 3);
  check_stage_one(runs);
}

TEST_CASE("read path, standardized: k = 1, window 128 (analytic, fast, brute force)") {
  auto s = standardized(2048);
  s.read = {1, "uniform", 6.0, std::nullopt, 128, std::nullopt};
  const auto runs = check_engines_agree(s, with_brute());
  check_stage_one(runs);
}

TEST_CASE(
    "read path, standardized: raw blocks W = S = 16, k = 4, window 64 (analytic, fast, "
    "brute force)") {
  auto s = standardized(4096);
  s.geometry = {16, 16, 0};
  s.groups = 16;
  s.prompts = 600;
  s.gates = "random:3:1.5";
  s.beta = 3.5;
  s.read.top_k = 4;
  s.read.sliding_window = 64;
  s.read.raw_blocks = true;
  const auto runs = check_engines_agree(s, with_brute());
  CHECK(runs.size() == 3);
  check_stage_one(runs);
}

TEST_CASE("read path, standardized: rho 0.5 and needles of 2 and 3 tokens (fast, brute force)") {
  for (const int n : {1, 2, 3}) {
    for (const double rho : {0.0, 0.5}) {
      CAPTURE(n);
      CAPTURE(rho);
      auto s = standardized(4096);
      s.prompts = 1000;
      s.needle_tokens = n;
      s.read = {8,   std::nullopt,     4.0,
                rho, n == 3 ? 128 : 0, n == 2 ? std::optional(1.0) : std::nullopt};
      const auto runs = check_engines_agree(s, with_brute());
      CHECK(runs.size() == (n <= 2 && rho == 0 ? 3u : 2u));
      check_stage_one(runs);
    }
  }
}

TEST_CASE(
    "read path, standardized: a 2-token needle read raw in the window (analytic, fast, brute)") {
  auto s = standardized(4096);
  s.prompts = 1000;
  s.needle_tokens = 2;
  s.split_rho = 0.5;
  s.read = {16, "random:5:1", 3.0, std::nullopt, 128, 0.5};
  const auto runs = check_engines_agree(s, with_brute());
  CHECK(runs.size() == 3);
  check_stage_one(runs);
}

TEST_CASE("read path, standardized: query heads of one cache share the selection") {
  auto s = standardized(4096);
  s.architecture = architecture(
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"last\"\nquery_heads = 3\ntop_k = 8\n"
      "index_gate = \"uniform\"\nsliding_window = 128\n");
  check_engines_agree(s, with_brute());
}

TEST_CASE("read path, full-vector d=16: query heads of one cache with a second layer (fast, full)" *
          doctest::test_suite("statistics")) {
  // Without query noise the query heads attend alike: fast and full scan the cache once, and
  // both read its selection as one head's (with query noise fast refuses, engines_test.cpp).
  auto s = full_vector(standardized(1024), 16, 0.0);
  s.architecture = architecture(
      "[[layer]]\nwindow = 4\nstride = 4\ngate = \"weights:1,2,3,4\"\nquery_heads = 3\n"
      "top_k = 8\nsliding_window = 16\n[[layer]]\nwindow = 4\nstride = 4\ngate = \"uniform\"\n"
      "top_k = 4\n");
  s.prompts = 600;
  check_stage_one(check_engines_agree(s, fast_and_full()));
}

TEST_CASE("read path, full-vector d=16: k 8, window 16, a sink, rho 0.5 (fast, full, full-double)" *
          doctest::test_suite("statistics")) {
  auto s = full_vector(standardized(1024), 16, 1.0);
  s.geometry = {4, 4, 0};
  s.gates = "weights:1,2,3,4";
  s.prompts = 800;
  s.read = {8, "uniform", std::nullopt, 0.5, 16, 1.0};
  const auto runs = check_engines_agree(s);
  CHECK(runs.size() >= 3);
  check_stage_one(runs);
}

TEST_CASE("read path, full-vector d=16: split projections, n = 3, k = 32, window 64" *
          doctest::test_suite("statistics")) {
  auto s = full_vector(standardized(2048), 16, 0.5);
  s.gates = "weights:0,0,1,0,0,0,0,2";
  s.split_rho = 0.3;
  s.needle_tokens = 3;
  s.prompts = 800;
  s.read = {32, "onehot:6", 2.5, std::nullopt, 64, std::nullopt};
  check_stage_one(check_engines_agree(s, fast_and_full()));
}

TEST_CASE("read path, full-vector d=16: per-channel gates and index gates, n = 2, rho -0.4" *
          doctest::test_suite("statistics")) {
  auto s = full_vector(standardized(2048), 16, 0.0);
  s.geometry = {4, 4, 0};
  s.gates = "channels:onehot:3=0.5|uniform=0.5";
  s.needle_tokens = 2;
  s.prompts = 800;
  s.read = {8, "channels:onehot:1=0.25|uniform=0.75", std::nullopt, -0.4, std::nullopt, 0.5};
  check_stage_one(check_engines_agree(s, fast_and_full()));
}

TEST_CASE("read path, full-vector d=8: k = 512 of 1024 entries, window 128" *
          doctest::test_suite("statistics")) {
  auto s = full_vector(standardized(4096), 8, 0.5);
  s.geometry = {4, 4, 0};
  s.gates = "last";
  s.prompts = 400;
  s.read = {512, std::nullopt, std::nullopt, std::nullopt, 128, std::nullopt};
  check_stage_one(check_engines_agree(s, fast_and_full()));
}

TEST_CASE("read path: keeping every entry is section 4's read, bit for bit, in every engine" *
          doctest::test_suite("bitexact")) {
  for (const bool vector : {false, true}) {
    CAPTURE(vector);
    auto plain = vector ? full_vector(standardized(2048), 16, 0.5) : standardized(2048);
    plain.prompts = vector ? 50 : 500;
    auto kept = plain;
    kept.read.top_k = 4096;  // more than the 512 entries
    kept.read.index_rho = 0.3;
    for (const auto& name : shipped_engines().names()) {
      const auto& engine = shipped_engines().find(name);
      if (!engine.monte_carlo() && vector) continue;
      try {
        engine.check(make_run(plain).model);
      } catch (const InputError&) {
        continue;
      }
      CAPTURE(name);
      const auto a = run_engine(test::plan(plain, engine), Parallel{});
      const auto b = run_engine(test::plan(kept, engine), Parallel{});
      CHECK(a.phase_success == b.phase_success);
      REQUIRE(a.outcomes.has_value() == b.outcomes.has_value());
      for (std::int64_t i = 0; a.outcomes && i < a.outcomes->trials(); ++i) {
        CHECK(std::equal(a.outcomes->row(i).begin(), a.outcomes->row(i).end(),
                         b.outcomes->row(i).begin()));
      }
    }
  }
}

TEST_CASE("read path: the full engine's outcomes do not depend on the threads" *
          doctest::test_suite("bitexact")) {
  auto s = full_vector(standardized(1024), 8, 0.5);
  s.prompts = 6;
  s.needle_tokens = 2;
  s.read = {16, "uniform", std::nullopt, 0.5, 32, 0.5};
  const auto plan = test::plan(s, "full");
  check_thread_invariance([&](const Parallel& p) { return run_engine(plan, p); },
                          [](const EngineOutput& o) {
                            std::vector<std::int64_t> entries;
                            for (const auto& a : o.argmaxes) entries.push_back(a.entry);
                            return entries;
                          });
}

TEST_CASE("read path: the full engine's SIMD scan keeps FloatOps's bits on every SIMD target" *
          doctest::test_suite("bitexact")) {
  auto s = full_vector(standardized(1024), 24, 0.7);
  s.gates = "channels:onehot:7=0.5|uniform=0.5";
  s.split_rho = 0.5;
  s.prompts = 2;
  s.needle_tokens = 2;
  s.read = {16, "random:2", 3.0, 0.4, 24, 0.5};
  const auto run = make_run(s);
  const auto heads = full_vector_heads(run.model);
  const auto& head = heads.heads.front();
  const auto& read = heads.reads.front();
  const int row = FloatOps::row_size(24);
  const auto reals = ScanWorkspace<float>::reals(8, row, heads.needs());
  const auto index_reals = ScanWorkspace<float>::reals(8, row, heads.index_needs());
  const auto entries = static_cast<std::size_t>(head.entries);
  const auto scan = [&](bool simd, std::uint32_t trial) {
    std::vector<float> r(static_cast<std::size_t>(reals)),
        ir(static_cast<std::size_t>(index_reals));
    std::vector<double> d(16), id(16), score(entries);
    std::vector<float> attention(entries);
    const auto ws = ScanWorkspace<float>::carve(r.data(), d.data(), 8, row, heads.needs());
    const auto iws = ScanWorkspace<float>::carve(ir.data(), id.data(), 8, row, heads.index_needs());
    const auto needle = run.needles.position(s.seed, trial);
    const auto scales = prepare_read<FloatOps>(head, read, s.seed, trial, 0, needle, ws, iws);
    if (simd) {
      full_vector_read_simd(head, read, s.seed, trial, 0, scales, 0, head.entries, ws, iws,
                            attention.data(), score.data());
    } else {
      scan_read_entries<FloatOps>(head, read, s.seed, trial, 0, scales, 0, head.entries, ws, iws,
                                  attention.data(), score.data());
    }
    const auto out = finish_read<FloatOps>(head, read, s.seed, trial, 0, needle, attention.data(),
                                           score.data(), ws);
    return std::make_tuple(attention, score, out.best.entry, out.best.logit);
  };
  for (std::uint32_t trial = 0; trial < 2; ++trial) {
    const auto reference = scan(false, trial);
    for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      CAPTURE(hwy::TargetName(target));
      CHECK(scan(true, trial) == reference);
    }
    hwy::SetSupportedTargetsForTest(0);
  }
}

TEST_CASE("read path: the radix selection keeps the k best scores, a tie the lower entry") {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z;
  for (const std::int64_t n : {1, 7, 300}) {
    std::vector<double> score(static_cast<std::size_t>(n));
    for (auto& x : score) x = std::round(z(rng) * 4) / 4;  // many ties
    score[0] = -0.0;
    for (std::int64_t k = 1; k <= n; k += std::max<std::int64_t>(1, n / 7)) {
      CAPTURE(n);
      CAPTURE(k);
      std::vector<std::int64_t> order(static_cast<std::size_t>(n));
      for (std::int64_t j = 0; j < n; ++j) order[static_cast<std::size_t>(j)] = j;
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return order_key(score[static_cast<std::size_t>(a)]) >
               order_key(score[static_cast<std::size_t>(b)]);
      });
      const auto t = select_threshold(score.data(), n, k);
      std::int64_t ties = t.ties;
      std::vector<std::int64_t> kept;
      for (std::int64_t j = 0; j < n; ++j) {
        const auto key = order_key(score[static_cast<std::size_t>(j)]);
        if (key > t.key || (key == t.key && ties-- > 0)) kept.push_back(j);
      }
      std::vector<std::int64_t> expected(order.begin(), order.begin() + k);
      std::sort(expected.begin(), expected.end());
      CHECK(kept == expected);
    }
  }
}
