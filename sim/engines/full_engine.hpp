#pragma once
// The full engine's kernel: the full-vector model materialized (keys, pooled entries, argmax
// over all N_c entries) by the per-trial scan of full_vector.hpp, in float with SIMD
// (full_vector_simd.hpp: the `full` engine) or in double (DoubleOps: `full-double`, the
// reference the float engine is measured against).
#include <cstdint>
#include <vector>

#include "full_vector_heads.hpp"
#include "monte_carlo.hpp"

namespace phasesim::engines {

template <typename Real>
class FullScanner {
 public:
  static constexpr bool kArgmaxes = true;

  /// The model must be full-vector (dim > 0).
  explicit FullScanner(const niah::NiahModel& model);
  FullScanner(const FullScanner&) = delete;  // heads_ point into model_
  FullScanner& operator=(const FullScanner&) = delete;

  /// Per-thread scratch: the ring buffer of the last W keys (W the largest window of any
  /// head) and a few d-vectors, O(W d).
  struct Workspace {
    std::vector<Real> reals;
    std::vector<double> doubles;
    // The read path (MODEL.md section 10): the indexer's scan, every entry's logit and score.
    std::vector<Real> index_reals;
    std::vector<double> index_doubles;
    std::vector<Real> attention;
    std::vector<double> score;
  };
  Workspace workspace() const;

  /// The entry `head` attends to in `trial` and whether it holds the needle.
  HeadOutcome trial(std::uint32_t trial, std::int64_t needle, int head, Workspace& ws) const;

 private:
  niah::NiahModel model_;
  FullVectorHeads heads_;  ///< point into model_.gates
  int window_ = 0;         ///< the largest window of any head
  int row_ = 0;            ///< numbers per key row
};

}  // namespace phasesim::engines
