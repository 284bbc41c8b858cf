#pragma once
// The estimated period of a per-group NIAH table (MODEL.md sections 5 and 8): the smallest
// P dividing G whose per-residue accuracies explain the table. Simple on purpose, and one
// function, so that a fuller test (`diagnose`) can replace it.
//
// For each divisor P of G, Pearson's chi-square test of homogeneity within every residue
// class r mod P: chi2 = sum over groups g of (s_g - n_g p_c)^2 / (n_g p_c (1 - p_c)), p_c the
// pooled accuracy of the class, with one degree of freedom per group less one per class
// (classes at p_c = 0 or 1 fit exactly and add none). P explains the table when the
// chi-square survival probability is at least alpha; P = G always does (no freedom left).
#include <vector>

#include "phasesim/niah/report.hpp"

namespace phasesim {

/// One divisor P's test (not diagnose's PeriodTest: two types of one name in one namespace
/// are one type to the linker, whose inline code then serves both layouts).
struct HomogeneityTest {
  int period = 1;
  double chi_square = 0;
  int degrees_of_freedom = 0;
  double p_value = 1;  ///< P(chi2 >= observed | accuracy depends only on the group mod period)
};

struct PeriodEstimate {
  int period = 1;                           ///< the smallest divisor of G that explains the table
  double alpha = 0.01;                      ///< the level it was tested at
  std::vector<HomogeneityTest> candidates;  ///< every divisor of G, increasing
};

/// The period of a Monte Carlo table (every group has successes and trials). Throws
/// std::invalid_argument for an exact table or alpha outside (0, 1).
PeriodEstimate estimate_period(const std::vector<GroupAccuracy>& groups, double alpha = 0.01);

}  // namespace phasesim
