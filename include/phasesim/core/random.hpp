#pragma once
// Counter-based random streams (Philox4x32-10 from Random123), identical on CPU and GPU.
//
// Every number is a pure function of (seed, trial, head, stream, index, block): no
// state is carried between draws, so results do not depend on thread count, rank count
// or the order in which engines visit trials, and the CUDA kernel draws exactly the
// keys the CPU engine draws. Layout of one Philox call:
//   key     = {seed low 32 bits, seed high 32 bits}
//   counter = {index, block, trial, head << 8 | stream}
#include <Random123/philox.h>

#include <Random123/boxmuller.hpp>
#include <Random123/uniform.hpp>
#include <cmath>
#include <cstdint>

#include "phasesim/core/float_normal.hpp"
#include "phasesim/core/host_device.hpp"
#include "phasesim/core/portable_math.hpp"

namespace phasesim {

/// What a stream is used for; distinct streams never share a counter.
enum class Stream : std::uint32_t {
  gate_init = 1,        ///< random:SEED gate logits
  key = 2,              ///< key vectors, index = position
  query_noise = 3,      ///< query noise eps, index = needle position
  content_noise = 4,    ///< content term xi_t of the gate, index = position
  needle_position = 5,  ///< which needle position a trial uses
  channel = 6,          ///< standardized-channel draws of the fast engine
  distractor = 7,       ///< exact maxima / scalar logits of distractor entries
  token = 8,            ///< fast engine's streamed token projections and content noise
  split_key = 9,        ///< split projections: k''_t of a token's older key, index = position
  selection = 10,       ///< the read path's order statistics and stage-2 maxima (fast engine)
  read_path = 11,       ///< the read path's needle places in the standardized channel (fast)
  index_key = 12,       ///< the indexer's key of a token, index = position
  index_noise = 13,     ///< the indexer's query noise, index = needle position
  // Theorem checks (theory/), numbered apart from the engines' streams:
  content_context = 16,  ///< dynamics content noise: index = (context, phase), component = token
  head_assignment = 17,  ///< T3 sampling: index = head, which phase it covers
  // diagnose (sim/diagnose), numbered apart:
  diagnose_null = 24,  ///< null tables of the period tests: trial = replicate, index = group
  // The training lab (docs/TRAINING.md): trial = step (training) or NIAH trial (evaluation),
  // head = batch index (0 in evaluation), numbered apart from the streams above:
  training_token = 32,          ///< token embeddings of a training context: index = position
  training_query = 33,          ///< its query noise, index 0 (index = query head when K > 1)
  training_needle = 34,         ///< its needle position, index 0
  evaluation_token = 35,        ///< token embeddings of an evaluation context: index = position
  evaluation_query = 36,        ///< its query noise, index 0 (index = query head when K > 1)
  training_older_token = 37,    ///< x''_t of split projections' older keys: index = position
  evaluation_older_token = 38,  ///< the same in an evaluation context
};

class RandomStream {
 public:
  using Philox = r123::Philox4x32;

  PHASESIM_HD RandomStream(std::uint64_t seed, std::uint32_t trial, std::uint32_t head,
                           Stream stream)
      : key_{{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}},
        trial_(trial),
        tag_(head << 8 | static_cast<std::uint32_t>(stream)) {}

  /// Four random 32-bit words for (index, block).
  PHASESIM_HD Philox::ctr_type bits(std::uint32_t index, std::uint32_t block) const {
    return Philox()(counter(index, block), key_);
  }

  /// The Philox counter and key of (index, block): what a block generator needs to draw
  /// bits(index, block) for many counters at once.
  PHASESIM_HD Philox::ctr_type counter(std::uint32_t index, std::uint32_t block) const {
    return {{index, block, trial_, tag_}};
  }
  PHASESIM_HD Philox::key_type key() const { return key_; }

  /// Two independent N(0, 1) numbers for (index, block), by Box-Muller: sin and cos of
  /// pi * a, a uniform in (-1, 1), times sqrt(-2 log u), with Random123's uniforms. The log
  /// and sin/cos are portable_math.hpp's, not the math library's: glibc's differ between
  /// CPUs and CUDA's from both, and every engine must draw the same numbers everywhere.
  PHASESIM_HD r123::double2 normal_pair(std::uint32_t index, std::uint32_t block) const {
    const auto w = bits(index, block);
    const double radius = std::sqrt(-2.0 * portable::log(r123::u01<double>(join(w[2], w[3]))));
    const auto angle = portable::sincospi(r123::uneg11<double>(join(w[0], w[1])));
    return {angle.sin * radius, angle.cos * radius};
  }

  /// normal_pair(index, block) * scale in float, to float rounding (float_normal.hpp): the
  /// draw of the float engines, and bit for bit what the block generator writes.
  PHASESIM_HD float_normal::Pair normal_pair_float(std::uint32_t index, std::uint32_t block,
                                                   float scale = 1.0f) const {
    const auto w = bits(index, block);
    return float_normal::box_muller(w[1], w[2], w[3], scale);
  }

  /// Normal number `component` of the vector at `index`: pairs fill components 2b, 2b+1.
  PHASESIM_HD double normal(std::uint32_t index, std::uint32_t component) const {
    const auto pair = normal_pair(index, component / 2);
    return component % 2 == 0 ? pair.x : pair.y;
  }

  /// Two independent uniforms in (0, 1] with 53-bit resolution for (index, block).
  PHASESIM_HD r123::double2 uniform_pair(std::uint32_t index, std::uint32_t block) const {
    const auto w = bits(index, block);
    return {r123::u01<double>(join(w[0], w[1])), r123::u01<double>(join(w[2], w[3]))};
  }

 private:
  PHASESIM_HD static std::uint64_t join(std::uint32_t lo, std::uint32_t hi) {
    return static_cast<std::uint64_t>(hi) << 32 | lo;
  }

  Philox::key_type key_;
  std::uint32_t trial_;
  std::uint32_t tag_;
};

}  // namespace phasesim
