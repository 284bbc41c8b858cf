#pragma once
// CLI11's own parse errors name no option ("The following arguments were not expected: 4
// prompts", "--gates: At Most 1 required but received 2"): these read the words as typed and
// say, in one line, which option a stray word belongs to. One mapping for every command.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace phasesim::cli {

/// The line for the first word of `words` (the command line after the command's name) that
/// `command` cannot place: an unknown option, a second value after an option that takes one,
/// a value after a flag, an option name without its dashes, or a stray positional value.
/// `path` is the command as typed ("phasesim niah"). Empty when every word has its place.
std::string unexpected_word(const CLI::App& command, const std::string& path,
                            const std::vector<std::string>& words);

/// "--gates is given 2 times (it takes one value: give it once; --gate is another name for
/// it)" when `option_name` ("--gates") occurs more than once in `words`; empty otherwise.
std::string repeated_option(const CLI::App& command, const std::string& option_name,
                            const std::vector<std::string>& words);

}  // namespace phasesim::cli
