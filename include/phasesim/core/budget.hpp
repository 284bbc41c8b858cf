#pragma once
// Bounding work up front (MODEL.md section 8; the CLI contract in the README): a run estimates its
// time and memory from its sizes before it starts, is refused when either is absurd, and is
// announced when it will be long. Estimates are for one core of an idle machine, from measured
// costs, and good to a factor of a few: enough to tell a minute from a day.
#include <cstdio>
#include <string>

#include "phasesim/core/error.hpp"

namespace phasesim {

/// What a run is estimated to need.
struct WorkEstimate {
  double seconds = 0;  ///< CPU time on one core
  double bytes = 0;    ///< memory at the peak

  WorkEstimate& operator+=(const WorkEstimate& other) {
    seconds += other.seconds;
    bytes += other.bytes;
    return *this;
  }
};

/// Refused beyond these: more memory than a shared 24 GiB machine can give one run, or
/// longer than any run of this project should take without being split (a sweep can).
inline constexpr double kMaxBytes = 4.0 * (1ULL << 30);
inline constexpr double kMaxSeconds = 24.0 * 3600;
/// Runs estimated longer than this say so on stderr before they start.
inline constexpr double kLongSeconds = 60;

namespace detail {

inline std::string amount(double value, const char* unit) {
  char text[48];
  std::snprintf(text, sizeof text, value < 10 ? "%.1f %s" : "%.0f %s", value, unit);
  return text;
}

}  // namespace detail

/// "1.2 GiB", "350 MiB".
inline std::string bytes_text(double bytes) {
  return bytes >= (1ULL << 30) ? detail::amount(bytes / (1ULL << 30), "GiB")
                               : detail::amount(bytes / (1ULL << 20), "MiB");
}

/// "45 s", "3.5 minutes", "2.0 hours", "12 days".
inline std::string seconds_text(double seconds) {
  if (seconds < 60) return detail::amount(seconds, "s");
  if (seconds < 3600) return detail::amount(seconds / 60, "minutes");
  if (seconds <= 86400) return detail::amount(seconds / 3600, "hours");
  return detail::amount(seconds / 86400, "days");
}

/// "1 thread", "8 threads".
inline std::string threads_text(int threads) { return counted(threads, "thread"); }

/// Throws InputError "too large: WHAT needs about 30 GiB of memory (the limit is 4.0 GiB)"
/// (or "would take about 3.0 days on THREADS threads (the limit is 24 hours)") when the
/// estimate is beyond the limits; `what` names the sizes, e.g. "--window 1000000000".
inline void check_work(const std::string& what, const WorkEstimate& estimate, int threads) {
  require(estimate.bytes <= kMaxBytes,
          "too large: " + what + " needs about " + bytes_text(estimate.bytes) +
              " of memory (the limit is " + bytes_text(kMaxBytes) + ")");
  const double wall = estimate.seconds / threads;
  require(wall <= kMaxSeconds, "too large: " + what + " would take about " + seconds_text(wall) +
                                   " on " + threads_text(threads) + " (the limit is " +
                                   seconds_text(kMaxSeconds) + ")");
}

/// "estimated to take about 3.5 minutes on 2 threads" when the run is long, else empty.
inline std::string long_run_note(const WorkEstimate& estimate, int threads) {
  const double wall = estimate.seconds / threads;
  if (wall <= kLongSeconds) return {};
  return "estimated to take about " + seconds_text(wall) + " on " + threads_text(threads) +
         " (on an idle machine; --progress shows how far it is)";
}

}  // namespace phasesim
