#pragma once
// The entry a head attends to: the argmax of its logits over the entries, with a total tie
// order, so that the argmaxes of ranges merged in any order or tree give the full scan's; and
// the runner-up logit, so that a report can say how close the second-best entry came (two
// engines may pick different entries only where the top two logits nearly tie).
#include <cmath>
#include <cstdint>

#include "phasesim/core/host_device.hpp"

namespace phasesim::niah {

/// Running argmax over entries offered in increasing order: a tie keeps the lowest entry.
struct Argmax {
  std::int64_t entry = -1;       ///< -1: no entry offered
  double logit = 0;              ///< the top logit
  double runner_up = -HUGE_VAL;  ///< the second-largest logit offered (-inf: fewer than two)

  PHASESIM_HD void offer(std::int64_t j, double value) {
    if (entry < 0 || value > logit) {
      if (entry >= 0) runner_up = logit;
      entry = j;
      logit = value;
    } else if (value > runner_up) {
      runner_up = value;
    }
  }

  /// Combines the argmax of another, disjoint set of entries: the higher logit wins and a tie
  /// the lower entry; the runner-up is the second-largest logit of the union. Both are
  /// functions of the set of (entry, logit) pairs, so merging the argmaxes of ranges that split
  /// 0..N_c-1, in any order or tree, gives exactly the sequential scan's answer.
  PHASESIM_HD void merge(const Argmax& other) {
    if (other.entry < 0) return;
    if (entry < 0) {
      *this = other;
      return;
    }
    const bool take = other.logit > logit || (other.logit == logit && other.entry < entry);
    const double loser = take ? logit : other.logit;
    const double second = take ? other.runner_up : runner_up;
    if (take) {
      entry = other.entry;
      logit = other.logit;
    }
    runner_up = loser > second ? loser : second;
  }

  /// Top logit minus runner-up: how far the chosen entry stood out (+inf with one entry).
  PHASESIM_HD double gap() const { return logit - runner_up; }
};

}  // namespace phasesim::niah
