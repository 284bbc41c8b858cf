#pragma once
// The objective most theorem tests use: the V4 geometry W = 8, S = 4 and N = 32768
// entries (a 128K context), uniform phase weights.
#include "phasesim/theorems/objective.hpp"

namespace phasesim::test {

inline theorems::Objective v4_objective(
    double beta, theorems::RetentionModel model = theorems::RetentionModel::normalized) {
  theorems::Objective o;
  o.geometry = {8, 4};
  o.beta = beta;
  o.entries = 32768;
  o.model = model;
  return o;
}

}  // namespace phasesim::test
