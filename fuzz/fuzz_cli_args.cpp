// Fuzzes the command line of every command that only computes (sim/cli/command.hpp):
// parse_arguments declares the options, converts the numbers and runs each command's
// validation, as `phasesim WORDS...` does before any work. Any words give an action or
// one CLI::ParseError or InputError (the one line and exit status 2); the action is not
// run, so nothing is computed or written.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "fuzz_input.hpp"

namespace {

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words(1);
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!words.back().empty()) words.emplace_back();
    } else {
      words.back() += c;
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

}  // namespace

// The input is the command line, words separated by white space. `sweep` and `demo` are
// left out: they write folders (their inputs have targets of their own).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto words = words_of(phasesim::fuzz::as_text(data, size));
  const auto writes = [](const std::string& w) { return w == "sweep" || w == "demo"; };
  if (words.empty() || std::any_of(words.begin(), words.end(), writes)) return 0;
  phasesim::fuzz::expect_value_or_input_error([&] {
    try {
      phasesim::cli::parse_arguments(words);
    } catch (const CLI::ParseError&) {
    }
  });
  return 0;
}
