#include "cli/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <ostream>

#include "cli/output.hpp"
#include "phasesim/core/job.hpp"

namespace phasesim::cli {

std::string duration_text(double seconds) {
  const auto s = static_cast<long>(std::lround(seconds));
  char text[32];
  std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return text;
}

Progress::Progress(std::ostream& out, std::size_t total, std::size_t done, bool terminal,
                   std::string unit, std::string label)
    : out_(out),
      total_(total),
      resumed_(done),
      done_(done),
      terminal_(terminal),
      unit_(std::move(unit)),
      label_(std::move(label)) {}

std::string Progress::status(std::size_t done) const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const auto ran = static_cast<double>(done - resumed_);
  const double rate = elapsed > 0 ? ran / elapsed : 0;
  const auto left = static_cast<double>(total_ - done);
  std::string text = std::to_string(done) + "/" + std::to_string(total_) + " " + unit_;
  char numbers[96];
  std::snprintf(numbers, sizeof numbers, ", %.2f %s/s, ", rate, unit_.c_str());
  text += numbers;
  text += rate > 0 ? duration_text(left / rate) + " left" : "time left unknown";
  return text;
}

void Progress::finished(std::size_t ran) {
  if (resumed_ + ran <= done_) return;
  done_ = resumed_ + ran;
  const auto done = done_;
  const bool last = done == total_;
  const auto now = Clock::now();
  const auto since = std::chrono::duration<double>(now - last_print_).count();
  if (!last && since < (terminal_ ? 0.1 : 5.0)) return;
  last_print_ = now;
  if (terminal_) {
    constexpr std::size_t kWidth = 30;
    const std::size_t filled = total_ ? kWidth * done / total_ : kWidth;
    out_ << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] "
         << status(done) << "   " << (last ? "\n" : "") << std::flush;
  } else {
    out_ << label_ << ": " << status(done) << '\n' << std::flush;
  }
}

Parallel with_progress(Parallel parallel, bool wanted, std::size_t total, const std::string& unit,
                       const std::string& label, const std::ostream& out) {
  const bool terminal = ::isatty(STDERR_FILENO) == 1;
  // In an MPI job rank 0 alone shows the job's progress.
  if (out.rdbuf() == nullptr || !(wanted || terminal) || total == 0 || !job_rank().root()) {
    return parallel;
  }
  auto progress = std::make_shared<Progress>(std::cerr, total, 0, terminal, unit, label);
  // A run of several loops (optimize's starts, then its polish) counts on across them: each
  // loop's counts grow from 1, so a count not above the last one starts the next loop.
  struct Loops {
    std::int64_t before = 0, last = 0;
  };
  parallel.progress = [progress, loops = std::make_shared<Loops>()](std::int64_t ran) {
    if (ran <= loops->last) loops->before += loops->last;
    loops->last = ran;
    progress->finished(static_cast<std::size_t>(loops->before + ran));
  };
  return parallel;
}

}  // namespace phasesim::cli
