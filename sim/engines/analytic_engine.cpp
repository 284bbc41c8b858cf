#include "phasesim/engines/analytic_engine.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "phasesim/channel/needle_read.hpp"
#include "phasesim/channel/phase_channel.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/parallel.hpp"

namespace phasesim::engines::analytic {

// What the engine gives of one head (niah::EngineOutput's four rows for it); a result of
// parallel_map, so it crosses MPI ranks (core/bytes.hpp).
struct HeadSuccess {
  std::vector<double> far, far_selected, window, window_selected;
};

}  // namespace phasesim::engines::analytic

// Specialized by its qualified name, so that this layer opens no namespace but its own.
template <>
struct phasesim::Fields<phasesim::engines::analytic::HeadSuccess> {
  static auto of(auto& h) { return std::tie(h.far, h.far_selected, h.window, h.window_selected); }
};

namespace phasesim::engines {
namespace {

using analytic::HeadSuccess;

constexpr std::int64_t kMaxClasses = std::int64_t{1} << 20;
// Measured (benchmarks/commands_benchmark.cpp, BM_NiahAnalytic and BM_Frontier): a phase's
// quadrature costs about this much per slot it holds, and the report about this much per head
// it combines at a class of needle positions (niah::exact_report_work).
constexpr double kSecondsPerSlot = 0.7e-4;
constexpr double kSecondsPerCombinedHead = 1e-8;
// A phase of a head with a read path sums over the 2^m sets of its m compressed places that stage
// 1 may keep, each a few integrals over m places: measured at one thread, about 0.2 ms per set
// and place (W 8 S 4: 1.7 ms a phase, BM_AnalyticReadPath/512; W 32, 48 and 64 with S 8 at
// k = 64: 7.5, 45 and 260 ms). Beyond k = 2048 the incomplete beta in its integrands costs up to
// 70 times more, unevenly in k (W 8 S 4 at L = 2^20: 15 ms a phase at k = 4096, 105 at 8192, 165
// at 32768, 62 at 65536): bounded by k / 64, at most 80 times.
constexpr double kSecondsPerSetAndPlace = 2e-4;
constexpr std::int64_t kCheapTopK = 2048;
// A needle of 2 tokens integrates each set's stages over their factor, adaptively: measured at one
// thread, W 8 S 4 at k = 64 with a 64-token window, 4.1 s against 0.04 s for one token, its 3
// places to 2 (niah --needle-tokens 2 --engine analytic --threads 1).
constexpr double kTiedFactor = 200;

double read_phase_seconds(const niah::NiahModel& m, int h) {
  const auto& g = m.geometry(h);
  const int n = m.needle_tokens;
  const int places = (g.window + n - 1 + g.stride - 1) / g.stride;  // at most 20: check_read_path
  const auto k = m.read_path(h).top_k.value_or(0);
  const double slow = m.read_path(h).selects(m.entries(h)) && k > kCheapTopK
                          ? std::min(80.0, static_cast<double>(k) / 64)
                          : 1.0;
  return kSecondsPerSetAndPlace * places * std::ldexp(1.0, places) * slow *
         (n > 1 ? kTiedFactor : 1);
}

// What the order-statistic quadrature is exact for (channel/read_path.hpp): independent
// places (a needle of one token), a selection score independent of the attention logit, the
// standardized channel.
void check_read_path(const niah::NiahModel& model) {
  if (model.plain()) return;
  const auto refuse = [](const std::string& why) {
    throw InputError("invalid --engine analytic: " + why + "; use --engine fast");
  };
  if (model.needle_tokens > 2) {
    throw InputError("invalid --needle-tokens " + std::to_string(model.needle_tokens) +
                     " with --engine analytic (it integrates needles of 1 or 2 tokens, whose "
                     "tied places share one factor a stage; use --engine fast)");
  }
  if (model.full_vector()) {
    refuse(
        "the read path (MODEL.md section 10) is computed in the standardized channel, not "
        "the full-vector model's large-d limit (give --beta)");
  }
  for (int h = 0; h < model.heads(); ++h) {
    const auto rho = model.read_path(h).index_rho;
    if (rho != 0 && model.read_path(h).selects(model.entries(h))) {
      refuse("--index-rho " + format_number(rho) +
             " ties the selected entries' attention logits to their selection scores, which the "
             "order-statistic quadrature assumes independent");
    }
    if (model.needle_tokens > 1 && (model.gates[static_cast<std::size_t>(h)].per_channel() ||
                                    model.index_gate(h).per_channel()))
      refuse(
          "a needle of 2 tokens under a per-channel gate ties its places by a factor per "
          "channel group, which the analytic read path does not integrate");
    const auto places =
        (model.geometry(h).window + model.needle_tokens - 1 + model.geometry(h).stride - 1) /
        model.geometry(h).stride;
    if (places > 20)
      refuse("head " + std::to_string(h) + " holds a needle in more than 20 entries");
  }
}

// How head h reads its cache, resolved for channel::needle_stages.
channel::HeadRead head_read(const niah::NiahModel& m, int h) {
  const auto& path = m.read_path(h);
  channel::HeadRead read;
  read.entries = m.entries(h);
  read.top_k = path.top_k.value_or(m.entries(h));
  read.sliding_window = path.sliding_window;
  read.sink = path.sink;
  read.raw_blocks = path.raw_blocks;
  read.split_rho = m.split_rho(h);
  read.beta = m.head_beta(h);
  read.index_beta = m.index_beta(h);
  return read;
}

// The stages of a needle of each phase of head h far from the query (channel/needle_read.hpp: the
// read diagnose's fit of 2-token needles shares), the gates' laws (O(W)) computed once a head.
std::vector<channel::NeedleStages> phase_stages(const niah::NiahModel& m, int h) {
  const auto& g = m.geometry(h);
  const auto& gate = m.gates[static_cast<std::size_t>(h)];
  const auto& index_gate = m.index_gate(h);
  const auto pooled = gate_laws(gate);
  const auto index_pooled = gate_laws(index_gate);
  const auto read = head_read(m, h);
  std::vector<channel::NeedleStages> stages;
  for (int phi = 0; phi < g.stride; ++phi) {
    stages.push_back(channel::needle_stages(g, {gate, pooled}, {index_gate, index_pooled}, read,
                                            phi, m.needle_tokens));
  }
  return stages;
}

// For each phase, the first phase whose places have the same laws, and so the same values (all
// of them under a uniform gate with W = S, as MoBA's 4096): only those are computed.
std::vector<int> first_alike(const std::vector<channel::NeedleStages>& stages) {
  std::map<std::vector<double>, int> first;
  std::vector<int> source;
  for (const auto& phase : stages) {
    std::vector<double> key;
    for (const auto& x : phase.places) {
      key.insert(key.end(), {x.attention.mean, x.attention.sd, x.selection.mean, x.selection.sd,
                             x.attention_tie, x.selection_tie});
    }
    source.push_back(first.try_emplace(key, static_cast<int>(source.size())).first->second);
  }
  return source;
}

// The head's two stages for a needle of each phase far from the query, and inside its window.
HeadSuccess read_path_success(const niah::NiahModel& m, int h) {
  const auto stages = phase_stages(m, h);
  const auto source = first_alike(stages);
  std::vector<std::vector<channel::TwoStageValue>> values(stages.size());
  HeadSuccess head;
  for (std::size_t phi = 0; phi < stages.size(); ++phi) {
    auto& value = values[static_cast<std::size_t>(source[phi])];
    // Far from the query, and (with a window) inside it: one stage 1.
    if (value.empty()) value = channel::needle_read_values(stages[phi]);
    head.far.push_back(value.front().retrieved);
    head.far_selected.push_back(value.front().selected);
    head.window.push_back(value.back().retrieved);
    head.window_selected.push_back(value.back().selected);
  }
  return head;
}

// Section 4's argmax over every entry: stage 1 passes, and the head has no window.
HeadSuccess plain_success(const niah::NiahModel& m, int h) {
  HeadSuccess head;
  head.far = channel::phase_success(m.geometry(h), m.gates[static_cast<std::size_t>(h)],
                                    m.head_beta(h), m.entries(h), m.split_rho(h));
  head.far_selected.assign(head.far.size(), 1.0);
  head.window = head.far;
  head.window_selected = head.far_selected;
  return head;
}

// True when two gates pool alike: the same weights, and the same channel groups (a per-channel
// gate's weights are only its groups' mean, which a gate of one group can equal).
bool same_pooling(const Gate& a, const Gate& b) {
  return a.weights == b.weights &&
         std::equal(a.channels.begin(), a.channels.end(), b.channels.begin(), b.channels.end(),
                    [](const ChannelGroup& x, const ChannelGroup& y) {
                      return x.weights == y.weights && x.share == y.share;
                    });
}

// True when heads a and b read their caches alike (the same plain argmax, or the same stages).
bool same_read(const niah::NiahModel& m, int a, int b) {
  if (m.plain(a) || m.plain(b)) return m.plain(a) && m.plain(b);
  const auto& x = m.read_path(a);
  const auto& y = m.read_path(b);
  return x.top_k == y.top_k && x.index_rho == y.index_rho && x.sliding_window == y.sliding_window &&
         x.sink == y.sink && x.raw_blocks == y.raw_blocks && m.index_beta(a) == m.index_beta(b) &&
         same_pooling(m.index_gate(a), m.index_gate(b));
}

// True when heads a and b give the same P by phase: one geometry, gate, projection, beta and
// read.
bool same_head(const niah::NiahModel& m, int a, int b) {
  const auto& x = m.geometry(a);
  const auto& y = m.geometry(b);
  return x.window == y.window && x.stride == y.stride && x.offset == y.offset &&
         m.split_rho(a) == m.split_rho(b) && m.head_beta(a) == m.head_beta(b) &&
         same_pooling(m.gates[static_cast<std::size_t>(a)], m.gates[static_cast<std::size_t>(b)]) &&
         same_read(m, a, b);
}

}  // namespace

void AnalyticEngine::check(const niah::NiahModel& model) const {
  require(model.content_noise == 0,
          "invalid --content-noise " + format_number(model.content_noise) +
              " with --engine analytic (the analytic channel has no content noise; use "
              "--engine fast)");
  // Query heads of one cache combine as one head (one Bernoulli, all their votes): exact where
  // they have one query, in the standardized channel and without query noise (shares_cache
  // last: it scans every head).
  for (int h = 0; h < model.heads(); ++h) {
    require(!(model.full_vector() && model.head_query_noise(h) > 0 && model.shares_cache(h)),
            "invalid --engine analytic: query heads that share a cache (query_heads) with query "
            "noise (--query-noise, or a layer's beta below sqrt(d)) have correlated logits the "
            "analytic channel does not compute; use --engine full");
  }
  check_read_path(model);
  // The report combines heads per class of needle positions modulo the strides' lcm: bound
  // that work, and its memory, before any.
  const auto classes = niah::stride_period(model.geometries, model.context);
  require(classes <= kMaxClasses,
          "invalid --engine analytic (the heads' strides give " + std::to_string(classes) +
              " classes of needle positions to combine the heads over, more than " +
              std::to_string(kMaxClasses) + "; use --engine fast)");
}

std::string AnalyticEngine::approximation(const niah::NiahModel& model) const {
  return model.full_vector() ? "the large-d limit of the full-vector model" : "";
}

std::vector<std::string> AnalyticEngine::paths(const niah::NiahModel& model) const {
  return std::vector<std::string>(static_cast<std::size_t>(model.heads()), "quadrature");
}

std::vector<int> AnalyticEngine::computed_as(const niah::NiahModel& m) {
  std::vector<int> source;
  for (int h = 0; h < m.heads(); ++h) {
    // A query head reads its cache's first head's P, which may itself repeat an earlier head's.
    const int cache = m.alike_head(h);
    int same = cache != h && same_head(m, cache, h) ? source[static_cast<std::size_t>(cache)] : h;
    for (int e = 0; e < h && same == h; ++e) {
      if (source[static_cast<std::size_t>(e)] == e && same_head(m, e, h)) same = e;
    }
    source.push_back(same);
  }
  return source;
}

WorkEstimate AnalyticEngine::estimate(const niah::NiahRun& run) const {
  const auto& m = run.model;
  const auto source = computed_as(m);
  double seconds = 0;  // one quadrature per distinct head and distinct phase
  for (int h = 0; h < m.heads(); ++h) {
    if (source[static_cast<std::size_t>(h)] != h) continue;
    if (m.plain(h)) {
      seconds += m.geometry(h).window * kSecondsPerSlot;
      continue;
    }
    const auto alike = first_alike(phase_stages(m, h));
    double distinct = 0;
    for (std::size_t phi = 0; phi < alike.size(); ++phi)
      distinct += alike[phi] == static_cast<int>(phi);
    seconds += distinct * read_phase_seconds(m, h);
  }
  const auto trials = static_cast<double>(run.needles.trials());
  return {seconds + niah::exact_report_work(run) * kSecondsPerCombinedHead,
          32.0 * m.heads() * m.max_window() + 32 * trials * m.heads()};
}

niah::EngineOutput AnalyticEngine::run(const niah::NiahRun& run, const Parallel& parallel) const {
  const auto& m = run.model;
  const auto source = computed_as(m);
  std::vector<int> distinct;
  for (int h = 0; h < m.heads(); ++h) {
    if (source[static_cast<std::size_t>(h)] == h) distinct.push_back(h);
  }
  const auto computed =
      parallel_map(parallel, static_cast<std::int64_t>(distinct.size()), [&](std::int64_t i) {
        const int h = distinct[static_cast<std::size_t>(i)];
        return m.plain(h) ? plain_success(m, h) : read_path_success(m, h);
      });
  niah::EngineOutput output;
  for (int h = 0; h < m.heads(); ++h) {
    const auto& head = computed[static_cast<std::size_t>(
        std::find(distinct.begin(), distinct.end(), source[static_cast<std::size_t>(h)]) -
        distinct.begin())];
    output.phase_success.push_back(head.far);
    if (m.plain()) continue;  // section 4's argmax everywhere: the other rows stay empty
    output.phase_selected.push_back(head.far_selected);
    output.window_success.push_back(head.window);
    output.window_selected.push_back(head.window_selected);
  }
  return output;
}

std::unique_ptr<Engine> make_analytic_engine() { return std::make_unique<AnalyticEngine>(); }

}  // namespace phasesim::engines
