// The training lab's layer (docs/TRAINING.md): the forward pass against a direct
// implementation of its definition, the hand-written gradient against finite differences on
// every parameter group (with and without a head offset), the contexts drawn from the block
// generator, and a short training run that concentrates and gives the same bits on any number
// of threads.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

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

// Every branch of the layer: content term and RMS norm on and off, and a head offset.
struct Variant {
  bool content, rms_norm;
  int offset;
};
constexpr Variant kVariants[] = {{false, false, 0}, {false, true, 0}, {true, false, 0},
                                 {true, true, 0},   {true, false, 1}, {true, true, 1}};

// Parameters away from any symmetry: b, a and log lambda drawn from a keyed stream.
LayerParameters random_parameters(const LayerModel& m, std::uint64_t seed) {
  LayerParameters p(m.heads, m.geometry.window, m.dim);
  const RandomStream stream(seed, 0, 0, Stream::gate_init);
  for (Eigen::Index i = 0; i < p.values().size(); ++i) {
    p.values()[i] = 0.5 * stream.normal(static_cast<std::uint32_t>(i), 0);
  }
  if (!m.content) p.content().setZero();
  p.log_lambda().array() += std::log(3.0);
  return p;
}

// The definition, written out directly: gates per entry by std::exp, pooled keys as vectors,
// RMS norm, attention softmax, the heads' mean mass on the needle, l(beta_o m). Also the
// entry each head attends to most.
struct Reference {
  double loss = 0;
  std::vector<std::int64_t> argmax;
};

Reference reference(const LayerModel& m, const LayerParameters& p, const LayerContext& c) {
  const int W = m.geometry.window;
  const auto N = m.entries();
  Reference ref;
  double mass = 0;
  for (int h = 0; h < m.heads; ++h) {
    std::vector<double> logits;
    for (std::int64_t j = 0; j < N; ++j) {
      std::vector<double> z(static_cast<std::size_t>(W), 0.0);
      double total = 0;
      for (int s = 0; s < W; ++s) {
        const auto t = m.geometry.position(j, s);
        if (t < 0) continue;
        z[std::size_t(s)] = std::exp(p.bias()(h, s) + p.content().row(h).dot(c.tokens.row(t)));
        total += z[std::size_t(s)];
      }
      Eigen::VectorXd key = Eigen::VectorXd::Zero(m.dim);
      for (int s = 0; s < W; ++s) {
        const auto t = m.geometry.position(j, s);
        if (t >= 0) key += z[std::size_t(s)] / total * c.tokens.row(t).transpose();
      }
      if (m.rms_norm) key /= std::sqrt(key.squaredNorm() / m.dim);
      logits.push_back(c.query.dot(key));
    }
    std::int64_t best = 0;
    for (std::int64_t j = 1; j < N; ++j)
      best = logits[std::size_t(j)] > logits[std::size_t(best)] ? j : best;
    ref.argmax.push_back(best);
    const double lambda = std::exp(p.log_lambda()[h]);
    double z = 0, hit = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      const double e = std::exp(lambda * (logits[std::size_t(j)] - logits[std::size_t(best)]));
      z += e;
      const auto first = m.geometry.position(j, 0);  // the window of entry j, directly
      if (c.needle >= first && c.needle < first + W) hit += e;
    }
    mass += hit / z / m.heads;
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
    const auto m = small_model(v.content, v.rms_norm, v.offset);
    const auto p = random_parameters(m, 7);
    LayerWorkspace w(m);
    for (std::uint32_t step = 0; step < 3; ++step) {
      draw_training_context(m, 3, step, 1, w.context);
      const auto expected = reference(m, p, w.context);
      const auto context = w.context;
      CHECK(layer_loss(m, p, context, w, nullptr).loss ==
            doctest::Approx(expected.loss).epsilon(1e-12));
      std::vector<Argmax> heads(2);
      layer_argmax(m, p, context, w, heads);
      CHECK(heads[0].entry == expected.argmax[0]);
      CHECK(heads[1].entry == expected.argmax[1]);
    }
  }
}

TEST_CASE("the hand-written gradient matches finite differences on b, a and lambda") {
  for (const auto& v : kVariants) {
    CAPTURE(v.content);
    CAPTURE(v.rms_norm);
    CAPTURE(v.offset);
    const auto m = small_model(v.content, v.rms_norm, v.offset);
    auto p = random_parameters(m, 11);
    LayerWorkspace w(m);
    draw_training_context(m, 5, 0, 0, w.context);
    const auto context = w.context;
    LayerParameters gradient(m.heads, m.geometry.window, m.dim);
    layer_loss(m, p, context, w, &gradient);
    // Central differences, error O(h^2) ~ 1e-10 against gradients of order 1e-2 to 1.
    constexpr double h = 1e-5;
    LayerParameters numeric(m.heads, m.geometry.window, m.dim);
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
    // Every group the layer learns has a gradient to check.
    CHECK(numeric.bias().norm() > 1e-3);
    CHECK(numeric.log_lambda().norm() > 1e-3);
    if (v.content) CHECK(numeric.content().norm() > 1e-3);
  }
}

TEST_CASE("the gradient's bits do not depend on the CPU's cache sizes" *
          doctest::test_suite("bitexact")) {
  // Eigen's blocked matrix product splits the inner dimension at a size it derives from the
  // cache sizes it reads from the CPU, which changes the order of the sums. A long context
  // (the inner dimension of the content gradient) under two cache configurations must give
  // the same bits: the CPU-emulation step cannot vary cache sizes, so this test does.
  auto m = small_model(true, true);
  m.context = 1600;
  const auto p = random_parameters(m, 3);
  LayerWorkspace w(m);
  draw_training_context(m, 7, 0, 0, w.context);
  const auto gradient_with_caches = [&](std::ptrdiff_t l1, std::ptrdiff_t l2, std::ptrdiff_t l3) {
    Eigen::setCpuCacheSizes(l1, l2, l3);
    LayerParameters gradient(m.heads, m.geometry.window, m.dim);
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
        CHECK(c.query[k] ==
              c.tokens(c.needle, k) + double(z[std::size_t(k)]) * (scale * m.query_noise));
      }
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
  // The same bits on any number of threads: the final parameters, the loss curve, the table.
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
