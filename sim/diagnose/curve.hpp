#pragma once
// A phase's success as a function of its weight u at one beta, for the fits: the channel's
// SuccessCurve (section 4's argmax) or, under the read path's options, the two stages of
// phasesim/channel/read_path.hpp tabulated the same way (a cubic B-spline in asin(u)).
#include <array>
#include <boost/math/interpolators/cardinal_cubic_b_spline.hpp>
#include <optional>

#include "phasesim/channel/success_curve.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/diagnose/fit.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::diagnose::detail {

/// The two stages' success of a needle of the phase: the weighted entries' attention
/// logits and selection scores beta u + sqrt(1 - u^2) Z (independent), the other holding
/// entries' N(0, 1), against input.entries - holding others and input.sliding_window raw
/// haystack tokens; a share input.window_share of the needles also read raw at u = 1 in the
/// window. Requires input.read_path().
double read_path_success_at(const channel::PhaseSlots& slots, double u, double beta,
                            const FitInput& input);

/// The same far from the query and inside the window, apart: {far, window}.
std::array<double, 2> read_path_variants(const channel::PhaseSlots& slots, double u, double beta,
                                         const FitInput& input);

/// The success at one beta of a needle of a phase sitting in the cache as `slots`. Under the
/// read path its nodes (each a two-stage quadrature: nearly all of a read-path fit's time) are
/// computed over `parallel`'s threads, in this process only; the table is the same on any.
class PhaseCurve {
 public:
  PhaseCurve(const channel::PhaseSlots& slots, double beta, const FitInput& input,
             const Parallel& parallel = Parallel{1});
  double operator()(double u) const;
  double max_u() const { return max_u_; }

 private:
  double max_u_;
  std::optional<channel::SuccessCurve> plain_;
  std::optional<boost::math::interpolators::cardinal_cubic_b_spline<double>> read_;
};

/// The success at u of a needle of a phase under the fit's channel (one value, no table).
double phase_success(const channel::PhaseSlots& slots, double u, double beta,
                     const FitInput& input);

/// The analytic engine's read of a 2-token needle starting at phase phi under `gate` (its
/// selection by the same gate and beta, rho = 0; input.window and input.stride place the
/// tokens), far from the query and in the window, mixed as the table's groups are
/// (channel/needle_read.hpp: the one read the engine and the 2-token fits share).
double token_read(const FitInput& input, const Gate& gate, double beta, int phi);

/// The same read far from the query and inside the window, apart: {far, window} (the window's
/// the far one's without a window). Heads combine per needle, so a model of several heads mixes
/// the two after combining them, as the engine's report does.
std::array<double, 2> token_read_variants(const FitInput& input, const Gate& gate, double beta,
                                          int phi);

/// The same read at the tables' accuracy (channel::ReadAccuracy::table: within 2e-9 of
/// token_read, far cheaper): what the 2-token fit tabulates; its fitted accuracies are
/// token_read's.
double token_table_read(const FitInput& input, const Gate& gate, double beta, int phi);

}  // namespace phasesim::diagnose::detail
