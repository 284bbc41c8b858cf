// The training lab's layer (docs/TRAINING.md): the forward pass against a direct
// implementation of its definition, the hand-written gradient against finite differences on
// every parameter group (with and without a head offset), the contexts drawn from the block
// generator, and a short training run that concentrates and gives the same bits on any number
// of threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "phasesim/core/error.hpp"
#include "phasesim/core/normal_block.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/model/gate.hpp"
#include "phasesim/training/report.hpp"
#include "phasesim/training/train.hpp"
#include "support/threads.hpp"

using namespace phasesim;
using namespace phasesim::niah;
using namespace phasesim::training;

namespace {

// A small layer that reaches every branch: W not a multiple of S (the first entries lose
// slots to negative positions), W > S (neighbouring entries share tokens), two heads.
LayerModel small_model(bool content, bool rms_norm, int offset = 0) {
  LayerModel m;
  m.geometry = {5, 2, offset};
  m.heads = 2;
  m.dim = 6;
  m.context = 40;
  m.query_noise = 0.5;
  m.content = content;
  m.rms_norm = rms_norm;
  m.beta_out = 6;
  m.loss.answers = 50;
  return m;
}

// Every branch of the layer: content term and RMS norm on and off, a head offset, and the real
// compressor's options (MODEL.md section 9): a gate per channel, K query heads with and without
// learned query projections, split projections (W 5, S 2: slots 0..2 read the older key).
struct Variant {
  bool content, rms_norm;
  int offset;
  bool per_channel = false;
  int query_heads = 1;
  bool query_projection = false;
  double split_rho = 1;
};
constexpr Variant kVariants[] = {{false, false, 0},
                                 {false, true, 0},
                                 {true, false, 0},
                                 {true, true, 0},
                                 {true, false, 1},
                                 {true, true, 1},
                                 {true, false, 0, false, 1, false, 0.6},
                                 {true, true, 1, false, 1, false, 0.6},
                                 {true, false, 0, false, 3, false, 1},
                                 {true, false, 1, false, 3, true, 0.6},
                                 {true, true, 0, false, 2, true, 0.6},
                                 {false, false, 0, true},
                                 {true, false, 0, true},
                                 {true, true, 0, true},
                                 {false, true, 1, true, 2, false, 1},
                                 {true, false, 1, true, 3, true, 0.6},
                                 {true, true, 0, true, 2, true, 0.6}};

LayerModel variant_model(const Variant& v) {
  auto m = small_model(v.content, v.rms_norm, v.offset);
  m.per_channel = v.per_channel;
  m.query_heads = v.query_heads;
  m.query_projection = v.query_projection;
  m.split_rho = v.split_rho;
  return m;
}

// Parameters away from any symmetry: b, a, log lambda and the query projections (about the
// identity) drawn from a keyed stream.
LayerParameters random_parameters(const LayerModel& m, std::uint64_t seed) {
  LayerParameters p(m);
  const RandomStream stream(seed, 0, 0, Stream::gate_init);
  for (Eigen::Index i = 0; i < p.values().size(); ++i) {
    p.values()[i] = 0.5 * stream.normal(static_cast<std::uint32_t>(i), 0);
  }
  if (!m.content) p.content().setZero();
  p.log_lambda().array() += std::log(3.0);
  for (int r = 0; r < m.readers() && m.query_projection; ++r) {
    p.projection(r) += Eigen::MatrixXd::Identity(m.dim, m.dim);
  }
  return p;
}

// The definition, written out directly: for every channel c (one gate: the same for all) the
// gate of an entry by std::exp over b_{s,c} + (A k_s)_c, with k_s the slot's key (the older key
// in slots s < W - S under split projections), the pooled key as a vector, RMS norm, every query
// head's query P_r (x_p + sigma_q eps_r) and attention softmax, the query heads' mean mass on the
// needle, l(beta_o m). Also the entry each query head attends to most.
struct Reference {
  double loss = 0;
  std::vector<std::int64_t> argmax;
};

Reference reference(const LayerModel& m, const LayerParameters& p, const LayerContext& c) {
  const int W = m.geometry.window, d = m.dim;
  const auto N = m.entries();
  const int older = m.split_rho < 1 ? W - m.geometry.stride : 0;
  Reference ref;
  double mass = 0;
  for (int h = 0; h < m.heads; ++h) {
    std::vector<Eigen::VectorXd> keys;
    for (std::int64_t j = 0; j < N; ++j) {
      Eigen::VectorXd key = Eigen::VectorXd::Zero(d);
      for (int ch = 0; ch < d; ++ch) {
        const int gate = m.per_channel ? ch : 0;
        std::vector<double> z(static_cast<std::size_t>(W), 0.0);
        double total = 0, top = -1e300;  // exp(z - max z): logits far apart do not overflow
        for (int pass = 0; pass < 2; ++pass) {
          for (int s = 0; s < W; ++s) {
            const auto t = m.geometry.position(j, s);
            if (t < 0) continue;
            const Eigen::VectorXd k = (s < older ? c.older_tokens : c.tokens).row(t).transpose();
            const double logit = p.head_bias(h)(s, gate) + p.head_content(h).row(gate).dot(k);
            if (pass == 0) top = std::max(top, logit);
            if (pass == 1) total += (z[std::size_t(s)] = std::exp(logit - top));
          }
        }
        for (int s = 0; s < W; ++s) {
          const auto t = m.geometry.position(j, s);
          if (t >= 0)
            key[ch] += z[std::size_t(s)] / total * (s < older ? c.older_tokens : c.tokens)(t, ch);
        }
      }
      if (m.rms_norm) key /= std::sqrt(key.squaredNorm() / d);
      keys.push_back(key);
    }
    for (int k = 0; k < m.query_heads; ++k) {
      const int r = h * m.query_heads + k;
      const Eigen::VectorXd q =
          m.query_projection ? Eigen::VectorXd(p.projection(r) * c.query(r)) : c.query(r);
      std::vector<double> logits;
      for (const auto& key : keys) logits.push_back(q.dot(key));
      std::int64_t best = 0;
      for (std::int64_t j = 1; j < N; ++j)
        best = logits[std::size_t(j)] > logits[std::size_t(best)] ? j : best;
      ref.argmax.push_back(best);
      const double lambda = std::exp(p.log_lambda()[r]);
      double z = 0, hit = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        const double e = std::exp(lambda * (logits[std::size_t(j)] - logits[std::size_t(best)]));
        z += e;
        const auto first = m.geometry.position(j, 0);  // the window of entry j, directly
        if (c.needle >= first && c.needle < first + W) hit += e;
      }
      mass += hit / z / m.readers();
    }
  }
  ref.loss = std::log1p(m.loss.answers * std::exp(-m.beta_out * mass));
  return ref;
}

}  // namespace

