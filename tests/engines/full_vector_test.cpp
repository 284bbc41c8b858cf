// The per-trial host/device functions of the full-vector model (full_vector.hpp), checked
// on the CPU against direct formulas and against a naive reference that stores every key:
// the double scan (DoubleOps) to rounding, the float scan (FloatOps, the CUDA kernel's code)
// to float rounding, and the CPU engine's SIMD scan against FloatOps bit for bit on every
// SIMD target.
#include "phasesim/engines/full_vector.hpp"

#include <doctest/doctest.h>
#include <hwy/targets.h>

#include <Eigen/Core>
#include <cmath>
#include <vector>

#include "phasesim/engines/full_vector_simd.hpp"
#include "phasesim/model/gate.hpp"

using namespace phasesim;
using namespace phasesim::engines;
using namespace phasesim::niah;

namespace {

// Every key of positions 0..rows-1 as a matrix, straight from RandomStream::normal.
Eigen::MatrixXd all_keys(const RandomStream& keys, std::int64_t rows, int dim) {
  Eigen::MatrixXd k(rows, dim);
  for (std::int64_t t = 0; t < rows; ++t) {
    for (int c = 0; c < dim; ++c) {
      k(t, c) = keys.normal(static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(c)) /
                std::sqrt(static_cast<double>(dim));
    }
  }
  return k;
}

// The gate of entry j written out: renormalized_weights, then g_s exp(tau xi) renormalized;
// for a per-channel gate, every group's, a weight per slot and channel (groups in order).
std::vector<double> reference_gate(const Gate& gate, const Geometry& g, std::int64_t j, double tau,
                                   const RandomStream& content, int dim) {
  if (gate.per_channel()) {
    const auto counts = channel_counts(gate, dim);
    std::vector<double> w;
    for (int s = 0; s < g.window; ++s) {
      for (std::size_t k = 0; k < counts.size(); ++k) {
        const Gate one{gate.channels[k].weights, "group", {}};
        const double weight =
            reference_gate(one, g, j, tau, content, dim)[static_cast<std::size_t>(s)];
        w.insert(w.end(), static_cast<std::size_t>(counts[k]), weight);
      }
    }
    return w;
  }
  auto w = renormalized_weights(gate, g.first_existing_slot(j));
  double total = 0;
  for (int s = 0; s < g.window; ++s) {
    const auto i = static_cast<std::size_t>(s);
    const std::int64_t t = g.position(j, s);
    if (w[i] > 0 && tau > 0)
      w[i] *= std::exp(tau * content.normal(static_cast<std::uint32_t>(t), 0));
    total += w[i];
  }
  for (double& x : w) x = total > 0 ? x / total : 0.0;
  return w;
}

struct Case {
  Geometry geometry;
  std::string gate;
  int dim;
  double query_noise;
  double tau;
  bool rms_norm;
  std::int64_t entries;
  std::int64_t needle;
  double split_rho;  // 1: one projection
};

// Naive full-vector model: all keys materialized, every entry pooled, first maximum wins.
Argmax reference_argmax(const Case& c, const Gate& gate, std::uint64_t seed, std::uint32_t trial,
                        std::uint32_t head) {
  const RandomStream keys(seed, trial, head, Stream::key);
  const RandomStream noise(seed, trial, head, Stream::query_noise);
  const RandomStream content(seed, trial, head, Stream::content_noise);
  const auto& g = c.geometry;
  const auto k = all_keys(keys, c.entries * g.stride, c.dim);
  // Older keys rho k_t + sqrt(1 - rho^2) k''_t, read by slots below W - S.
  const Eigen::MatrixXd older =
      c.split_rho * k +
      std::sqrt(1 - c.split_rho * c.split_rho) *
          all_keys(RandomStream(seed, trial, head, Stream::split_key), c.entries * g.stride, c.dim);
  Eigen::VectorXd q = k.row(c.needle).transpose();
  for (int i = 0; i < c.dim; ++i) {
    q[i] += c.query_noise *
            noise.normal(static_cast<std::uint32_t>(c.needle), static_cast<std::uint32_t>(i)) /
            std::sqrt(static_cast<double>(c.dim));
  }
  Argmax best;
  const int per_slot = gate.per_channel() ? c.dim : 1;
  for (std::int64_t j = 0; j < c.entries; ++j) {
    const auto w = reference_gate(gate, g, j, c.tau, content, c.dim);
    Eigen::VectorXd pooled = Eigen::VectorXd::Zero(c.dim);
    for (int s = 0; s < g.window; ++s) {
      for (int i = 0; i < c.dim; ++i) {
        const double weight = w[static_cast<std::size_t>(s * per_slot + i % per_slot)];
        const auto& key = s < g.window - g.stride ? older : k;
        if (weight > 0) pooled[i] += weight * key(g.position(j, s), i);
      }
    }
    if (c.rms_norm && pooled.norm() > 0) pooled *= std::sqrt(c.dim) / pooled.norm();
    best.offer(j, q.dot(pooled));
  }
  return best;
}

// A case's head, with its channel groups laid out as the engines' full_vector_heads does.
struct TestHead {
  TestHead(const Case& c, const Gate& gate) {
    for (const auto& group : gate.channels) {
      weights.insert(weights.end(), group.weights.begin(), group.weights.end());
    }
    ends = channel_ends(gate, c.dim);
    head = {c.geometry,     gate.weights.data(),
            c.entries,      c.dim,
            c.query_noise,  c.tau,
            c.rms_norm,     static_cast<int>(gate.channels.size()),
            weights.data(), ends.data(),
            c.split_rho};
  }
  TestHead(const TestHead&) = delete;
  std::vector<double> weights;
  std::vector<int> ends;
  FullVectorHead head;
};

ScanNeeds needs(const Case& c) { return {c.gate.starts_with("channels:"), c.split_rho < 1}; }

// A scan's scratch, filled with NaN first: stale rows must never be read. `stride` > 1 lays
// it out as a GPU block does (one of `stride` interleaved workspaces).
template <class Ops>
struct Scratch {
  Scratch(const Case& c, int stride = 1)
      : reals(static_cast<std::size_t>(stride *
                                       ScanWorkspace<typename Ops::Real>::reals(
                                           c.geometry.window, Ops::row_size(c.dim), needs(c))),
              static_cast<typename Ops::Real>(std::nan(""))),
        doubles(static_cast<std::size_t>(
                    stride * ScanWorkspace<typename Ops::Real>::doubles(c.geometry.window)),
                std::nan("")),
        ws(ScanWorkspace<typename Ops::Real>::carve(reals.data(), doubles.data(), c.geometry.window,
                                                    Ops::row_size(c.dim), needs(c), stride)) {}
  std::vector<typename Ops::Real> reals;
  std::vector<double> doubles;
  ScanWorkspace<typename Ops::Real> ws;
};

template <class Ops>
Argmax scan(const Case& c, const Gate& gate, std::uint32_t trial, std::int64_t begin,
            std::int64_t end, int stride = 1) {
  const Scratch<Ops> scratch(c, stride);
  const TestHead h(c, gate);
  return scan_full_vector<Ops>(h.head, 9, trial, 1, c.needle, begin, end, scratch.ws);
}

Argmax streamed_argmax(const Case& c, const Gate& gate, std::uint32_t trial) {
  return scan<DoubleOps>(c, gate, trial, 0, c.entries);
}

const std::vector<Case> kCases = {
    {{8, 4}, "uniform", 7, 0.5, 0.7, true, 40, 61, 1.0},
    {{3, 5}, "weights:1,2,3", 4, 1.0, 0.0, false, 30, 47, 1.0},
    {{12, 4}, "random:3", 6, 0.3, 0.3, false, 25, 50, 1.0},
    {{8, 4}, "onehot:1", 5, 2.0, 0.0, true, 20, 33, 1.0},  // entry 0 pools nothing
    {{1, 1}, "last", 3, 0.1, 0.0, false, 50, 10, 1.0},
    {{8, 4}, "uniform", 64, 1.47, 0.0, true, 60, 101, 1.0},
    {{6, 4}, "weights:0,1,0,0,0,2", 33, 0.5, 0.0, false, 40, 70, 1.0},
    // Per-channel gates (channel groups of 8 and 12 of 20 channels, 16 and 17 of 33, a group
    // renormalized at the boundary; groups that weight no slot another weights).
    {{8, 4}, "channels:onehot:7=0.4|uniform=0.6", 20, 0.5, 0.0, true, 30, 61, 1.0},
    {{8, 4}, "channels:onehot:1|weights:0,0,0,0,1,2,3,4", 33, 0.5, 0.6, false, 30, 50, 1.0},
    {{6, 4}, "channels:random:2=0.25|onehot:5=0.5|last=0.25", 7, 1.0, 0.4, true, 25, 43, 1.0},
    // Split projections: slots below W - S pool older keys (with a per-channel gate, content
    // noise, rms-norm; rho 0 draws them independently).
    {{8, 4}, "uniform", 9, 0.5, 0.0, false, 30, 61, 0.6},
    {{12, 4}, "channels:random:4|uniform", 16, 0.7, 0.5, true, 25, 70, 0.3},
    {{6, 4}, "weights:1,2,3,4,0,0", 5, 0.3, 0.0, false, 30, 47, 0.0},
};

}  // namespace

