#pragma once
// The read path's two stages in the standardized channel (MODEL.md section 10), by quadrature
// over order statistics: exact where the needle's places are independent (a needle of one
// token) and the selection score is independent of the attention logit (rho = 0).
//
// Stage 1 keeps the top k of the visible entries by selection score: the needle's compressed
// places (independent, each its own law) against n iid N(0, 1) others. The places S are kept
// exactly when min_S > D_(k-|S|+1) and max of the rest of the places < D_(k-|S|), D_(r) the
// r-th largest of the others, and min_S > max of the rest; with N(v) = #{D > v} ~ Bin(n, Q(v)),
//   P(S kept) = E[1{min_S > max_rest} (B(min_S; j) - B(max_rest; j - 1))],  j = k - |S|,
// B(v; j) = P(N(v) <= j) (theory/THEORY.md, "The read path"). Stage 2 is section 4's channel
// over the kept places and raw needle tokens, against min(n, k - |S|) + (raw haystack tokens)
// iid N(0, 1) logits and the sink's: P(max X > max(M_J, c)). With raw blocks of W tokens the
// kept entries are read as W (min(n, k - |S|) + |S|) - |S| raw haystack tokens and the needle's
// raw token in each kept place.
//
// A needle of two tokens ties its places (MODEL.md section 10): each logit is its own law plus
// tie x R, one standard normal R shared by the needle's places in that stage (the attention's
// R_A and the selection's R_I, independent at rho = 0). Given R the places are independent, and
// stage 2 given the kept set S depends on the selection only through |S|, so
//   P(read) = sum_S E_{R_I}[P(S kept | R_I)] E_{R_A}[P(stage 2 reads | S kept, R_A)],
// each expectation one adaptive quadrature over R, split where deterministic places cross.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "phasesim/channel/channel.hpp"

namespace phasesim::channel {

/// A place of the needle: its attention logit's law and, for a compressed entry, its
/// selection score's (a raw token of the sliding window always passes stage 1).
struct TwoStagePlace {
  NeedleEntry attention;
  NeedleEntry selection;
  bool raw = false;
  double attention_tie = 0;  ///< the attention logit's coefficient on R_A
  double selection_tie = 0;  ///< the selection score's coefficient on R_I
};

/// What the needle's places compete with.
struct TwoStageRest {
  std::int64_t entries = 0;  ///< the other visible entries: iid N(0, 1) scores and logits
  std::int64_t top_k = 0;    ///< stage 1 keeps k (none dropped when k >= every entry)
  std::int64_t raw = 0;      ///< iid N(0, 1) raw haystack tokens of the window
  std::optional<double> sink;
  /// Raw blocks (MODEL.md section 10): each kept entry is read as its W raw tokens, iid N(0, 1)
  /// but the needle's, which its place's attention law gives (u = 1); 0: pooled keys are read.
  std::int64_t block_tokens = 0;
};

struct TwoStageValue {
  double selected = 0;   ///< P(stage 1 passes some place of the needle)
  double retrieved = 0;  ///< P(the needle is read)
};

/// The two stages' probabilities for places independent or tied by one factor per stage
/// (TwoStagePlace's ties), rho = 0. At most 20 compressed places.
TwoStageValue two_stage_success(std::span<const TwoStagePlace> places, const TwoStageRest& rest);

/// Stage 2 of one needle in one variant of the window: its raw tokens' laws and how many raw
/// haystack tokens compete (TwoStageRest::raw is then unused).
struct StageTwoVariant {
  std::vector<NeedleEntry> raw;
  std::int64_t raw_haystack = 0;
  std::vector<double> raw_tie{};  ///< each raw token's coefficient on R_A (none: untied)
};

/// How closely a read is computed. exact: the analytic engine's (each piece of an integral to
/// 1e-12, the factor's to 1e-10, Boost's erfc). table: diagnose's tables of a phase's read (erfc
/// and log Phi in double; the order statistics' densities on a fixed Gauss-Legendre rule
/// computed once a kept set; the factor to 1e-9; a factor that moves one place folded into its
/// sd; ties and sds under 1e-9 none): within 1.3e-9 of exact over the 420 gates that
/// tests/channel/read_path_test.cpp was measured on, and 24 to 32 times cheaper under top-k 512.
enum class ReadAccuracy { exact, table };

/// two_stage_success of the compressed places `entries` for several variants at once (a
/// needle far from the query and one in the window), which share stage 1.
std::vector<TwoStageValue> two_stage_variants(std::span<const TwoStagePlace> entries,
                                              const TwoStageRest& rest,
                                              std::span<const StageTwoVariant> variants,
                                              ReadAccuracy accuracy = ReadAccuracy::exact);

/// The variants a head's needle takes (MODEL.md section 10): far from the query, against the
/// window's `sliding_window` raw haystack tokens; and, with a window, inside it, its token read
/// raw at u = 1 (mean beta, sd 0) against the window's other tokens. One variant without one.
std::vector<StageTwoVariant> far_and_window_variants(double beta, std::int64_t sliding_window);

/// P(max_s X_s > max(M_n, floor)), M_n the maximum of `distractors` iid N(0, 1): section 4's
/// channel against a floor (the sink); floor = -inf is needle_success.
double needle_success_above(std::span<const NeedleEntry> needle, std::int64_t distractors,
                            double floor);

}  // namespace phasesim::channel
