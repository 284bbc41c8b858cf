#pragma once
// The chain rule from an entry's logit law to its coordinate (internal to theory/channel: the
// quadrature's law_success_gradient and SuccessRule take their slopes through it).
#include "phasesim/channel/channel.hpp"

namespace phasesim::channel::detail {

/// dP/dx of an entry of coordinate x and sd = law_entry(law, beta, x).sd > 0 from dP/dmean and
/// dP/dsd: d mean/dx = beta under every law; d sd/dx = -x/sd (normalized), -1/(2 sd) (shares),
/// 0 (linear). At sd = 0 the shares' term is left out (law_success_gradient says why); the
/// normalized one-sided limit there is success_gradient's own.
inline double law_slope(EntryLaw law, double beta, double x, double sd, double d_mean,
                        double d_sd) {
  switch (law) {
    case EntryLaw::normalized:
      return beta * d_mean - x / sd * d_sd;
    case EntryLaw::shares:
      return beta * d_mean - (sd > 0 ? d_sd / (2 * sd) : 0.0);
    case EntryLaw::linear:
      break;
  }
  return beta * d_mean;
}

}  // namespace phasesim::channel::detail
