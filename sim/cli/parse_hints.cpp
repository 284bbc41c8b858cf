#include "cli/parse_hints.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>

#include "phasesim/core/error.hpp"

namespace phasesim::cli {
namespace {

// "--gates", "--gates=last", "-W" and "-W8" name their option; a value ("-1", "last") none.
const CLI::Option* option_named(const CLI::App& command, const std::string& word) {
  if (word.size() < 2 || word[0] != '-') return nullptr;
  const auto name = word[1] == '-' ? word.substr(0, word.find('=')) : word.substr(0, 2);
  for (const auto* option : command.get_options()) {
    if (option->nonpositional() && option->check_name(name)) return option;
  }
  return nullptr;
}

// The value in the word itself: "last" of "--gates=last", "8" of "-W8"; empty when none.
std::string attached_value(const std::string& word) {
  if (word[1] != '-') return word.substr(2);
  const auto equals = word.find('=');
  return equals == std::string::npos ? "" : word.substr(equals + 1);
}

// A word CLI11 takes as a value, not as an option: "-1", "-0.5".
bool looks_like_number(const std::string& word) {
  double value = 0;
  return read_number(word, value);
}

// How many positional values the command takes (its TABLE, FILE or ARCHITECTURES).
std::size_t positional_room(const CLI::App& command, std::string& names) {
  std::size_t room = 0;
  for (const auto* option : command.get_options()) {
    if (!option->get_positional() || option->nonpositional()) continue;
    names += (names.empty() ? "" : " ") + option->get_name();
    const auto most = static_cast<std::size_t>(std::max(1, option->get_items_expected_max()));
    room = most > std::numeric_limits<std::size_t>::max() - room
               ? std::numeric_limits<std::size_t>::max()
               : room + most;
  }
  return room;
}

std::string help_hint(const std::string& path) { return "see '" + path + " --help'"; }

}  // namespace

std::string unexpected_word(const CLI::App& command, const std::string& path,
                            const std::vector<std::string>& words) {
  std::string positional_names;
  auto room = positional_room(command, positional_names);
  const CLI::Option* valued = nullptr;  // the option the previous word gave its value to
  std::string value;                    // that value
  const CLI::Option* flag = nullptr;    // the flag the previous word was
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto& word = words[i];
    if (const auto* option = option_named(command, word)) {
      valued = nullptr;
      flag = option->get_expected_max() == 0 ? option : nullptr;
      if (flag != nullptr) continue;
      value = attached_value(word);
      if (!value.empty()) {
        valued = option;
        continue;
      }
      // The values it takes, up to the next option: one for most options.
      const auto most = static_cast<std::size_t>(std::max(1, option->get_items_expected_max()));
      for (std::size_t taken = 0; taken < most && i + 1 < words.size(); ++taken) {
        const auto& next = words[i + 1];
        if (next.size() > 1 && next[0] == '-' && !looks_like_number(next)) break;
        value = words[++i];
        valued = option;
      }
      continue;
    }
    if (word.size() > 1 && word[0] == '-' && !looks_like_number(word)) {
      return "unknown option " + word.substr(0, word.find('=')) + " (" + help_hint(path) +
             " for its options)";
    }
    if (room > 0) {
      --room;
      valued = flag = nullptr;
      continue;
    }
    const auto stray = "unexpected '" + word + "'";
    if (valued != nullptr) {
      const auto name = valued->get_name();
      return stray + " after " + name + " " + value + " (" + name +
             " takes one value: quote a value that holds spaces or ';', as in " + name + " '" +
             value + " " + word + "')";
    }
    if (flag != nullptr) {
      return stray + " after " + flag->get_name() + " (a flag: it takes no value; write " +
             flag->get_name() + " alone)";
    }
    if (const auto* option = option_named(command, "--" + word)) {
      return stray + " (the option is " + option->get_name() + ": options start with --)";
    }
    return stray + " ('" + path + "' takes " +
           (positional_names.empty() ? "no value without its option"
                                     : "only " + positional_names + " without an option") +
           ": give values after their options, as in --name VALUE; " + help_hint(path) + ")";
  }
  return {};
}

std::string repeated_option(const CLI::App& command, const std::string& option_name,
                            const std::vector<std::string>& words) {
  const auto* option = option_named(command, option_name);
  if (option == nullptr) return {};
  const auto times = std::count_if(words.begin(), words.end(), [&](const std::string& word) {
    return option_named(command, word) == option;
  });
  if (times < 2) return {};
  std::string others;
  for (const auto& name : option->get_lnames()) {
    if ("--" + name != option->get_name()) others += (others.empty() ? "--" : ", --") + name;
  }
  return option->get_name() + " is given " + std::to_string(times) +
         " times (it takes one value: give it once" +
         (others.empty() ? "" : "; " + others + " is another name for it") + ")";
}

}  // namespace phasesim::cli
