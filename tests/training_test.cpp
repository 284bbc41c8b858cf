// The training lab's layer (docs/TRAINING.md): the forward pass against a direct
// implementation of its definition, the hand-written gradient against finite differences on
// every parameter group, the ziggurat's normals, and a short training run that concentrates
// and gives the same bits on 1 and 2 threads.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "phasesim/core/random.hpp"
#include "phasesim/model/gate.hpp"
#include "phasesim/training/train.hpp"
#include "phasesim/training/ziggurat.hpp"

using namespace phasesim;

namespace {

// A small layer that reaches every branch: W not a multiple of S (entry 0 loses a slot to
// position -1), W > S (neighbouring entries share tokens), two heads.
LayerModel small_model(bool content, bool rms_norm) {
  LayerModel m;
  m.geometry = {5, 2};
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
      if (entry_holds(m.geometry, j, c.needle)) hit += e;
    }
    mass += hit / z / m.heads;
  }
  ref.loss = std::log1p(m.loss.answers * std::exp(-m.beta_out * mass));
  return ref;
}

}  // namespace

TEST_CASE("the layer's loss and argmax are those of its definition") {
  for (bool content : {false, true}) {
    for (bool rms : {false, true}) {
      CAPTURE(content);
      CAPTURE(rms);
      const auto m = small_model(content, rms);
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
}

TEST_CASE("the hand-written gradient matches finite differences on b, a and lambda") {
  for (bool content : {false, true}) {
    for (bool rms : {false, true}) {
      CAPTURE(content);
      CAPTURE(rms);
      const auto m = small_model(content, rms);
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
      if (content) CHECK(numeric.content().norm() > 1e-3);
    }
  }
}

TEST_CASE("ziggurat normals: N(0, 1) within 5 standard errors, and keyed") {
  const RandomStream stream(42, 0, 0, Stream::training_token);
  constexpr int kVectors = 25000, kDim = 40;  // 10^6 normals
  std::vector<double> x(kDim);
  double sum = 0, sum_sq = 0;
  // P(X < z) at z = -3, -1.5, 0, 0.7, 2.5 and P(|X| > R = 3.4426) (the tail algorithm).
  const double z[] = {-3, -1.5, 0, 0.7, 2.5};
  const double cdf[] = {0.0013498980316301, 0.0668072012688581, 0.5, 0.758036347776927,
                        0.993790334674224};  // Phi(z) from Python's math.erfc
  int below[5] = {0, 0, 0, 0, 0};
  int tail = 0;
  for (std::uint32_t v = 0; v < kVectors; ++v) {
    ziggurat_normals(stream, v, 1.0, x.data(), kDim);
    for (double value : x) {
      sum += value;
      sum_sq += value * value;
      for (int k = 0; k < 5; ++k) below[k] += value < z[k] ? 1 : 0;
      tail += std::fabs(value) > 3.442619855899 ? 1 : 0;
    }
  }
  const double n = double(kVectors) * kDim;
  CHECK(std::fabs(sum / n) < 5 / std::sqrt(n));
  CHECK(std::fabs(sum_sq / n - 1) < 5 * std::sqrt(2 / n));
  for (int k = 0; k < 5; ++k) {
    CAPTURE(z[k]);
    CHECK(std::fabs(below[k] / n - cdf[k]) < 5 * std::sqrt(cdf[k] * (1 - cdf[k]) / n));
  }
  const double p_tail = 5.7610851e-4;  // 2 (1 - Phi(3.442619855899)), Python's math.erfc
  CHECK(std::fabs(tail / n - p_tail) < 5 * std::sqrt(p_tail / n));

  std::vector<double> again(kDim), other(kDim);
  ziggurat_normals(stream, 7, 1.0, x.data(), kDim);
  ziggurat_normals(stream, 7, 1.0, again.data(), kDim);
  ziggurat_normals(stream, 8, 1.0, other.data(), kDim);
  CHECK(x == again);
  CHECK(x != other);
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

TEST_CASE("a short training run concentrates the gates, the same on 1 and 2 threads") {
  LabSpec spec;
  spec.model.geometry = {8, 4};
  spec.model.heads = 2;
  spec.model.dim = 16;
  spec.model.context = 256;
  spec.model.query_noise = 1;
  spec.model.content = true;
  spec.steps = 150;
  spec.batch = 8;
  spec.adam.lr = 0.1;
  spec.record_every = 50;
  spec.groups = 4;
  spec.prompts = 16;
  spec.validate();
  const auto one = run_lab(spec, Parallel{1});
  const auto two = run_lab(spec, Parallel{2});
  const auto& start = one.training.trajectory.front();
  const auto& end = one.training.trajectory.back();
  for (int h = 0; h < spec.model.heads; ++h) {
    CAPTURE(h);
    CHECK(start.row(h).maxCoeff() < 0.2);  // near 1/W = 0.125 at init scale 0.1
    CHECK(end.row(h).maxCoeff() > 0.8);
  }
  CHECK(one.training.final.values() == two.training.final.values());
  CHECK(one.training.loss_curve.back().loss == two.training.loss_curve.back().loss);
  for (std::size_t r = 0; r < one.evaluation.table.groups.size(); ++r) {
    CHECK(one.evaluation.table.groups[r].successes == two.evaluation.table.groups[r].successes);
  }
  CHECK(one.training.trajectory_steps == std::vector<int>{0, 50, 100, 150});
  // The loss fell: concentrated heads put their attention on the needle.
  CHECK(one.training.loss_curve.back().loss < one.training.loss_curve.front().loss - 0.3);
}