TEST_CASE("the layer's loss and argmax are those of its definition") {
  for (const auto& v : kVariants) {
    CAPTURE(v.content);
    CAPTURE(v.rms_norm);
    CAPTURE(v.offset);
    CAPTURE(v.per_channel);
    CAPTURE(v.query_heads);
    CAPTURE(v.query_projection);
    CAPTURE(v.split_rho);
    const auto m = variant_model(v);
    const auto p = random_parameters(m, 7);
    LayerWorkspace w(m);
    for (std::uint32_t step = 0; step < 3; ++step) {
      draw_training_context(m, 3, step, 1, w.context);
      const auto expected = reference(m, p, w.context);
      const auto context = w.context;
      CHECK(layer_loss(m, p, context, w, nullptr).loss ==
            doctest::Approx(expected.loss).epsilon(1e-12));
      std::vector<Argmax> readers(static_cast<std::size_t>(m.readers()));
      layer_argmax(m, p, context, w, readers);
      for (int r = 0; r < m.readers(); ++r) {
        CHECK(readers[std::size_t(r)].entry == expected.argmax[std::size_t(r)]);
      }
    }
  }
}

TEST_CASE("content logits too far apart for the factored exponentials give the exact softmax") {
  // exp(b_s - max b) exp(c_t - max c) underflows when c spreads over thousands: the layer then
  // takes the softmax of each entry (each channel) directly.
  for (const auto& v : {Variant{true, false, 0}, Variant{true, false, 0, false, 1, false, 0.6},
                        Variant{true, true, 0, true, 2, false, 0.6}}) {
    CAPTURE(v.per_channel);
    const auto m = variant_model(v);
    auto p = random_parameters(m, 13);
    p.content() *= 4000;
    LayerWorkspace w(m);
    draw_training_context(m, 3, 0, 1, w.context);
    const auto context = w.context;
    const auto expected = reference(m, p, context);
    CHECK(layer_loss(m, p, context, w, nullptr).loss ==
          doctest::Approx(expected.loss).epsilon(1e-12));
  }
}

