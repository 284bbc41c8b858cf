#pragma once
// Needle placement of the per-phase needle-in-a-haystack protocol (MODEL.md section 5).
//
// Trial t = group * prompts + prompt. A needle of group r sits at p = k*G + r, the block
// index k uniform on the same range for every group, so that every group has the same mean
// and spread of absolute position. The range keeps p in [max(W, o), N_c*S + o - W] for
// every head: every entry that holds the needle exists, has all its slots at positions
// >= 0 (no renormalized gate) and ends before the query at position L. A needle of n tokens
// (p..p+n-1) keeps every token there: p + n - 1 <= N_c*S + o - W, so its entries are
// complete before the query (causality changes nothing for them), and those of its tokens in
// the last N of the context are read raw as well (the sliding window).
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "phasesim/core/host_device.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/model/geometry.hpp"

namespace phasesim::niah {

struct NeedlePlan {
  int groups = 1;                ///< G: group = needle position mod G
  int prompts = 1;               ///< P: trials per group
  std::int64_t first_block = 0;  ///< smallest k
  std::int64_t block_count = 1;  ///< number of k values

  PHASESIM_HD std::int64_t trials() const { return static_cast<std::int64_t>(groups) * prompts; }
  PHASESIM_HD int group_of(std::uint32_t trial) const { return static_cast<int>(trial / prompts); }
  PHASESIM_HD std::int64_t first_position(int group) const { return first_block * groups + group; }
  PHASESIM_HD std::int64_t last_position(int group) const {
    return (first_block + block_count - 1) * groups + group;
  }
  /// How many of the group's positions lie at or past `from` (the needles a window reaches).
  std::int64_t positions_from(int group, std::int64_t from) const {
    const auto first = std::max(from, first_position(group));
    const auto last = last_position(group);
    return last < first ? 0 : (last - first) / groups + 1;
  }

  /// Needle position of a trial: k uniform from Stream::needle_position (head 0, index 0).
  PHASESIM_HD std::int64_t position(std::uint64_t seed, std::uint32_t trial) const {
    const RandomStream stream(seed, trial, 0, Stream::needle_position);
    const double u = stream.uniform_pair(0, 0).x;  // (0, 1]
    auto offset = static_cast<std::int64_t>((1 - u) * static_cast<double>(block_count));
    if (offset >= block_count) offset = block_count - 1;
    return (first_block + offset) * groups + group_of(trial);
  }
};

/// The plan for a context of L tokens and heads of the given geometries, the range interior
/// for every head. Throws InputError naming --groups, --prompts or --context when G < 1,
/// P < 1, G * P exceeds the 32-bit trial counter, or the context is too short to hold G
/// groups of interior needle positions; `heads` names the geometries in that message
/// ("... must be at least 24 for HEADS and --groups 8"). `tokens`: the needle's (n).
/// The first needle position whose n tokens all lie in the last `window` tokens of the context,
/// those a sliding window of that many raw tokens reads: L - N - n + 1; the context itself
/// (past every needle) without a window.
inline std::int64_t window_reach(std::int64_t context, std::int64_t window, int tokens) {
  return window > 0 ? context - window - (tokens - 1) : context;
}

NeedlePlan plan_needles(std::span<const Geometry> geometries, std::int64_t context, int groups,
                        int prompts, const std::string& heads, int tokens = 1);

/// The plan for heads of one geometry, named "--window W, --stride S" in messages.
NeedlePlan plan_needles(const Geometry& geometry, std::int64_t context, int groups, int prompts,
                        int tokens = 1);

/// Needle positions of one class: the first position of the class and how many of a
/// group's block_count positions fall in it.
struct PositionClass {
  std::int64_t position;
  std::int64_t count;
};

/// The needle positions of group r by class modulo `modulus` (a multiple of every stride,
/// so that a class fixes every head's phase), in increasing order of the class: the exact
/// distribution the Monte Carlo engines sample from, in at most min(modulus, block_count)
/// classes.
std::vector<PositionClass> position_classes(const NeedlePlan& plan, std::int64_t modulus,
                                            int group);

/// How many classes position_classes gives each group.
std::int64_t position_class_count(const NeedlePlan& plan, std::int64_t modulus);

/// The least common multiple of the strides, or `above` when it is not below it: with
/// `above` greater than every needle position, each position then is its own class. The
/// modulus for position_classes.
std::int64_t stride_period(std::span<const Geometry> geometries, std::int64_t above);

}  // namespace phasesim::niah
