#pragma once
#include <charconv>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>

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

}  // namespace phasesim