TEST_CASE("the hand-written gradient matches finite differences on b, a, lambda and P") {
  for (const auto& v : kVariants) {
    CAPTURE(v.content);
    CAPTURE(v.rms_norm);
    CAPTURE(v.offset);
    CAPTURE(v.per_channel);
    CAPTURE(v.query_heads);
    CAPTURE(v.query_projection);
    CAPTURE(v.split_rho);
    const auto m = variant_model(v);
    auto p = random_parameters(m, 11);
    LayerWorkspace w(m);
    draw_training_context(m, 5, 0, 0, w.context);
    const auto context = w.context;
    LayerParameters gradient(m);
    layer_loss(m, p, context, w, &gradient);
    // Central differences, error O(h^2) ~ 1e-10 against gradients of order 1e-2 to 1.
    constexpr double h = 1e-5;
    LayerParameters numeric(m);
    for (Eigen::Index i = 0; i < p.values().size(); ++i) {
      const double keep = p.values()[i];
      p.values()[i] = keep + h;
      const double up = layer_loss(m, p, context, w, nullptr).loss;
      p.values()[i] = keep - h;
      const double down = layer_loss(m, p, context, w, nullptr).loss;
      p.values()[i] = keep;
      numeric.values()[i] = (up - down) / (2 * h);  // 0 for a without the content term
    }
    const auto groups = {std::pair(gradient.bias(), numeric.bias()),
                         std::pair(gradient.content(), numeric.content())};
    for (const auto& [analytic, finite] : groups) {
      CHECK((analytic - finite).cwiseAbs().maxCoeff() <= 1e-8 * (1 + finite.norm()));
    }
    CHECK((gradient.log_lambda() - numeric.log_lambda()).cwiseAbs().maxCoeff() <=
          1e-8 * (1 + numeric.log_lambda().norm()));
    for (int r = 0; r < m.readers() && m.query_projection; ++r) {
      CAPTURE(r);
      CHECK((gradient.projection(r) - numeric.projection(r)).cwiseAbs().maxCoeff() <=
            1e-8 * (1 + numeric.projection(r).norm()));
      CHECK(numeric.projection(r).norm() > 1e-6);
    }
    // Every group the layer learns has a gradient to check, every query head its own.
    CHECK(numeric.bias().norm() > 1e-3);
    for (int r = 0; r < m.readers(); ++r) CHECK(std::abs(numeric.log_lambda()[r]) > 1e-6);
    if (v.content) CHECK(numeric.content().norm() > 1e-3);
    if (v.per_channel) {
      for (int head = 0; head < m.heads; ++head) {  // every channel of b_h, every row of A_h
        CHECK(numeric.head_bias(head).colwise().norm().minCoeff() > 1e-6);
        if (v.content) CHECK(numeric.head_content(head).rowwise().norm().minCoeff() > 1e-6);
      }
    }
  }
}