TEST_CASE("generate_key draws component c of k_t as normal(t, c) times 1 / sqrt(d)") {
  const RandomStream keys(11, 3, 2, Stream::key);
  for (int dim : {1, 6, 7}) {
    std::vector<double> k(static_cast<std::size_t>(dim));
    generate_key(keys, 1234, dim, k.data());
    for (int c = 0; c < dim; ++c) {
      const double scale = 1 / std::sqrt(static_cast<double>(dim));
      CHECK(k[static_cast<std::size_t>(c)] ==
            scale * keys.normal(1234, static_cast<std::uint32_t>(c)));
    }
  }
}

TEST_CASE("generate_query adds sigma_q / sqrt(d) times the query-noise stream to k_p") {
  const RandomStream keys(5, 1, 0, Stream::key);
  const RandomStream noise(5, 1, 0, Stream::query_noise);
  std::vector<double> q(5);
  std::vector<double> k(5);
  generate_query(keys, noise, 77, 5, 0.5, q.data());
  generate_key(keys, 77, 5, k.data());
  for (std::uint32_t c = 0; c < 5; ++c) {
    CHECK(q[c] ==
          doctest::Approx(k[c] + 0.5 * noise.normal(77, c) / std::sqrt(5.0)).epsilon(1e-15));
  }
}

