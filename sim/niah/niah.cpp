#include "phasesim/niah/niah.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "phasesim/core/error.hpp"

namespace phasesim {
namespace {

constexpr int kMaxHeads = 4096;  // the head index shares a 32-bit counter word with the stream
constexpr int kMaxDim = 65536;

void validate_parameterization(const NiahModel& m) {
  require(!(m.beta && m.dim),
          "invalid --beta with --dim (give --beta for the standardized channel, or --dim "
          "[--query-noise] for the full-vector model)");
  require(m.beta || m.dim, "invalid model (give --beta or --dim)");
  if (m.beta) {
    require(std::isfinite(*m.beta) && *m.beta >= 0,
            "invalid --beta " + format_number(*m.beta) + " (must be finite and >= 0)");
    require(m.query_noise == 0,
            "invalid --query-noise without --dim (the query noise belongs "
            "to the full-vector model)");
    return;
  }
  require(*m.dim >= 2 && *m.dim <= kMaxDim, "invalid --dim " + std::to_string(*m.dim) +
                                                " (must be in [2, " + std::to_string(kMaxDim) +
                                                "])");
  require(std::isfinite(m.query_noise) && m.query_noise >= 0,
          "invalid --query-noise " + format_number(m.query_noise) + " (must be finite and >= 0)");
}

}  // namespace

double NiahModel::beta_effective() const {
  if (beta) return *beta;
  return std::sqrt(static_cast<double>(*dim) / (1 + query_noise * query_noise));
}

void validate_model(const NiahModel& m) {
  m.geometry.validate();
  require(m.heads() >= 1 && m.heads() <= kMaxHeads,
          "invalid --heads " + std::to_string(m.heads()) + " (must be in [1, 4096])");
  for (const auto& gate : m.gates) {
    require(gate.window() == m.geometry.window,
            "invalid gate '" + gate.spec + "' (has " + std::to_string(gate.window()) +
                " weights, the window needs " + std::to_string(m.geometry.window) + ")");
  }
  validate_parameterization(m);
  require(
      std::isfinite(m.content_noise) && m.content_noise >= 0,
      "invalid --content-noise " + format_number(m.content_noise) + " (must be finite and >= 0)");
}

void validate_knockout(int head, int heads) {
  require(head >= 0 && head < heads, "invalid --knockout " + std::to_string(head) +
                                         " (must be a head index from 0 to " +
                                         std::to_string(heads - 1) + ")");
}

NiahSummary summarize(const std::vector<GroupAccuracy>& groups,
                      std::optional<std::int64_t> trials) {
  NiahSummary s;
  double variance = 0;
  for (const auto& g : groups) {
    s.mean += g.accuracy;
    variance += g.std_error * g.std_error;
    if (g.accuracy > groups[static_cast<std::size_t>(s.best_group)].accuracy) {
      s.best_group = g.group;
    }
    if (g.accuracy < groups[static_cast<std::size_t>(s.worst_group)].accuracy) {
      s.worst_group = g.group;
    }
  }
  const auto G = static_cast<double>(groups.size());
  const auto& best = groups[static_cast<std::size_t>(s.best_group)];
  const auto& worst = groups[static_cast<std::size_t>(s.worst_group)];
  s.mean /= G;
  s.mean_std_error = std::sqrt(variance) / G;
  s.best = best.accuracy;
  s.worst = worst.accuracy;
  s.gap = s.best - s.worst;
  s.gap_std_error = std::hypot(best.std_error, worst.std_error);
  if (s.mean > 0) s.worst_over_mean = s.worst / s.mean;
  s.trials = trials;
  return s;
}

}  // namespace phasesim