TEST_CASE("one head's backward pass gives the bits of its segments of the whole gradient" *
          doctest::test_suite("bitexact")) {
  // What independent batches run (BatchGradient): layer_loss for head h writes exactly head
  // h's segments, as the whole layer's backward pass computes them, and nothing else.
  for (const auto& v : kVariants) {
    CAPTURE(v.content);
    CAPTURE(v.rms_norm);
    CAPTURE(v.per_channel);
    CAPTURE(v.query_heads);
    CAPTURE(v.split_rho);
    auto m = variant_model(v);
    m.heads = 3;
    const auto p = random_parameters(m, 5);
    LayerWorkspace w(m);
    draw_training_context(m, 2, 0, 0, w.context);
    const auto context = w.context;
    LayerParameters whole(m);
    const double loss = layer_loss(m, p, context, w, &whole).loss;
    for (int h = 0; h < m.heads; ++h) {
      CAPTURE(h);
      LayerParameters one(m);
      one.values().setConstant(-7.0);
      CHECK(layer_loss(m, p, context, w, &one, h).loss == loss);
      Eigen::VectorXd expected = Eigen::VectorXd::Constant(whole.values().size(), -7.0);
      for (const auto [offset, size] : whole.head_segments(h)) {
        expected.segment(offset, size) = whole.values().segment(offset, size);
      }
      CHECK(one.values().cwiseEqual(expected).all());
    }
  }
}

TEST_CASE("the gradient's bits do not depend on the CPU's cache sizes" *
          doctest::test_suite("bitexact")) {
  // Eigen's blocked matrix product splits the inner dimension at a size it derives from the
  // cache sizes it reads from the CPU, which changes the order of the sums. A long context
  // (the inner dimension of the content gradient) under two cache configurations must give
  // the same bits: the CPU-emulation step cannot vary cache sizes, so this test does.
  // Also a gate per channel, whose content products (C = X A^T, dA = E^T X) are d x d.
  for (const bool per_channel : {false, true}) {
    CAPTURE(per_channel);
    auto m = variant_model({true, true, 0, per_channel, 2, true, 0.6});
    m.context = 1600;
    const auto p = random_parameters(m, 3);
    LayerWorkspace w(m);
    draw_training_context(m, 7, 0, 0, w.context);
    const auto gradient_with_caches = [&](std::ptrdiff_t l1, std::ptrdiff_t l2, std::ptrdiff_t l3) {
      Eigen::setCpuCacheSizes(l1, l2, l3);
      LayerParameters gradient(m);
      layer_loss(m, p, w.context, w, &gradient);
      return Eigen::VectorXd(gradient.values());
    };
    const std::ptrdiff_t l1 = Eigen::l1CacheSize(), l2 = Eigen::l2CacheSize(),
                         l3 = Eigen::l3CacheSize();
    const auto small = gradient_with_caches(4 * 1024, 32 * 1024, 256 * 1024);
    const auto large = gradient_with_caches(64 * 1024, 2048 * 1024, 64 * 1024 * 1024);
    Eigen::setCpuCacheSizes(l1, l2, l3);
    CHECK(small.cwiseEqual(large).all());
    CHECK(small.cwiseAbs().maxCoeff() > 0);
  }
}

TEST_CASE("contexts are the block generator's normals, their needles interior, offsets included") {
  for (int offset : {0, 1}) {
    CAPTURE(offset);
    const auto m = small_model(true, false, offset);
    LayerContext c;
    const auto needles = m.needle_range();
    CHECK(needles.first == 5);  // max(W, o)
    CHECK(needles.last == m.entries() * 2 + offset - 5);
    for (std::uint32_t index = 0; index < 20; ++index) {
      draw_training_context(m, 9, 4, index, c);
      CHECK(c.needle >= needles.first);
      CHECK(c.needle <= needles.last);
      // Tokens: normal_rows of the training stream keyed (seed, step, index), scaled by
      // 1 / sqrt(d) in double, bit for bit.
      std::vector<float> z(static_cast<std::size_t>(m.context * m.dim));
      normal_rows(RandomStream(9, 4, index, Stream::training_token), 0, m.context, m.dim, 1.0f,
                  z.data(), m.dim);
      const double scale = 1 / std::sqrt(double(m.dim));
      bool same = true;
      for (std::int64_t t = 0; t < m.context; ++t) {
        for (int k = 0; k < m.dim; ++k) {
          same = same && c.tokens(t, k) == double(z[std::size_t(t * m.dim + k)]) * scale;
        }
      }
      CHECK(same);
      normal_rows(RandomStream(9, 4, index, Stream::training_query), 0, 1, m.dim, 1.0f, z.data(),
                  m.dim);
      for (int k = 0; k < m.dim; ++k) {
        CHECK(c.query(0)[k] ==
              c.tokens(c.needle, k) + double(z[std::size_t(k)]) * (scale * m.query_noise));
      }
    }
  }
}

