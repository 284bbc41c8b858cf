#pragma once
// The fits against the table group by group, and the warnings a diagnosis gives when a fit or
// the stride cannot have made the table (sim/diagnose/diagnose.cpp's steps).
#include "phasesim/diagnose/diagnose.hpp"

namespace phasesim::diagnose::detail {

/// The groups' spread within the phases: the period test's statistic at G (one accuracy per
/// group) less the one at P (one per phase), on G - P df.
double within_phases(const CountTable& table, int phases);

/// Each fit against the table group by group (TableFit).
void add_table_fits(double within, int within_df, Diagnosis& d);

/// One line when the best fit still misses the table, and where.
void add_misfit_warning(Diagnosis& d, double within);

/// One line for each fit with no degrees of freedom left that still misses the table.
void add_search_warning(Diagnosis& d);

/// One line when the stride cannot have made the detected period.
void add_stride_warning(const CountTable& table, Diagnosis& d);

}  // namespace phasesim::diagnose::detail
