#include "phasesim/niah/needle.hpp"

#include <numeric>
#include <string>

#include "phasesim/core/error.hpp"

namespace phasesim {
namespace {

constexpr std::int64_t kMaxCounter = 4294967295;  // trials and positions index 32-bit counters

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

NeedlePlan plan_needles(const Geometry& geometry, std::int64_t context, int groups, int prompts) {
  require(groups >= 1, "invalid --groups " + std::to_string(groups) + " (must be at least 1)");
  require(prompts >= 1, "invalid --prompts " + std::to_string(prompts) + " (must be at least 1)");
  const std::int64_t G = groups;
  require(G * prompts <= kMaxCounter, "invalid --prompts " + std::to_string(prompts) +
                                          " (--groups x --prompts must be at most " +
                                          std::to_string(kMaxCounter) + ")");
  require(context <= kMaxCounter, "invalid --context " + std::to_string(context) +
                                      " (must be at most " + std::to_string(kMaxCounter) + ")");
  const std::int64_t W = geometry.window;
  const std::int64_t S = geometry.stride;
  // Needles lie in [W, N_c*S - W]: group r uses p = k*G + r for k in [first, last].
  const std::int64_t first = ceil_div(W, G);
  const std::int64_t shortest = S * ceil_div(first * G + G - 1 + W, S);
  require(context >= shortest, "invalid --context " + std::to_string(context) +
                                   " (must be at least " + std::to_string(shortest) +
                                   " for --window " + std::to_string(W) + ", --stride " +
                                   std::to_string(S) + " and --groups " + std::to_string(G) + ")");
  const std::int64_t highest = geometry.entries_before(context) * S - W;
  const std::int64_t last = (highest - (G - 1)) / G;
  return {groups, prompts, first, last - first + 1};
}

std::vector<std::int64_t> phase_counts(const NeedlePlan& plan, const Geometry& geometry,
                                       int group) {
  // The phase of k*G + r repeats in k with period S / gcd(G, S).
  const std::int64_t period = geometry.stride / std::gcd(plan.groups, geometry.stride);
  const std::int64_t cycles = plan.block_count / period;
  const std::int64_t rest = plan.block_count % period;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(geometry.stride), 0);
  for (std::int64_t i = 0; i < period; ++i) {
    const auto p = (plan.first_block + i) * plan.groups + group;
    counts[static_cast<std::size_t>(geometry.phase_of_position(p))] += cycles + (i < rest ? 1 : 0);
  }
  return counts;
}

}  // namespace phasesim
