#include "phasesim/commands/option.hpp"

#include <algorithm>
#include <system_error>

#include "phasesim/core/error.hpp"

namespace phasesim::commands {
namespace {

// Text lands in JSON documents and messages, which must be UTF-8: refused otherwise, shown
// with U+FFFD for the bytes that are not (nlohmann's encoder is the check).
void require_utf8(const Option& option, const std::string& text) {
  try {
    (void)Json(text).dump();
  } catch (const Json::type_error&) {
    const auto shown = Json(text).dump(-1, ' ', false, Json::error_handler_t::replace);
    detail::refuse(option, Json(shown.substr(1, shown.size() - 2)),
                   "not UTF-8 text: names and paths must be UTF-8");
  }
}

// The CLI's words, sweep files and Python's strings alike: an empty value is no value.
void require_not_empty(const Option& option, const std::string& text) {
  const auto allowed = option.required ? ")" : ", or leave " + option.flag() + " out)";
  require(!text.empty(), "invalid " + option.flag() + " '' (an empty value: give one" + allowed);
}

// One item of `option`'s kind (a scalar, or one item of a list) from its text.
Json read_item(const Option& option, const std::string& text) {
  require_not_empty(option, text);
  const auto refuse = [&](const std::string& rule) { detail::refuse(option, Json(text), rule); };
  switch (option.item_kind()) {
    case Kind::flag:
      if (text != "true" && text != "false") refuse("a flag takes true or false");
      return text == "true";
    case Kind::integer: {
      std::int64_t value = 0;
      const auto error = read_decimal(text, value);
      if (has_leading_zero(text)) refuse(leading_zero_rule(text));
      if (error == std::errc::result_out_of_range) refuse("out of range for this option");
      if (error != std::errc()) refuse("must be an integer");
      return value;
    }
    case Kind::seed: {
      std::uint64_t value = 0;
      if (has_leading_zero(text)) refuse(leading_zero_rule(text));
      if (read_decimal(text, value) != std::errc()) refuse("must be an integer in [0, 2^64 - 1]");
      return value;
    }
    case Kind::number: {
      double value = 0;
      const auto error = read_decimal(text, value);
      if (has_leading_zero(text)) refuse(leading_zero_rule(text));
      if (error == std::errc::result_out_of_range) refuse("out of range for this option");
      if (error != std::errc()) refuse("must be a number");
      return value;
    }
    default:
      require_utf8(option, text);
      return text;
  }
}

// The text of a value in a message: a string as it is, anything else as JSON.
std::string value_text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

std::string Option::python_name() const {
  auto python = name;
  std::replace(python.begin(), python.end(), '-', '_');
  return python;
}

bool Option::named(const std::string& key) const {
  const auto wanted = option_key(key);
  return wanted == name || std::find(aliases.begin(), aliases.end(), wanted) != aliases.end();
}

Kind Option::item_kind() const {
  switch (kind) {
    case Kind::integers:
      return Kind::integer;
    case Kind::seeds:
      return Kind::seed;
    case Kind::numbers:
      return Kind::number;
    case Kind::texts:
      return Kind::text;
    default:
      return kind;
  }
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::flag:
      return "flag";
    case Kind::integer:
      return "integer";
    case Kind::seed:
      return "seed";
    case Kind::number:
      return "number";
    case Kind::text:
      return "text";
    case Kind::integers:
      return "integers";
    case Kind::seeds:
      return "seeds";
    case Kind::numbers:
      return "numbers";
    case Kind::texts:
      return "texts";
  }
  return "?";
}

std::string option_key(const std::string& name) {
  auto key = name;
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

const Option& find_option(const std::vector<Option>& options, const std::string& key) {
  const auto found =
      std::find_if(options.begin(), options.end(), [&](const Option& o) { return o.named(key); });
  require(found != options.end(), "unknown option --" + option_key(key));
  return *found;
}

Json read_text(const Option& option, const std::string& text) {
  if (option.kind == Kind::texts) return Json::array({read_item(option, text)});
  if (!option.list()) return read_item(option, text);
  auto items = Json::array();
  const auto parts = split_text(text, ',');
  for (const auto& part : parts) {
    // "0.5,,0.5": an empty item is refused, never dropped (it would shift the others).
    if (part.empty() && parts.size() > 1) {
      detail::refuse(option, Json(text),
                     "item " + std::to_string(items.size() + 1) +
                         " is empty: separate the values by single commas");
    }
    items.push_back(read_item(option, part));
  }
  return items;
}

namespace detail {

void refuse(const Option& option, const Json& value, const std::string& rule) {
  throw InputError("invalid " + option.flag() + " '" + value_text(value) + "' (" + rule + ")");
}

bool FieldTraits<bool>::read(const Option& option, const Json& value) {
  if (!value.is_boolean()) refuse(option, value, "must be true or false");
  return value.get<bool>();
}

std::string FieldTraits<std::string>::read(const Option& option, const Json& value) {
  if (!value.is_string()) refuse(option, value, "must be text");
  require_not_empty(option, value.get<std::string>());
  return value.get<std::string>();
}

double FieldTraits<double>::read(const Option& option, const Json& value) {
  if (!value.is_number()) refuse(option, value, "must be a number");
  return value.get<double>();
}

std::uint64_t FieldTraits<std::uint64_t>::read(const Option& option, const Json& value) {
  const bool whole =
      value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0);
  if (!whole) refuse(option, value, "must be an integer in [0, 2^64 - 1]");
  return value.get<std::uint64_t>();
}

std::int64_t read_integer(const Option& option, const Json& value, std::int64_t low,
                          std::int64_t high) {
  if (!value.is_number_integer()) refuse(option, value, "must be an integer");
  const bool fits = value.is_number_unsigned()
                        ? value.get<std::uint64_t>() <= static_cast<std::uint64_t>(high)
                        : value.get<std::int64_t>() >= low && value.get<std::int64_t>() <= high;
  if (!fits) refuse(option, value, "out of range for this option");
  return value.get<std::int64_t>();
}

FileInput FieldTraits<FileInput>::read(const Option& option, const Json& value) {
  if (value.is_string()) {
    require_not_empty(option, value.get<std::string>());
    return {value.get<std::string>(), std::nullopt};
  }
  const bool inline_text = value.is_object() && value.size() == 2 && value.contains("name") &&
                           value["name"].is_string() && value.contains("text") &&
                           value["text"].is_string();
  if (!inline_text) refuse(option, value, "must be a file name");
  return {value["name"].get<std::string>(), value["text"].get<std::string>()};
}

void check_given(const std::vector<Option>& options, const Json& given) {
  require(given.is_object(), "invalid options " + given.dump() + " (must be an object)");
  for (const auto& [key, value] : given.items()) find_option(options, key);
  const auto is_given = [&](const Option& o) {
    return std::any_of(given.items().begin(), given.items().end(),
                       [&](const auto& item) { return o.named(item.key()); });
  };
  // As CLI11 reports it: the first given option, in the table's order, that excludes another
  // given one (either way round).
  for (const auto& option : options) {
    if (!is_given(option)) continue;
    for (const auto& other : options) {
      const auto excludes = [](const Option& a, const Option& b) {
        return std::find(a.excludes.begin(), a.excludes.end(), b.name) != a.excludes.end();
      };
      if (&other != &option && is_given(other) &&
          (excludes(option, other) || excludes(other, option)))
        throw InputError(option.flag() + " excludes " + other.flag());
    }
  }
  for (const auto& option : options) {
    require(!option.required || is_given(option), option.flag() + " is required");
  }
}

}  // namespace detail
}  // namespace phasesim::commands
