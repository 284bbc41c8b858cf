// The fits' success curves (curve.hpp): section 4's argmax, or the read path's two stages.
#include "curve.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "phasesim/channel/needle_read.hpp"
#include "phasesim/channel/read_path.hpp"

namespace phasesim::diagnose::detail {
namespace {

// As the channel's SuccessCurve: the success turns from chance to 1 over about 1/beta in u.
int node_count(double beta) { return 33 + 6 * static_cast<int>(std::ceil(beta)); }

}  // namespace

std::array<double, 2> read_path_variants(const channel::PhaseSlots& slots, double u, double beta,
                                         const FitInput& input) {
  if (slots.holding == 0) return {0, 0};
  const double sd = std::sqrt(std::max(0.0, 1 - u * u));
  std::vector<channel::TwoStagePlace> places;
  for (int x = 0; x < slots.holding; ++x) {
    const channel::NeedleEntry law =
        x < slots.weighted ? channel::NeedleEntry{beta * u, sd} : channel::NeedleEntry{0.0, 1.0};
    places.push_back({law, law, false});
  }
  channel::TwoStageRest rest;
  rest.entries = input.entries - slots.holding;
  rest.top_k = input.top_k.value_or(input.entries);
  // Far from the query, and (with a window) inside it, as niah's analytic engine reads them;
  // the table's groups mix the two.
  const auto values = channel::two_stage_variants(
      places, rest, channel::far_and_window_variants(beta, input.sliding_window));
  return {values.front().retrieved, values.back().retrieved};
}

double read_path_success_at(const channel::PhaseSlots& slots, double u, double beta,
                            const FitInput& input) {
  const auto [far, window] = read_path_variants(slots, u, beta, input);
  return input.mixed(far, window);
}

double phase_success(const channel::PhaseSlots& slots, double u, double beta,
                     const FitInput& input) {
  return input.read_path() ? read_path_success_at(slots, u, beta, input)
                           : channel::phase_success_at(slots, u, beta, input.entries);
}

PhaseCurve::PhaseCurve(const channel::PhaseSlots& slots, double beta, const FitInput& input,
                       const Parallel& parallel)
    : max_u_(1 / std::sqrt(static_cast<double>(std::max(1, slots.weighted)))) {
  if (!input.read_path()) {
    plain_.emplace(slots, beta, input.entries);
    return;
  }
  const int nodes = node_count(beta);
  const double top = std::asin(max_u_);
  std::vector<double> values(static_cast<std::size_t>(nodes));
  // Each node on its own: parallel_for (this process), not parallel_map, whose MPI job split
  // needs every rank at the call. The caller's stop, not its progress (which counts its items).
  parallel_for(Parallel{parallel.threads, {}, parallel.stop}, nodes, [&](std::int64_t j) {
    values[static_cast<std::size_t>(j)] = read_path_success_at(
        slots, std::sin(top * static_cast<double>(j) / (nodes - 1)), beta, input);
  });
  const double nan = std::numeric_limits<double>::quiet_NaN();
  read_.emplace(values.begin(), values.end(), 0.0, top / (nodes - 1), nan,
                slots.weighted == 1 ? 0.0 : nan);
}

double PhaseCurve::operator()(double u) const {
  if (plain_) return (*plain_)(u);
  return std::clamp((*read_)(std::asin(std::clamp(u, 0.0, max_u_))), 0.0, 1.0);
}

namespace {

std::array<double, 2> token_reads_at(const FitInput& input, const Gate& gate, double beta, int phi,
                                     channel::ReadAccuracy accuracy) {
  if (input.phases[static_cast<std::size_t>(phi)].slots.holding == 0) return {0, 0};
  channel::HeadRead read;
  read.entries = input.entries;
  read.top_k = input.top_k.value_or(input.entries);
  read.sliding_window = input.sliding_window;
  read.beta = beta;
  read.index_beta = beta;
  const Geometry geometry{input.window, input.stride};
  const auto values = channel::needle_read_values(
      channel::needle_stages(geometry, gate, gate, read, phi, 2), accuracy);
  return {values.front().retrieved, values.back().retrieved};
}

}  // namespace

std::array<double, 2> token_read_variants(const FitInput& input, const Gate& gate, double beta,
                                          int phi) {
  return token_reads_at(input, gate, beta, phi, channel::ReadAccuracy::exact);
}

double token_read(const FitInput& input, const Gate& gate, double beta, int phi) {
  const auto [far, window] = token_read_variants(input, gate, beta, phi);
  return input.mixed(far, window);
}

double token_table_read(const FitInput& input, const Gate& gate, double beta, int phi) {
  const auto [far, window] = token_reads_at(input, gate, beta, phi, channel::ReadAccuracy::table);
  return input.mixed(far, window);
}

}  // namespace phasesim::diagnose::detail
