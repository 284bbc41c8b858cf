#include "phasesim/niah/needle.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "phasesim/core/error.hpp"

namespace phasesim::niah {
namespace {

constexpr std::int64_t kMaxCounter = 4294967295;  // trials and positions index 32-bit counters

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

NeedlePlan plan_needles(std::span<const Geometry> geometries, std::int64_t context, int groups,
                        int prompts, const std::string& heads, int tokens) {
  require_at_least(groups, 1, "--groups");
  require_at_least(prompts, 1, "--prompts");
  const std::int64_t G = groups;
  require(G * prompts <= kMaxCounter, "invalid --prompts " + std::to_string(prompts) +
                                          " (--groups x --prompts must be at most " +
                                          std::to_string(kMaxCounter) + ")");
  require(context <= kMaxCounter, "invalid --context " + std::to_string(context) +
                                      " (must be at most " + std::to_string(kMaxCounter) + ")");
  // Needles lie in every head's interior positions, all their tokens: group r uses p = k*G + r
  // for k in [first, last]; the first block's highest last token is first*G + G - 1 + n - 1.
  std::int64_t lowest = 0;
  for (const auto& g : geometries) {
    lowest = std::max(lowest, g.interior(g.entries_before(context)).first);
  }
  const std::int64_t first = ceil_div(lowest, G);
  const std::int64_t top_of_first = first * G + G - 1 + (tokens - 1);
  std::int64_t shortest = 0;
  std::int64_t highest = kMaxCounter;
  for (const auto& g : geometries) {
    // The entries whose interior reaches the first block's top: N_c S + o - W >= top.
    const std::int64_t S = g.stride;
    shortest = std::max(shortest, g.offset + S * ceil_div(top_of_first + g.window - g.offset, S));
    highest = std::min(highest, g.interior(g.entries_before(context)).last);
  }
  require(context >= shortest, "invalid --context " + std::to_string(context) +
                                   " (must be at least " + std::to_string(shortest) + " for " +
                                   heads + " and --groups " + std::to_string(G) + ")");
  const std::int64_t last = (highest - (tokens - 1) - (G - 1)) / G;
  return {groups, prompts, first, last - first + 1};
}

NeedlePlan plan_needles(const Geometry& geometry, std::int64_t context, int groups, int prompts,
                        int tokens) {
  return plan_needles(std::span(&geometry, 1), context, groups, prompts,
                      "--window " + std::to_string(geometry.window) + ", --stride " +
                          std::to_string(geometry.stride),
                      tokens);
}

std::vector<PositionClass> position_classes(const NeedlePlan& plan, std::int64_t modulus,
                                            int group) {
  const std::int64_t period = position_class_count(plan, modulus);
  const std::int64_t cycles = plan.block_count / period;
  const std::int64_t rest = plan.block_count % period;
  std::vector<PositionClass> classes;
  for (std::int64_t i = 0; i < period; ++i) {
    classes.push_back({(plan.first_block + i) * plan.groups + group, cycles + (i < rest ? 1 : 0)});
  }
  std::sort(classes.begin(), classes.end(), [&](const PositionClass& a, const PositionClass& b) {
    return a.position % modulus < b.position % modulus;
  });
  return classes;
}

std::int64_t position_class_count(const NeedlePlan& plan, std::int64_t modulus) {
  // The class of k*G + r repeats in k with period modulus / gcd(G, modulus).
  return std::min(modulus / std::gcd(static_cast<std::int64_t>(plan.groups), modulus),
                  plan.block_count);
}

std::int64_t stride_period(std::span<const Geometry> geometries, std::int64_t above) {
  std::int64_t period = 1;
  for (const auto& g : geometries) {
    period = std::lcm(period, static_cast<std::int64_t>(g.stride));
    if (period >= above) return above;  // also keeps the lcm from overflowing
  }
  return period;
}

}  // namespace phasesim::niah
