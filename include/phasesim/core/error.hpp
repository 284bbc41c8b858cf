#pragma once
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

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

// libc++ before 17 (emscripten's, for the browser build) has std::to_chars and
// std::from_chars for integers only; there the two functions below fall back on printf and
// strtod in the same grammar.
#if defined(__cpp_lib_to_chars)

/// The shortest text that reads back as `value` ("1.5", not "1.500000"), for messages.
inline std::string format_number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

namespace detail {

inline std::errc read_real(std::string_view text, double& value) {
  const auto* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, value);
  return result.ec != std::errc() ? result.ec
         : result.ptr == end      ? std::errc()
                                  : std::errc::invalid_argument;
}

}  // namespace detail

#else

inline std::string format_number(double value) {
  const auto print = [](const char* format, int digits, double v) {
    char buffer[400];  // %f of the largest double has 309 digits
    std::snprintf(buffer, sizeof buffer, format, digits, v);
    return std::string(buffer);
  };
  // The fewest significant digits that read back, then to_chars' choice: %f unless %e is
  // shorter.
  int digits = 0;
  while (digits < 17 && std::strtod(print("%.*e", digits, value).c_str(), nullptr) != value) {
    ++digits;
  }
  const auto scientific = print("%.*e", digits, value);
  if (!std::isfinite(value)) return scientific;
  const int exponent = std::atoi(scientific.c_str() + scientific.find('e') + 1);
  const auto plain = print("%.*f", std::max(0, digits - exponent), value);
  return plain.size() <= scientific.size() ? plain : scientific;
}

namespace detail {

inline std::errc read_real(std::string_view text, double& value) {
  if (text.empty() || text[0] == '+' || std::isspace(static_cast<unsigned char>(text[0])) ||
      text.find_first_of("xX") != std::string_view::npos) {
    return std::errc::invalid_argument;
  }
  const std::string copy(text);
  char* end = nullptr;
  errno = 0;
  value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::errc::invalid_argument;
  return errno == ERANGE ? std::errc::result_out_of_range : std::errc();
}

}  // namespace detail

#endif

// phasesim's one grammar of numbers, for every option, file and list (the CLI's words, sweep
// files, gate specs, tables): decimal, as std::from_chars reads it (no '+', no spaces, no
// hexadecimal), and no leading zeros. C, shells and Python 2 read "010" as octal 8, TOML
// and JSON refuse it: phasesim refuses it too rather than guess.

/// Whether the digits of `text` start with a zero that another digit follows: "010", "-07",
/// "00.5" (not "0", "0.5", "-0" or "1e05").
inline bool has_leading_zero(std::string_view text) {
  if (text.starts_with('-')) text.remove_prefix(1);
  return text.size() >= 2 && text[0] == '0' && std::isdigit(static_cast<unsigned char>(text[1]));
}

/// What a refusal of such a number says: "a leading zero: numbers are decimal, write 10".
inline std::string leading_zero_rule(std::string_view text) {
  std::string shown(text.starts_with('-') ? "-" : "");
  auto digits = text.substr(shown.size());
  while (digits.size() >= 2 && digits[0] == '0' &&
         std::isdigit(static_cast<unsigned char>(digits[1])))
    digits.remove_prefix(1);
  return "a leading zero: numbers are decimal, write " + shown.append(digits);
}

/// Reads the whole of `text` as a T (an integer type or double) in that grammar: std::errc()
/// and the value in `value`, result_out_of_range beyond T's range, else invalid_argument.
template <typename T>
std::errc read_decimal(std::string_view text, T& value) {
  if (has_leading_zero(text)) return std::errc::invalid_argument;
  if constexpr (std::is_floating_point_v<T>) {
    return detail::read_real(text, value);
  } else {
    const auto* end = text.data() + text.size();
    const auto result = std::from_chars(text.data(), end, value);
    return result.ec != std::errc() ? result.ec
           : result.ptr == end      ? std::errc()
                                    : std::errc::invalid_argument;
  }
}

/// Whether the whole of `text` reads as a number in that grammar, which it then stores in
/// `value`.
inline bool read_number(std::string_view text, double& value) {
  return read_decimal(text, value) == std::errc();
}

/// The parts of `text` between the `separator`s, empty ones kept: "a,,b" gives "a", "", "b".
inline std::vector<std::string> split_text(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (auto end = text.find(separator); end != std::string_view::npos;
       start = end + 1, end = text.find(separator, start)) {
    parts.emplace_back(text.substr(start, end - start));
  }
  parts.emplace_back(text.substr(start));
  return parts;
}

/// `value` with `digits` decimals ("0.990000"), for reports and tables.
inline std::string format_fixed(double value, int digits) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(digits) << value;
  return text.str();
}

/// The count and its noun, singular for one: counted(1, "entry", "entries") is "1 entry",
/// counted(3, "head") is "3 heads" (the plural defaults to the noun with an "s").
template <typename Count>
std::string counted(Count count, std::string_view noun, std::string_view plural = {}) {
  std::string text = std::to_string(count) + " ";
  if (count == 1) return text.append(noun);
  return plural.empty() ? text.append(noun).append("s") : text.append(plural);
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
