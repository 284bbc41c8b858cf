#pragma once
// The per-phase success as a table, for the searches that evaluate it thousands of times per
// answer (optimize, phase-diagram, dynamics, the theorem checks, the joint training of T3): a
// phase whose needle is held by m entries (m_phi, MODEL.md section 2) succeeds with
// P(x_1..x_m) = law_success_gradient(law, beta, N, x), a smooth function of the m coordinates of
// its slots (one for W = S, two for CSA's W = 2S). SuccessTable interpolates it, with its
// gradient, by piecewise Chebyshev polynomials on patches of [0, 1]^m, each built the first time
// a point in it is asked for and kept, so that evaluating J costs O(W) lookups instead of W
// quadratures. Within kAccuracy of the quadrature (tests/channel/success_table_test.cpp).
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "phasesim/channel/channel.hpp"
#include "phasesim/channel/success_rule.hpp"

namespace phasesim::channel {

/// P(x) and dP/dx_s for one (law, beta, entries, multiplicity) on the law's domain: every x_s
/// in [0, 1], and for two coordinates x_1^2 + x_2^2 <= 1 (normalized: the u of one gate) or
/// x_1 + x_2 <= 1 (shares and linear: weights of one gate).
///
/// A patch (a square of side 2^-depth) holds a Chebyshev interpolant of degree 24 (one
/// coordinate) or 16 (two) in each coordinate, through the success at its Chebyshev nodes
/// (detail::grid_success, one quadrature for all of them); it is kept when its coefficients
/// of the two highest degrees sum below 1e-13, and split in 2^m otherwise, down to kMaxDepth.
/// Patches are built lazily, once (std::call_once: any thread may build one, and it is the same
/// whichever does), so a search pays only for the part of the domain it visits. A point the table
/// cannot serve (outside the domain, a patch unresolved at kMaxDepth, more than two coordinates)
/// gets std::nullopt: ask the quadrature.
class SuccessTable {
 public:
  /// Largest |P_table - P_quadrature| over the tested grid of laws, beta, N and points
  /// (tests/channel/success_table_test.cpp), and what the commands may rely on.
  static constexpr double kAccuracy = 1e-10;
  static constexpr int kMaxDepth = 10;
  static constexpr int kMaxMultiplicity = 2;

  SuccessTable(EntryLaw law, double beta, std::int64_t entries, int multiplicity);
  ~SuccessTable();
  SuccessTable(const SuccessTable&) = delete;
  SuccessTable& operator=(const SuccessTable&) = delete;

  /// True when x (multiplicity coordinates) lies in the domain (to 1e-12).
  bool covers(std::span<const double> x) const;
  /// P and dP/dx_s at x (the interpolant's own derivatives); nullopt where not served.
  std::optional<SuccessGradient> operator()(std::span<const double> x) const;
  /// The same without allocating (the searches' inner loop): P into `probability`, dP/dx_s
  /// into `slope` (x.size() of them); false, writing nothing, where not served.
  bool lookup(std::span<const double> x, double& probability, std::span<double> slope) const;
  /// lookup() of many points of one coordinate each (multiplicity 1): x[i]'s P into
  /// probability[i] and dP/dx into slope[i], the same bits as lookup() gives, several points
  /// interpolated side by side (W = S evaluates a lookup a phase). False, with the outputs
  /// unspecified, where lookup() would not serve every point, or for two coordinates.
  bool lookup_each(std::span<const double> x, std::span<double> probability,
                   std::span<double> slope) const;
  /// Patches built so far and their nodes evaluated (what the table cost).
  std::int64_t patches() const;
  std::int64_t nodes() const;

 private:
  struct Patch;
  struct Region;
  void build(Patch& patch, const Region& region) const;
  /// The leaf holding `at` (built down to it), its square in `region`; nullptr if unresolved.
  const Patch* leaf(const std::array<double, 2>& at, Region& region) const;
  void interpolate(const Patch& patch, const Region& region, std::span<const double> x,
                   double& probability, std::span<double> slope) const;

  EntryLaw law_;
  double beta_;
  std::int64_t entries_;
  int multiplicity_;
  int degree_;
  std::vector<double> chebyshev_nodes_;  ///< t_k = cos(pi (k + 1/2) / (degree + 1))
  std::vector<double> transform_;        ///< values at the nodes -> coefficients
  std::unique_ptr<Patch> root_;
  mutable std::atomic<std::int64_t> patches_{0};
  mutable std::atomic<std::int64_t> nodes_{0};
};

/// Tables by (law, beta, entries, multiplicity), and rules (success_rule.hpp) by distractor
/// count for phases of more coordinates, each made when first asked for; safe to use from many
/// threads. What a search keeps for its whole run (theorems::Objective::tables).
class SuccessTables {
 public:
  const SuccessTable& table(EntryLaw law, double beta, std::int64_t entries, int multiplicity);
  const SuccessRule& rule(std::int64_t distractors);

  /// The success of phases of one (law, beta, entries): the tables of one and two coordinates
  /// looked up once (a lookup locks), then read without locking, from any thread.
  class Phases {
   public:
    Phases(SuccessTables& tables, EntryLaw law, double beta, std::int64_t entries);
    /// P and dP/dx_s: from the table where it serves x, for more than kMaxMultiplicity
    /// coordinates from the rule where it serves x, from law_success_gradient elsewhere.
    SuccessGradient operator()(std::span<const double> x) const;
    /// The same into `slope` (x.size() of them), returning P; allocates only for the quadrature.
    double operator()(std::span<const double> x, std::span<double> slope) const;
    /// Phases of one coordinate each, x[i] the i-th's: P into probability[i], dP/dx into
    /// slope[i], as operator() gives them, through SuccessTable::lookup_each; false where the
    /// table does not serve them all (then ask operator() one at a time).
    bool each(std::span<const double> x, std::span<double> probability,
              std::span<double> slope) const {
      return tables_[0] != nullptr && tables_[0]->lookup_each(x, probability, slope);
    }

   private:
    SuccessTables* owner_;
    EntryLaw law_;
    double beta_;
    std::int64_t entries_;
    std::array<const SuccessTable*, SuccessTable::kMaxMultiplicity> tables_{};
  };
  Phases phases(EntryLaw law, double beta, std::int64_t entries) {
    return {*this, law, beta, entries};
  }

  /// phases(law, beta, entries)(x), for one phase.
  SuccessGradient success(EntryLaw law, double beta, std::int64_t entries,
                          std::span<const double> x);

 private:
  std::mutex mutex_;
  std::map<std::tuple<EntryLaw, double, std::int64_t, int>, std::unique_ptr<SuccessTable>> tables_;
  std::map<std::int64_t, std::unique_ptr<SuccessRule>> rules_;
};

}  // namespace phasesim::channel