TEST_CASE("query heads draw their own query noise, split projections a second embedding") {
  const auto m = variant_model({true, false, 0, false, 3, false, 0.6});
  LayerContext c;
  draw_training_context(m, 9, 4, 2, c);
  const double scale = 1 / std::sqrt(double(m.dim));
  // Query head r: row r of the query stream (row 0 is the query every head shares when K = 1).
  REQUIRE(c.queries.size() == 6);
  std::vector<float> z(static_cast<std::size_t>(m.context * m.dim));
  normal_rows(RandomStream(9, 4, 2, Stream::training_query), 0, 6, m.dim, 1.0f, z.data(), m.dim);
  for (int r = 0; r < 6; ++r) {
    for (int k = 0; k < m.dim; ++k) {
      CHECK(c.query(r)[k] == c.tokens(c.needle, k) +
                                 double(z[std::size_t(r * m.dim + k)]) * (scale * m.query_noise));
    }
  }
  // The older key rho x_t + sqrt(1 - rho^2) x''_t, x''_t from its own stream.
  normal_rows(RandomStream(9, 4, 2, Stream::training_older_token), 0, m.context, m.dim, 1.0f,
              z.data(), m.dim);
  const double rest = std::sqrt(1 - 0.36);
  for (std::int64_t t = 0; t < m.context; ++t) {
    for (int k = 0; k < m.dim; ++k) {
      CHECK(c.older_tokens(t, k) ==
            doctest::Approx(0.6 * c.tokens(t, k) + rest * scale * z[std::size_t(t * m.dim + k)])
                .epsilon(1e-14));
    }
  }
}

TEST_CASE("head h starts at the gate random:SEED+h:SCALE") {
  LabSpec spec;
  spec.seed = 5;
  spec.init_scale = 0.3;
  const auto gates = positional_gates(initial_parameters(spec));
  for (int h = 0; h < spec.model.heads; ++h) {
    const auto expected = parse_gate("random:" + std::to_string(5 + h) + ":0.3", 8).weights;
    for (int s = 0; s < 8; ++s) CHECK(gates(h, s) == doctest::Approx(expected[std::size_t(s)]));
  }
  CHECK(std::exp(initial_parameters(spec).log_lambda()[0]) == doctest::Approx(std::sqrt(32.0)));
  // A gate per channel: channel 0 of head h is that gate, the others their own draws; every
  // query head starts at lambda = sqrt(d) and the identity projection.
  spec.model.per_channel = true;
  spec.model.query_heads = 3;
  spec.model.query_projection = true;
  const auto theta = initial_parameters(spec);
  for (int h = 0; h < spec.model.heads; ++h) {
    const auto channels = channel_gates(theta, h);
    const auto expected = parse_gate("random:" + std::to_string(5 + h) + ":0.3", 8).weights;
    for (int s = 0; s < 8; ++s) CHECK(channels(0, s) == doctest::Approx(expected[std::size_t(s)]));
    CHECK((channels.row(1) - channels.row(0)).norm() > 1e-3);
  }
  CHECK(theta.log_lambda().size() == 24);
  CHECK(theta.projection(23).isIdentity());
}

