#pragma once
// How the heads of a model combine into one answer (MODEL.md section 4): `any` retrieves
// when at least one head does, `vote:K` when at least K heads do (`any` is `vote:1`).
// Heads are independent given the needle position (query heads of one cache without query
// noise retrieve together), so exact per-head probabilities combine exactly, and Monte Carlo
// outcomes combine trial by trial.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace phasesim::niah {

struct CombineRule {
  int votes = 1;             ///< K: heads that must retrieve
  std::string text = "any";  ///< as the user wrote it, for reports
};

/// Parses `any` or `vote:K`. Throws InputError unless 1 <= K <= heads.
CombineRule parse_combine(std::string_view text, int heads);

/// Combined outcome of one trial from per-head outcomes (0/1); head `excluded` (-1: none)
/// is left out, as in a knockout.
bool combine_outcomes(std::span<const std::uint8_t> retrieved, const CombineRule& rule,
                      int excluded = -1);

/// Exact combined probability from per-head probabilities, leaving out head `excluded` (-1:
/// none): 1 - prod(1 - p_h) for `any`, the Poisson-binomial tail P(at least K successes) for
/// `vote:K`. Heads are independent, except that heads with the same `key_heads` entry (query
/// heads of one cache that attend alike: run.hpp, NiahModel::key_heads) retrieve together,
/// one Bernoulli worth as many votes as they have heads left; empty: all independent.
double combine_probabilities(std::span<const double> probability, const CombineRule& rule,
                             int excluded = -1, std::span<const int> key_heads = {});

}  // namespace phasesim::niah
