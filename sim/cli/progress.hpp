#pragma once
// Progress of a long run: a redrawn bar on a terminal, plain lines otherwise.
#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace phasesim::cli {

/// "h:mm:ss" of a duration, rounded to the second.
std::string duration_text(double seconds);

class Progress {
 public:
  /// `total` units of which `done` are already finished (resumed); `terminal` selects
  /// the redrawn bar.
  Progress(std::ostream& out, std::size_t total, std::size_t done, bool terminal);

  /// `ran` units of this run finished (a count not above the last one is ignored); redraws
  /// at most every 0.1 s on a terminal and prints a line at most every 5 s otherwise, and
  /// always for the last unit.
  void finished(std::size_t ran);

 private:
  std::string status() const;

  using Clock = std::chrono::steady_clock;
  std::ostream& out_;
  std::size_t total_;
  std::size_t resumed_;
  std::size_t done_;
  bool terminal_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_print_ = start_;
};

}  // namespace phasesim::cli
