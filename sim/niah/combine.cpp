#include "phasesim/niah/combine.hpp"

#include <vector>

#include "phasesim/core/error.hpp"

namespace phasesim::niah {

CombineRule parse_combine(std::string_view text, int heads) {
  const std::string shown(text);
  if (text == "any") return {1, shown};
  int votes = 0;
  const auto digits = text.substr(text.starts_with("vote:") ? 5 : text.size());
  require(!has_leading_zero(digits),
          "invalid --combine " + shown + " (" + leading_zero_rule(digits) + ")");
  require(text.starts_with("vote:") && read_decimal(digits, votes) == std::errc(),
          "invalid --combine " + shown + " (use any or vote:K)");
  require(votes >= 1, "invalid --combine " + shown + " (K must be at least 1)");
  require(votes <= heads, "invalid --combine " + shown +
                              " (K must be at most the number of heads, " + std::to_string(heads) +
                              ")");
  return {votes, shown};
}

bool combine_outcomes(std::span<const std::uint8_t> retrieved, const CombineRule& rule,
                      int excluded) {
  int count = 0;
  for (std::size_t h = 0; h < retrieved.size(); ++h) {
    if (static_cast<int>(h) != excluded) count += retrieved[h] ? 1 : 0;
  }
  return count >= rule.votes;
}

double combine_probabilities(std::span<const double> probability, const CombineRule& rule,
                             int excluded, std::span<const int> key_heads) {
  // count[k] = P(exactly k votes from the heads seen so far), capped at K ("K or more").
  const auto K = static_cast<std::size_t>(rule.votes);
  std::vector<double> count(K + 1, 0.0);
  count[0] = 1;
  const auto group_of = [&](std::size_t h) {
    return key_heads.empty() ? static_cast<int>(h) : key_heads[h];
  };
  // Each group's votes, counted once: a stack of a thousand heads would otherwise count them
  // once a group, heads squared a phase.
  std::vector<std::size_t> votes_of(probability.size(), 0);
  for (std::size_t h = 0; h < probability.size(); ++h) {
    if (static_cast<int>(h) != excluded) ++votes_of[static_cast<std::size_t>(group_of(h))];
  }
  for (std::size_t h = 0; h < probability.size(); ++h) {
    if (group_of(h) != static_cast<int>(h)) continue;  // a group is counted at its first head
    const std::size_t votes = votes_of[h];
    if (votes == 0) continue;
    const double p = probability[h];
    for (std::size_t k = K; k-- > 0;) {  // from the top, so that each count moves once
      const auto to = std::min(K, k + votes);
      count[to] += count[k] * p;
      count[k] *= 1 - p;
    }
  }
  return count[K];
}

}  // namespace phasesim::niah