TEST_CASE("entry_gate renormalizes over existing slots and applies content noise") {
  const auto gate = parse_gate("weights:1,2,0,3", 4);
  std::vector<double> out(4);
  const double xi[4] = {0.3, -1.0, 2.0, 0.5};
  for (int first = 0; first < 4; ++first) {
    entry_gate(gate.weights.data(), 4, first, 0.0, xi, out.data());
    const auto expected = renormalized_weights(gate, first);
    for (std::size_t s = 0; s < 4; ++s)
      CHECK(out[s] == doctest::Approx(expected[s]).epsilon(1e-15));
  }
  entry_gate(gate.weights.data(), 4, 1, 0.7, xi, out.data());
  const double a = 2 * std::exp(0.7 * -1.0);
  const double b = 3 * std::exp(0.7 * 0.5);
  CHECK(out[0] == 0.0);
  CHECK(out[1] == doctest::Approx(a / (a + b)).epsilon(1e-15));
  CHECK(out[2] == 0.0);  // zero weights stay zero under content noise
  CHECK(out[3] == doctest::Approx(b / (a + b)).epsilon(1e-15));
  entry_gate(gate.weights.data(), 4, 4, 0.7, xi, out.data());  // nothing exists
  for (double w : out) CHECK(w == 0.0);
}

TEST_CASE("pool_entry, rms_normalize and dot on a small ring") {
  // Window 3, dim 2: positions 4, 5, 6 sit in rows 1, 2, 0.
  const double ring[6] = {1, 2, 3, 4, 5, 6};
  const double w[3] = {0.5, 0.0, 0.25};
  double out[2];
  pool_entry(w, nullptr, 3, {ring, nullptr, 0}, 2, 4, out);
  CHECK(out[0] == 0.5 * 3 + 0.25 * 1);
  CHECK(out[1] == 0.5 * 4 + 0.25 * 2);
  double v[2] = {3, 4};
  rms_normalize(v, 2);  // rms 5 / sqrt(2)
  CHECK(v[0] == doctest::Approx(3 * std::sqrt(2.0) / 5));
  CHECK(dot(v, v, 2) == doctest::Approx(2.0));
  double zero[2] = {0, 0};
  rms_normalize(zero, 2);
  CHECK(zero[0] == 0.0);
}

TEST_CASE("Argmax keeps the lowest entry on ties") {
  Argmax best;
  best.offer(0, -1.0);
  best.offer(1, 2.0);
  best.offer(2, 2.0);
  best.offer(3, 1.0);
  CHECK(best.entry == 1);
  CHECK(best.runner_up == 2.0);
  Argmax rising;
  rising.offer(0, 1.0);
  CHECK(rising.gap() == HUGE_VAL);  // one entry: no runner-up
  rising.offer(1, 1.5);
  rising.offer(2, 0.25);
  CHECK(rising.entry == 1);
  CHECK(rising.gap() == 0.5);
}

