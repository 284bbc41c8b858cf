#pragma once
// Progress of a long run on stderr, with an estimate of the time left: a redrawn bar on a
// terminal, plain lines otherwise. Commands show it on a terminal or with --progress; a
// Parallel from with_progress() reports to it as the loop's items finish (Parallel::progress
// calls come one at a time, so Progress needs no lock).
#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/parallel.hpp"

namespace phasesim::cli {

/// "h:mm:ss" of a duration, rounded to the second.
std::string duration_text(double seconds);

class Progress {
 public:
  /// `total` units of which `done` are already finished (resumed); `terminal` selects
  /// the redrawn bar; lines read "LABEL: 3/9 UNIT, ...".
  Progress(std::ostream& out, std::size_t total, std::size_t done, bool terminal,
           std::string unit = "cells", std::string label = "sweep");

  /// `ran` units of this run finished (a count not above the last one is ignored); redraws
  /// at most every 0.1 s on a terminal and prints a line at most every 5 s otherwise, and
  /// always for the last unit.
  void finished(std::size_t ran);

  /// One more unit finished, after the last count given (one caller at a time).
  void advance() { finished(done_ - resumed_ + 1); }

 private:
  std::string status(std::size_t done) const;

  using Clock = std::chrono::steady_clock;
  std::ostream& out_;
  std::size_t total_;
  std::size_t resumed_;
  std::size_t done_;
  bool terminal_;
  std::string unit_;
  std::string label_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_print_ = start_;
};

/// `parallel` whose items advance a progress display of `total` UNIT on stderr, when
/// `wanted` (--progress) or stderr is a terminal; unchanged for a sweep cell (whose `out`
/// is a null sink: the sweep shows its own progress).
Parallel with_progress(Parallel parallel, bool wanted, std::size_t total, const std::string& unit,
                       const std::string& label, const std::ostream& out);

}  // namespace phasesim::cli
