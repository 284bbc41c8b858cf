#include "cli/progress.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace phasesim::cli {

std::string duration_text(double seconds) {
  const auto s = static_cast<long>(std::lround(seconds));
  char text[32];
  std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return text;
}

Progress::Progress(std::ostream& out, std::size_t total, std::size_t done, bool terminal)
    : out_(out), total_(total), resumed_(done), done_(done), terminal_(terminal) {}

std::string Progress::status() const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const auto ran = static_cast<double>(done_ - resumed_);
  const double rate = elapsed > 0 ? ran / elapsed : 0;
  const auto left = static_cast<double>(total_ - done_);
  std::string text = std::to_string(done_) + "/" + std::to_string(total_) + " cells";
  char numbers[96];
  std::snprintf(numbers, sizeof numbers, ", %.2f cells/s, ", rate);
  text += numbers;
  text += rate > 0 ? duration_text(left / rate) + " left" : "time left unknown";
  return text;
}

void Progress::finished(std::size_t ran) {
  if (resumed_ + ran <= done_) return;
  done_ = resumed_ + ran;
  const auto now = Clock::now();
  const bool last = done_ == total_;
  const auto since = std::chrono::duration<double>(now - last_print_).count();
  if (!last && since < (terminal_ ? 0.1 : 5.0)) return;
  last_print_ = now;
  if (terminal_) {
    constexpr std::size_t kWidth = 30;
    const std::size_t filled = total_ ? kWidth * done_ / total_ : kWidth;
    out_ << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] "
         << status() << "   " << (last ? "\n" : "") << std::flush;
  } else {
    out_ << "sweep: " << status() << '\n' << std::flush;
  }
}

}  // namespace phasesim::cli