TEST_CASE("Adam's first step moves every parameter by lr against its gradient's sign") {
  Adam adam(3, AdamSettings{});
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(3);
  Eigen::VectorXd gradient(3);
  gradient << 2.0, -1e-3, 0.0;
  adam.step(theta, gradient);
  CHECK(theta[0] == doctest::Approx(-0.05).epsilon(1e-6));
  CHECK(theta[1] == doctest::Approx(0.05).epsilon(1e-4));
  CHECK(theta[2] == 0.0);
}

TEST_CASE(
    "each head's segments of theta partition it: bias, content, its query heads' lambda and P") {
  for (const auto& v : kVariants) {
    CAPTURE(v.per_channel);
    CAPTURE(v.query_heads);
    CAPTURE(v.query_projection);
    const auto m = variant_model(v);
    LayerParameters p(m);
    std::vector<int> owner(static_cast<std::size_t>(p.values().size()), -1);
    for (int h = 0; h < m.heads; ++h) {
      for (const auto [offset, size] : p.head_segments(h)) {
        for (auto i = offset; i < offset + size; ++i) {
          CHECK(owner[std::size_t(i)] == -1);
          owner[std::size_t(i)] = h;
        }
      }
      // Writing head h's views marks exactly its segments.
      p.values().setZero();
      p.head_bias(h).setOnes();
      p.head_content(h).setOnes();
      for (int k = 0; k < m.query_heads; ++k) {
        const int r = h * m.query_heads + k;
        p.log_lambda()[r] = 1;
        if (m.query_projection) p.projection(r).setOnes();
      }
      for (Eigen::Index i = 0; i < p.values().size(); ++i) {
        CHECK((p.values()[i] == 1) == (owner[std::size_t(i)] == h));
      }
    }
    CHECK(std::count(owner.begin(), owner.end(), -1) == 0);
  }
}

TEST_CASE("independent batches: head h's gradient is its own contexts' mean, restricted to it") {
  LabSpec spec;
  spec.model = variant_model({true, false, 1, true, 2, true, 0.6});
  spec.batch = 3;
  spec.seed = 9;
  spec.batches = Batches::independent;
  spec.validate();
  const auto theta = random_parameters(spec.model, 4);
  const int step = 5;
  Eigen::VectorXd mean(theta.values().size());
  BatchGradient independent_gradient(spec);
  const double loss = independent_gradient(theta, step, Parallel{1}, mean);
  // Head h's segments: the mean over contexts h B .. h B + B - 1 of the whole layer's gradient.
  LayerWorkspace w(spec.model);
  LayerParameters gradient(spec.model);
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(mean.size());
  double expected_loss = 0;
  for (int h = 0; h < spec.model.heads; ++h) {
    for (int i = 0; i < spec.batch; ++i) {
      draw_training_context(spec.model, spec.seed, step, std::uint32_t(h * spec.batch + i),
                            w.context);
      expected_loss += layer_loss(spec.model, theta, w.context, w, &gradient).loss;
      for (const auto [offset, size] : theta.head_segments(h)) {
        expected.segment(offset, size) += gradient.values().segment(offset, size);
      }
    }
  }
  expected /= spec.batch;
  CHECK(mean.cwiseEqual(expected).all());
  CHECK(loss == doctest::Approx(expected_loss / (spec.batch * spec.model.heads)).epsilon(1e-14));
  // The shared batch is head 0's contexts for every head: head 0's part agrees, head 1's not.
  auto shared = spec;
  shared.batches = Batches::shared;
  Eigen::VectorXd shared_mean(mean.size());
  BatchGradient shared_gradient(shared);
  shared_gradient(theta, step, Parallel{1}, shared_mean);
  for (const auto [offset, size] : theta.head_segments(0)) {
    CHECK(shared_mean.segment(offset, size).cwiseEqual(mean.segment(offset, size)).all());
  }
  const auto bias1 = theta.head_segments(1)[0];
  CHECK((shared_mean.segment(bias1.offset, bias1.size) - mean.segment(bias1.offset, bias1.size))
            .norm() > 1e-6);
}

