// The two-stage path: the read path (MODEL.md section 10) in the standardized channel, O(W + n)
// a trial whatever k and the context (sim/ENGINES.md, "The read path").
#include "phasesim/engines/full_vector.hpp"
#include "sampler.hpp"

namespace phasesim::engines::fast {
namespace {

// Indices of the trial's Stream::read_path.
enum : std::uint32_t {
  kResidual = 0,       // the attention's residuals e_{i,G}, component G * n + i
  kIndexResidual = 1,  // the selection score's
  kNoise = 2,          // component x: Z of place x's attention logit
  kIndexNoise = 3,     // component x: Z' of its selection score
};

// r_{i,G} = (e_{i,G} - mean_i e_{., G}) / sqrt(w_G): the needle tokens' projections given that
// their normalized sum is beta (model/needle_laws.hpp). Nothing for a needle of one token.
void draw_residuals(const RandomStream& stream, std::uint32_t index, const NeedleLaws& laws,
                    std::vector<double>& out) {
  const int n = laws.tokens;
  out.assign(static_cast<std::size_t>(laws.groups() * n), 0.0);
  if (n == 1) return;
  fill_normals(stream, index, laws.groups() * n, 1.0, out.data());
  for (int g = 0; g < laws.groups(); ++g) {
    double* e = out.data() + static_cast<std::ptrdiff_t>(g) * n;
    double mean = 0;
    for (int i = 0; i < n; ++i) mean += e[i];
    mean /= n;
    const double scale = laws.group_scales[static_cast<std::size_t>(g)];
    for (int i = 0; i < n; ++i) e[i] = (e[i] - mean) * scale;
  }
}

// One place's logit: its mean, its residuals' part and its own noise sd * z.
double place_logit(const NeedleLaws& laws, const NeedlePlace& place,
                   const std::vector<double>& residual, double z) {
  double logit = place.mean;
  const auto c = laws.residual(place);
  for (std::size_t i = 0; i < c.size(); ++i) logit += c[i] * residual[i];
  return logit + place.sd * z;
}

}  // namespace

// The needle's places from both stages' laws (the same entries, in the same order), their
// residuals and own noises; everything else the standardized channel makes iid: the other
// visible entries (stage 1 by their order statistics) and the window's haystack tokens.
TwoStage sample_two_stage(const Sampler& s, const Head& h, const Trial& t, Workspace& ws) {
  const int n = h.needle_tokens;
  needle_laws(h.geometry, h.gate, h.gate_laws, h.split_rho, h.beta, t.needle, n, h.entries,
              h.raw_from, ws.laws);
  const std::int64_t nowhere = h.raw_from + h.read.sliding_window;  // the index reads no raw token
  needle_laws(h.geometry, h.index_gate, h.index_gate_laws, 1.0, h.index_beta, t.needle, n,
              h.entries, nowhere, ws.index_laws);
  const auto read = s.stream(t, Stream::read_path);
  draw_residuals(read, kResidual, ws.laws, ws.residual);
  draw_residuals(read, kIndexResidual, ws.index_laws, ws.index_residual);
  const double rho = h.read.index_rho;
  const double spread = std::sqrt((1 - rho) * (1 + rho));
  ws.places.clear();
  const auto entries = ws.laws.entries();
  PHASESIM_ASSERT(ws.index_laws.places.size() == entries);  // one index place per entry
  for (std::size_t x = 0; x < ws.laws.places.size(); ++x) {
    const auto& place = ws.laws.places[x];
    const auto i = static_cast<std::uint32_t>(x);
    // Raw blocks read a kept entry's raw tokens: the needle's own at u = 1 (one token, W = S).
    const double pooled = place_logit(ws.laws, place, ws.residual, read.normal(kNoise, i));
    const double a = h.read.raw_blocks ? h.beta : pooled;
    if (place.raw) {
      ws.places.push_back({0.0, a, true, true});
      continue;
    }
    const double index = place_logit(ws.index_laws, ws.index_laws.places[x], ws.index_residual,
                                     read.normal(kIndexNoise, i));
    ws.places.push_back({rho * a + spread * index, a, true, false});
  }
  const auto raw_needle = static_cast<std::int64_t>(ws.laws.places.size() - entries);
  Rest rest;
  rest.entries = h.entries - static_cast<std::int64_t>(entries);
  rest.rho = rho;
  rest.top_k = h.top_k;
  rest.raw = h.read.sliding_window - raw_needle;
  rest.sink = h.read.sink;
  rest.block_tokens = h.read.raw_blocks ? h.geometry.window : 0;
  return read_two_stages(ws.places, rest, s.stream(t, Stream::selection));
}

}  // namespace phasesim::engines::fast
