#pragma once
// The entry a head attends to: the argmax of its logits over the entries, with a total tie
// order, so that the argmaxes of ranges merged in any order or tree give the full scan's.
#include <cstdint>

#include "phasesim/core/host_device.hpp"

namespace phasesim {

/// Running argmax over entries offered in increasing order: a tie keeps the lowest entry.
struct Argmax {
  std::int64_t entry = -1;  ///< -1: no entry offered
  double logit = 0;

  PHASESIM_HD void offer(std::int64_t j, double value) {
    if (entry < 0 || value > logit) {
      entry = j;
      logit = value;
    }
  }

  /// Combines the argmax of another, disjoint set of entries: the higher logit wins and a tie
  /// the lower entry. This order is total, so merging the argmaxes of ranges that split
  /// 0..N_c-1, in any order or tree, gives exactly the sequential scan's answer.
  PHASESIM_HD void merge(const Argmax& other) {
    if (other.entry < 0) return;
    if (entry < 0 || other.logit > logit || (other.logit == logit && other.entry < entry)) {
      *this = other;
    }
  }
};

}  // namespace phasesim