TEST_CASE("the double scan equals a naive reference that stores every key") {
  for (const auto& c : kCases) {
    CAPTURE(c.gate);
    const auto gate = parse_gate(c.gate, c.geometry.window);
    for (std::uint32_t trial = 0; trial < 4; ++trial) {
      const auto expected = reference_argmax(c, gate, 9, trial, 1);
      const auto streamed = streamed_argmax(c, gate, trial);
      CHECK(streamed.entry == expected.entry);
      CHECK(streamed.logit == doctest::Approx(expected.logit).epsilon(1e-12));
      CHECK(streamed.runner_up == doctest::Approx(expected.runner_up).epsilon(1e-12));
    }
  }
}

TEST_CASE("the float scan is the naive double reference to float rounding") {
  // Keys, pooled entries and logits in float: a logit of size up to ~sqrt(d) moves by ~1e-6,
  // so the entry may change only where the top two logits are that close.
  for (const auto& c : kCases) {
    CAPTURE(c.gate);
    const auto gate = parse_gate(c.gate, c.geometry.window);
    for (std::uint32_t trial = 0; trial < 4; ++trial) {
      const auto expected = reference_argmax(c, gate, 9, trial, 1);
      const auto got = scan<FloatOps>(c, gate, trial, 0, c.entries);
      CHECK(std::abs(got.logit - expected.logit) < 1e-4);
      if (got.entry != expected.entry) CHECK(expected.gap() < 2e-4);
    }
  }
}

TEST_CASE("the SIMD scan gives FloatOps's bits on every SIMD target, strided scratch too" *
          doctest::test_suite("bitexact")) {
  for (const auto& c : kCases) {
    CAPTURE(c.gate);
    CAPTURE(c.dim);
    const auto gate = parse_gate(c.gate, c.geometry.window);
    for (std::uint32_t trial = 0; trial < 3; ++trial) {
      const auto scalar = scan<FloatOps>(c, gate, trial, 0, c.entries);
      const auto strided = scan<FloatOps>(c, gate, trial, 0, c.entries, 3);
      CHECK(strided.entry == scalar.entry);
      CHECK(strided.logit == scalar.logit);
      for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        hwy::SetSupportedTargetsForTest(target);
        CAPTURE(hwy::TargetName(target));
        const Scratch<FloatOps> scratch(c);
        const TestHead h(c, gate);
        const auto simd =
            full_vector_argmax_simd(h.head, 9, trial, 1, c.needle, 0, c.entries, scratch.ws);
        CHECK(simd.entry == scalar.entry);
        CHECK(simd.logit == scalar.logit);
        CHECK(simd.runner_up == scalar.runner_up);
      }
      hwy::SetSupportedTargetsForTest(0);
    }
  }
}

// run_trials scans a cache once and copies its outcome to the other query heads when no query
// noise tells them apart (NiahModel::alike_head): this is what makes that copy exact.
TEST_CASE("query heads of one cache: the same scan without query noise, their own with it" *
          doctest::test_suite("bitexact")) {
  for (auto c : kCases) {
    CAPTURE(c.gate);
    const auto gate = parse_gate(c.gate, c.geometry.window);
    int differing = 0;
    for (const double noise : {0.0, c.query_noise}) {
      c.query_noise = noise;
      TestHead h(c, gate);
      h.head.key_head = 1;
      for (std::uint32_t trial = 0; trial < 3; ++trial) {
        const Scratch<FloatOps> scratch(c);
        const auto first =
            full_vector_argmax_simd(h.head, 9, trial, 1, c.needle, 0, c.entries, scratch.ws);
        const auto other =
            full_vector_argmax_simd(h.head, 9, trial, 5, c.needle, 0, c.entries, scratch.ws);
        const bool same = other.entry == first.entry && other.logit == first.logit &&
                          other.runner_up == first.runner_up;
        if (noise == 0) CHECK(same);
        differing += same ? 0 : 1;
      }
    }
    CHECK(differing > 0);  // with query noise, each query head its own
  }
}

TEST_CASE("normal_pair is Random123's Box-Muller to a few ulp, with portable log and sin/cos") {
  // normal_pair computes r123::boxmuller's formula with portable_math.hpp's log and
  // sincospi, whose bits do not depend on the CPU; glibc's (what boxmuller calls) agree to
  // about 1 ulp in each, so the pair agrees to a few ulp of its radius.
  const RandomStream stream(123456789, 7, 3, Stream::key);
  int identical = 0;
  for (std::uint32_t index = 0; index < 2000; ++index) {
    for (std::uint32_t block = 0; block < 3; ++block) {
      const auto w = stream.bits(index, block);
      const auto join = [](std::uint32_t lo, std::uint32_t hi) {
        return static_cast<std::uint64_t>(hi) << 32 | lo;
      };
      const auto expected = r123::boxmuller(join(w[0], w[1]), join(w[2], w[3]));
      const auto pair = stream.normal_pair(index, block);
      const double radius = std::hypot(expected.x, expected.y);
      CHECK(std::fabs(pair.x - expected.x) <= 8e-16 * radius);
      CHECK(std::fabs(pair.y - expected.y) <= 8e-16 * radius);
      identical += pair.x == expected.x && pair.y == expected.y;
    }
  }
  MESSAGE(identical << " of 6000 pairs identical to glibc's");
}

