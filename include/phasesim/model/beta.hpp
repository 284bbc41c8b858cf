#pragma once
// The standardized channel's signal strength (MODEL.md section 4) when a user gives none: one
// default for the theorems' objective and for NIAH runs, whose layers meet only here.

namespace phasesim {

/// beta of the standardized channel when neither beta nor d is given.
inline constexpr double kDefaultBeta = 4.5;

}  // namespace phasesim