TEST_CASE("one head trains the same bits with independent and shared batches" *
          doctest::test_suite("bitexact")) {
  LabSpec spec;
  spec.model = variant_model({true, false, 0, true, 2, true, 0.6});
  spec.model.heads = 1;
  spec.steps = 6;
  spec.batch = 3;
  spec.record_every = 3;
  spec.groups = 2;
  spec.prompts = 4;
  auto independent = spec;
  independent.batches = Batches::independent;
  const auto a = lab_document(spec, run_lab(spec, Parallel{1}));
  auto b = lab_document(independent, run_lab(independent, Parallel{1}));
  CHECK(b["batches"] == "independent");
  CHECK(!a.contains("batches"));  // shared documents keep their keys
  b.erase("batches");
  CHECK(a.dump() == b.dump());
}

TEST_CASE("--batches and its bound on heads x batch are validated") {
  CHECK(parse_batches("shared") == Batches::shared);
  CHECK(parse_batches("independent") == Batches::independent);
  CHECK_THROWS_WITH_AS(parse_batches("per-head"),
                       "invalid --batches per-head (must be shared or independent)", InputError);
  LabSpec spec;
  spec.model.heads = 512;
  spec.batch = 65536;
  spec.validate();  // shared: the batch index is below 65536
  spec.batches = Batches::independent;
  CHECK_THROWS_WITH_AS(spec.validate(),
                       "invalid --batch 65536 (with --batches independent, --heads 512 x --batch "
                       "must be at most 16777216)",
                       InputError);
  // The work estimate counts every head's contexts.
  auto shared = spec;
  shared.batches = Batches::shared;
  CHECK(spec.estimate().seconds == doctest::Approx(512 * shared.estimate().seconds));
}

TEST_CASE("a short training run concentrates the gates, the same on any number of threads" *
          doctest::test_suite("bitexact")) {
  LabSpec spec;
  spec.model.geometry = {8, 4};
  spec.model.heads = 2;
  spec.model.dim = 16;
  spec.model.context = 256;
  spec.model.query_noise = 0;  // beta = sqrt(d) = 4: a clear signal for 150 small steps
  spec.model.content = true;
  spec.steps = 150;
  spec.batch = 8;
  spec.adam.lr = 0.1;
  spec.record_every = 50;
  spec.groups = 4;
  spec.prompts = 16;
  spec.validate();
  // The same bits on any number of threads: the final parameters, the loss curve, the table;
  // also for the real compressor's options (a gate per channel, 2 query heads with their own
  // projections, split projections, RMS norm).
  auto real = spec;
  real.model.per_channel = real.model.query_projection = real.model.rms_norm = true;
  real.model.query_heads = 2;
  real.model.split_rho = 0.7;
  real.model.dim = 8;
  real.steps = 30;
  real.record_every = 10;
  real.validate();
  test::check_thread_invariance(
      [&](const Parallel& p) { return run_lab(real, p); },
      [&](const LabResult& result) { return lab_document(real, result).dump(); });
  // ... and with independent batches (each head its own contexts, summed in index order).
  real.batches = Batches::independent;
  test::check_thread_invariance(
      [&](const Parallel& p) { return run_lab(real, p); },
      [&](const LabResult& result) { return lab_document(real, result).dump(); });
  const auto one = test::check_thread_invariance(
      [&](const Parallel& p) { return run_lab(spec, p); },
      [&](const LabResult& result) { return lab_document(spec, result).dump(); });
  const auto& start = one.training.trajectory.front();
  const auto& end = one.training.trajectory.back();
  for (int h = 0; h < spec.model.heads; ++h) {
    CAPTURE(h);
    CHECK(start.row(h).maxCoeff() < 0.2);  // near 1/W = 0.125 at init scale 0.1
    CHECK(end.row(h).maxCoeff() > 0.6);    // most of the weight on one slot
  }
  CHECK(one.training.trajectory_steps == std::vector<int>{0, 50, 100, 150});
  // The loss fell: concentrated heads put their attention on the needle.
  CHECK(one.training.loss_curve.back().loss < one.training.loss_curve.front().loss - 0.3);
}
