#pragma once
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace phasesim {

/// A user mistake: bad parameters or input files. The message is one line that says
/// what is wrong and what is allowed, e.g. "invalid --window 0 (must be at least 1)".
/// The CLI prints it and exits with status 2.
class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Throws InputError(message) unless `condition` holds.
inline void require(bool condition, const std::string& message) {
  if (!condition) throw InputError(message);
}

/// The shortest text that reads back as `value` ("1.5", not "1.500000"), for messages.
inline std::string format_number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

/// `value` with `digits` decimals ("0.990000"), for reports and tables.
inline std::string format_fixed(double value, int digits) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(digits) << value;
  return text.str();
}

// The checks every layer makes of a number it is given, in the one grammar of InputError:
// "invalid OPTION VALUE (what is allowed)". Each builds its message only when it throws.

/// Throws unless least <= value <= most: "invalid --steps 0 (must be in [1, 10000000])".
inline void require_in_range(std::int64_t value, std::int64_t least, std::int64_t most,
                             std::string_view option) {
  if (value >= least && value <= most) return;
  throw InputError("invalid " + std::string(option) + " " + std::to_string(value) +
                   " (must be in [" + std::to_string(least) + ", " + std::to_string(most) + "])");
}

/// Throws unless value >= least: "invalid --heads 0 (must be at least 1)".
inline void require_at_least(std::int64_t value, std::int64_t least, std::string_view option) {
  if (value >= least) return;
  throw InputError("invalid " + std::string(option) + " " + std::to_string(value) +
                   " (must be at least " + std::to_string(least) + ")");
}

/// Throws unless value is finite and > 0: "invalid --lr 0 (must be finite and > 0)".
inline void require_positive(double value, std::string_view option) {
  if (std::isfinite(value) && value > 0) return;
  throw InputError("invalid " + std::string(option) + " " + format_number(value) +
                   " (must be finite and > 0)");
}

/// Throws unless value is finite and >= 0: "invalid --beta -1 (must be finite and >= 0)".
inline void require_non_negative(double value, std::string_view option) {
  if (std::isfinite(value) && value >= 0) return;
  throw InputError("invalid " + std::string(option) + " " + format_number(value) +
                   " (must be finite and >= 0)");
}

}  // namespace phasesim