TEST_CASE("Argmax::merge in any order gives the sequential scan's answer, ties included") {
  // Logits of entries 0..7 with a three-way tie for the maximum at 2, 5 and 6.
  const double logits[8] = {1.0, -2.0, 3.0, 0.5, 3.0 - 1e-12, 3.0, 3.0, -1.0};
  Argmax sequential;
  for (int j = 0; j < 8; ++j) sequential.offer(j, logits[j]);
  REQUIRE(sequential.entry == 2);
  // Split 0..7 at every subset of the seven inner cut points; merge the ranges backwards.
  for (int cuts = 0; cuts < 128; ++cuts) {
    std::vector<Argmax> ranges(1);
    for (int j = 0; j < 8; ++j) {
      if (j > 0 && (cuts >> (j - 1) & 1)) ranges.emplace_back();
      ranges.back().offer(j, logits[j]);
    }
    Argmax merged;
    for (auto r = ranges.rbegin(); r != ranges.rend(); ++r) merged.merge(*r);
    CHECK(merged.entry == sequential.entry);
    CHECK(merged.logit == sequential.logit);
    CHECK(merged.runner_up == sequential.runner_up);
  }
  CHECK(sequential.runner_up == 3.0);  // the tie: the top two logits are equal, gap 0
  CHECK(sequential.gap() == 0.0);
  Argmax empty;
  empty.merge(Argmax{});
  CHECK(empty.entry == -1);
  Argmax one;
  one.offer(4, -5.0);
  one.merge(Argmax{});  // an empty range changes nothing
  CHECK(one.entry == 4);
}

TEST_CASE("a scan split into ranges and merged equals the full scan bit for bit" *
          doctest::test_suite("bitexact")) {
  // What the GPU kernel does: each thread scans a range (FloatOps), the block merges.
  for (const auto& c : kCases) {
    CAPTURE(c.gate);
    const auto gate = parse_gate(c.gate, c.geometry.window);
    for (std::uint32_t trial = 0; trial < 3; ++trial) {
      const auto whole = scan<FloatOps>(c, gate, trial, 0, c.entries);
      for (const std::int64_t parts :
           {std::int64_t{2}, std::int64_t{3}, std::int64_t{7}, c.entries}) {
        CAPTURE(parts);
        Argmax merged;
        for (std::int64_t k = parts - 1; k >= 0; --k) {
          const std::int64_t begin = c.entries * k / parts;
          const std::int64_t end = c.entries * (k + 1) / parts;
          merged.merge(scan<FloatOps>(c, gate, trial, begin, end));
        }
        CHECK(merged.entry == whole.entry);
        CHECK(merged.logit == whole.logit);
        CHECK(merged.runner_up == whole.runner_up);
      }
    }
  }
}

TEST_CASE("scanned_keys counts the positions some entry weights, below N_c S") {
  const std::vector<std::pair<Geometry, std::string>> cases = {
      {{8, 4}, "uniform"},
      {{8, 4}, "last"},
      {{8, 4}, "onehot:1"},
      {{3, 5}, "weights:1,2,3"},
      {{12, 4}, "onehot:0"},
      {{1, 1}, "last"},
      {{6, 4}, "weights:0,1,0,0,0,2"},
  };
  const std::int64_t entries = 50;
  for (const auto& [g, spec_name] : cases) {
    const std::string& spec = spec_name;  // clang 14's CAPTURE cannot take a binding
    CAPTURE(spec);
    const auto gate = parse_gate(spec, g.window);
    const FullVectorHead h{g, gate.weights.data(), entries, 4, 0.0, 0.0, false};
    // Naive: position t counts when some entry j (existing or not) holds it at a weighted slot.
    std::int64_t expected = 0;
    for (std::int64_t t = 0; t < entries * g.stride; ++t) {
      bool weighted = false;
      for (std::int64_t j = 0; j < entries + g.window; ++j) {
        for (int s = 0; s < g.window; ++s) {
          weighted = weighted || (g.position(j, s) == t && gate.weights[s] > 0);
        }
      }
      expected += weighted ? 1 : 0;
    }
    CHECK(scanned_keys(h) == expected);
  }
}
