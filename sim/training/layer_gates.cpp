// The gates of the layer's heads (docs/TRAINING.md): softmax_s(b_s + c_t) over an entry's
// existing slots, evaluated from two factors computed once per head and context, exp(b_s - max b)
// and exp(c_t - max c), whose product is normalized entry by entry; a gate per channel takes
// one such softmax for every channel. Every softmax step is model/softmax.hpp's.
#include <algorithm>
#include <cmath>
#include <limits>

#include "layer_passes.hpp"
#include "phasesim/model/softmax.hpp"

namespace phasesim::training::detail {
namespace {

// A gate's factored exponentials exp(b_s - max b) exp(c_t - max c) are exact to rounding
// when they sum above this: their largest is then a normal double, and any subnormal one (whose
// last bits are lost) lies below its last bit. Below it (content logits hundreds of nats apart)
// the gate is the exact softmax instead; no trained layer of the lab comes near it.
constexpr double kSmallestFactoredSum = 1e-250;

// Divides a gate's factored numerators (exp_columns) by their sum, unless that sum is too small
// for them to be exact (kSmallestFactoredSum) or not finite: then it returns false, and the
// caller takes the exact softmax instead.
template <class Gate>
bool normalize_factored(Gate g, int count) {
  double sum = 0;
  for (int s = 0; s < count; ++s) sum += g[s];
  if (!(sum > kSmallestFactoredSum && std::isfinite(sum))) return false;
  for (int s = 0; s < count; ++s) g[s] /= sum;
  return true;
}

// exp(x - max) down every column of x, each column's shift shared with y's column when y has
// rows (the older keys' logits, so that products with newer and older slots share one softmax).
void exp_columns(Eigen::Map<RowMatrix> x, Eigen::Map<RowMatrix> y) {
  const auto cols = static_cast<int>(x.cols());
  const auto column = [&](Eigen::Map<RowMatrix>& m, int c) { return column_of(m.data(), cols, c); };
  for (int c = 0; c < cols; ++c) {
    double top = -std::numeric_limits<double>::infinity();
    for (auto* m : {&x, &y}) {
      if (m->rows() > 0) top = std::max(top, softmax_shift(column(*m, c), int(m->rows())));
    }
    for (auto* m : {&x, &y}) {
      if (m->rows() > 0) softmax_numerators(column(*m, c), int(m->rows()), top, column(*m, c));
    }
  }
}

// Head h's content logits as L x C (`logits`: token_logits or older_logits), or no rows where
// the model has none.
template <class Logits>  // RowMatrix, or const RowMatrix for a read-only view
Eigen::Map<Logits> logit_rows(const LayerModel& model, Logits& logits, int h) {
  const bool any = logits.rows() > 0;
  return {any ? logits.row(h).data() : nullptr, any ? ix(model.context) : 0, model.channels()};
}

// The exact softmax over the existing slots of channel c of entry j into column c of `g`, for
// when the factored exponentials sum below kSmallestFactoredSum.
void exact_channel_gate(const LayerModel& model, const LayerParameters& parameters,
                        const LayerContext& context, int h, Eigen::Index j, int c,
                        Eigen::Map<RowMatrix>& g) {
  const int W = model.geometry.window;
  const int older = model.older_slots();
  const int first = model.geometry.first_existing_slot(j);
  const Eigen::Index t0 = ix(model.geometry.position(j, 0));
  const auto b = parameters.head_bias(h);
  const auto A = parameters.head_content(h);
  for (int s = first; s < W; ++s) {
    g(s, c) = b(s, c) + (model.content ? A.row(c).dot(key_row(context, older, s, t0 + s)) : 0.0);
  }
  const auto column = column_of(g.data() + first * g.cols(), int(g.cols()), c);
  softmax(column, W - first, column);
}

}  // namespace

void gate_factors(const LayerModel& model, const LayerParameters& parameters, int h,
                  LayerWorkspace& w) {
  const int C = model.channels();
  Eigen::Map<RowMatrix> slot(w.slot_weights.data(), model.geometry.window, C);
  slot = parameters.head_bias(h);
  exp_columns(slot, {nullptr, 0, C});
  if (!model.content) return;
  exp_columns(logit_rows(model, w.token_logits, h), logit_rows(model, w.older_logits, h));
}

void entry_gate(const LayerModel& model, const LayerParameters& parameters,
                const LayerContext& context, int h, const LayerWorkspace& w, Eigen::Index j,
                double* g) {
  const int W = model.geometry.window;
  const int older = model.older_slots();
  const int first = model.geometry.first_existing_slot(j);
  const Eigen::Index t0 = ix(model.geometry.position(j, 0));
  const double* c = model.content ? w.token_logits.row(h).data() : nullptr;
  const double* c_older = model.content && older > 0 ? w.older_logits.row(h).data() : c;
  for (int s = 0; s < W; ++s) {
    // Only slots that exist (s >= first) have a logit to read.
    g[s] = s < first        ? 0.0
           : !model.content ? w.slot_weights[s]
           : s < older      ? w.slot_weights[s] * c_older[t0 + s]
                            : w.slot_weights[s] * c[t0 + s];
  }
  if (normalize_factored(g + first, W - first)) return;
  // Logits far apart: the exact softmax.
  const auto b = parameters.bias().row(h);
  const auto a = parameters.content().row(h);
  for (int s = first; s < W; ++s) {
    g[s] = b[s] + (model.content ? a.dot(key_row(context, older, s, t0 + s)) : 0.0);
  }
  softmax(g + first, W - first, g + first);
}

void channel_gate(const LayerModel& model, const LayerParameters& parameters,
                  const LayerContext& context, int h, const LayerWorkspace& w, Eigen::Index j,
                  Eigen::Map<RowMatrix> g) {
  const int W = model.geometry.window, d = model.dim;
  const int older = model.older_slots();
  const int first = model.geometry.first_existing_slot(j);
  const Eigen::Index t0 = ix(model.geometry.position(j, 0));
  const Eigen::Map<const RowMatrix> slot(w.slot_weights.data(), W, d);
  const auto newer_logits = logit_rows(model, w.token_logits, h);
  const auto older_logits = logit_rows(model, w.older_logits, h);
  g.topRows(first).setZero();
  for (int s = first; s < W; ++s) {
    g.row(s) = slot.row(s);
    if (model.content) {
      g.row(s).array() *= (s < older ? older_logits : newer_logits).row(t0 + s).array();
    }
  }
  for (int c = 0; c < d; ++c) {
    if (!normalize_factored(column_of(g.data() + first * d, d, c), W - first)) {
      exact_channel_gate(model, parameters, context, h, j, c, g);
    }
  }
}

}  // namespace phasesim::training::detail
