// Fuzzes parse_range (phasesim/theorems/commands.hpp), the parser of list-valued numeric
// options such as phase-diagram's --beta: any text gives at most 10001 finite values,
// increasing for a:b:step, or one InputError.
#include <cmath>
#include <string>

#include "fuzz_input.hpp"
#include "phasesim/theorems/commands.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(phasesim::fuzz::as_text(data, size));
  phasesim::fuzz::expect_value_or_input_error([&] {
    using phasesim::fuzz::check;
    const auto values = phasesim::theorems::parse_range(text, "--beta");
    check(!values.empty(), "at least one value");
    for (double v : values) check(std::isfinite(v), "finite values");
    if (text.find(':') == std::string::npos) return;
    check(values.size() <= 10001, "at most 10001 values");
    for (std::size_t i = 1; i < values.size(); ++i) check(values[i] > values[i - 1], "increasing");
  });
  return 0;
}
