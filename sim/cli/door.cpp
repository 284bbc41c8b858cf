#include "cli/door.hpp"

#include "cli/progress.hpp"
#include "phasesim/core/error.hpp"

namespace phasesim::cli {
namespace {

using commands::Kind;

// CLI11's names of an option: "-W,--window,--win", or a positional's own.
std::string cli_names(const commands::Option& option) {
  if (option.positional) return option.name;
  std::string names = option.short_name.empty() ? "" : "-" + option.short_name + ",";
  names += "--" + option.name;
  for (const auto& alias : option.aliases) names += ",--" + alias;
  return names;
}

// What --help shows for the option's values: CLI11's type names.
std::string type_name(Kind kind) {
  switch (kind) {
    case Kind::integer:
    case Kind::integers:
      return "INT";
    case Kind::seed:
    case Kind::seeds:
      return "UINT";
    case Kind::number:
    case Kind::numbers:
      return "FLOAT";
    default:
      return "TEXT";
  }
}

// The default as --help shows it: 4.5, [1024,32768], last.
std::string default_text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return format_number(value.get<double>());
  if (!value.is_array()) return value.dump();
  std::string text;
  for (const auto& item : value) text += (text.empty() ? "" : ",") + default_text(item);
  return "[" + text + "]";
}

}  // namespace

OptionWords::OptionWords(CLI::App& command, const std::vector<commands::Option>& options) {
  for (const auto& option : options) {
    auto slot = std::make_unique<Slot>();
    slot->option = &option;
    auto& s = *slot;
    if (option.kind == Kind::flag) {
      const auto names =
          cli_names(option) + (option.negation.empty() ? "" : ",!--" + option.negation);
      s.flag = option.default_value.is_boolean() && option.default_value.get<bool>();
      s.cli = command.add_flag(names, s.flag, option.help);
    } else {
      s.cli = option.list() ? command.add_option(cli_names(option), s.words, option.help)
                            : command.add_option(cli_names(option), s.word, option.help);
      // No CLI11 delimiter: it drops empty items ("0.5,,0.5"), which read_text refuses.
      s.cli->type_name(type_name(option.kind));
      if (!option.default_value.is_null()) s.cli->default_str(default_text(option.default_value));
      if (option.required) s.cli->required();
      // The words are read as the library reads them, so that a bad one stops the parse.
      s.cli->check(CLI::Validator(
          [&option](std::string& word) {
            commands::read_text(option, word);
            return std::string();
          },
          ""));
    }
    slots_.push_back(std::move(slot));
  }
  for (const auto& slot : slots_) {
    for (const auto& excluded : slot->option->excludes) {
      for (const auto& other : slots_) {
        if (other->option->name == excluded) slot->cli->excludes(other->cli);
      }
    }
  }
}

Json OptionWords::given() const {
  Json given = Json::object();
  for (const auto& slot : slots_) {
    if (slot->cli->count() == 0) continue;
    const auto& option = *slot->option;
    if (option.kind == Kind::flag) {
      given[option.name] = slot->flag;
    } else if (option.list()) {
      auto items = Json::array();
      for (const auto& word : slot->words) {
        const auto read = commands::read_text(option, word);
        if (read.is_array()) {
          items.insert(items.end(), read.begin(), read.end());
        } else {
          items.push_back(read);
        }
      }
      given[option.name] = items;
    } else {
      given[option.name] = commands::read_text(option, slot->word);
    }
  }
  return given;
}

commands::Context start_context(const std::string& command, const commands::Work& work, int threads,
                                bool progress, const std::ostream& out) {
  commands::Context context{
      with_progress(Parallel{threads}, progress, work.items, work.unit, command, out)};
  announce_long_run(command, work.estimate, work.serial ? 1 : context.parallel.team(), out);
  return context;
}

std::string subcommand_name(const std::string& name) { return name.substr(name.rfind(' ') + 1); }

}  // namespace phasesim::cli
