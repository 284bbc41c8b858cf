// The fits against the table group by group, and the diagnosis' warnings (table_fits.hpp).
#include "table_fits.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <cstdio>
#include <numeric>
#include <string>

#include "phasesim/core/error.hpp"
#include "phasesim/stats/period.hpp"

namespace phasesim::diagnose::detail {

// The groups' spread within the phases: the period test's statistic at G (one accuracy per
// group) less the one at P (one per phase), on G - P df.
double within_phases(const CountTable& table, int phases) {
  return std::max(0.0, stats::period_statistic(table.groups, table.size()) -
                           stats::period_statistic(table.groups, phases));
}

// Each fit against the table group by group.
void add_table_fits(double within, int within_df, Diagnosis& d) {
  for (auto& f : d.fits) {
    auto& t = f.table;
    t.deviance = within + f.fit.deviance;
    t.df = within_df + f.fit.deviance_df;
    if (t.df == 0) continue;
    t.p = boost::math::cdf(
        boost::math::complement(boost::math::chi_squared_distribution<double>(t.df), t.deviance));
    t.misfit = *t.p < kMisfitP;
  }
}

// One line when the best fit still misses the table: where the misfit lies (within the
// phases: groups of a phase differ, so the stride or the pooling is wrong; between them: the
// accuracies are no P_phi of the model) and which fits it concerns.
void add_misfit_warning(Diagnosis& d, double within) {
  const auto best = std::max_element(
      d.fits.begin(), d.fits.end(),
      [](const auto& a, const auto& b) { return a.table.p.value_or(1) < b.table.p.value_or(1); });
  if (best == d.fits.end() || !best->table.misfit) return;
  const auto& t = best->table;
  const bool spread = within >= best->fit.deviance;
  char p[32];
  std::snprintf(p, sizeof p, "%.2g", *t.p);
  d.warnings.push_back(
      "the model does not fit the table: deviance " + format_fixed(t.deviance, 1) + " on " +
      std::to_string(t.df) + " df against the groups, chi-squared p = " + p + " < " +
      format_number(kMisfitP) + " (" +
      (spread ? "the groups pooled into one phase differ: check --stride and the group order"
              : "the phases' accuracies are not the model's") +
      "); read the fitted beta and weights as rough");
}

// One line for a fit whose model is saturated against the groups (0 df) and still misses the
// table past chi-squared(1)'s 0.001 point: as many parameters as accuracies reproduce any table
// in the model's range, so either the table is outside it (a 2-token table whose aligned phase
// reads worse than its straddling one) or the search found a lower maximum (docs/DIAGNOSE.md:
// the 2-token fit's beta profile can have a second, lower peak).
void add_search_warning(Diagnosis& d) {
  const double cut = boost::math::quantile(
      boost::math::complement(boost::math::chi_squared_distribution<double>(1), kMisfitP));
  for (const auto& f : d.fits) {
    if (f.table.df != 0 || f.table.deviance <= cut) continue;
    d.warnings.push_back(std::string("the fit '") + assumption_name(f.assumption) +
                         "' has no degrees of freedom left but misses the table (deviance " +
                         format_fixed(f.table.deviance, 1) +
                         "): no beta and weights of the model make this table, or its search "
                         "missed them; its beta and weights are not the table's "
                         "(docs/DIAGNOSE.md)");
  }
}

// One line when the stride cannot have made the detected period: over G groups a stride S
// shows period gcd(G, S), or a divisor of it (a gate may repeat faster); a detected period P
// that does not divide it contradicts S, and the per-phase analysis pools by S all the same.
void add_stride_warning(const CountTable& table, Diagnosis& d) {
  const auto& stride = d.architecture.stride;
  if (!stride || !d.period.period) return;
  const int predicted = std::gcd(table.size(), *stride), found = *d.period.period;
  if (predicted % found == 0) return;
  d.warnings.push_back(
      "--stride " + std::to_string(*stride) +
      (d.architecture.stride_source == Source::table ? " (from the table's JSON)" : "") +
      " contradicts the table: over " + counted(table.size(), "group") + " it predicts " +
      (predicted == 1 ? std::string("no period") : "period " + std::to_string(predicted)) +
      ", yet the groups show period " + std::to_string(found) +
      "; the phases below pool by the stride: check --stride and the order of the groups");
}

}  // namespace phasesim::diagnose::detail
