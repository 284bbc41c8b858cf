#pragma once
// A command's options, each written once: its name, short name, help, default (read from the
// options struct's own initializers) and how a front door's value becomes the field's value.
// The CLI registers its options from the table, Python builds its keyword arguments, defaults
// and docstrings from it, the page and sweep cells pass their values through it, and the
// references (docs/CLI.md, the README's command table, the .pyi stubs) are generated from it:
//
//   OptionTable<ChannelOptions> t;
//   t.add("beta", &ChannelOptions::beta, "Signal strength beta >= 0");
//   t.add("entries", &ChannelOptions::entries, "Entries in all", {.short_name = "N"});
//   const auto options = t.parse(Json{{"beta", 3.5}});  // the struct, beta set, the rest default
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "phasesim/core/document.hpp"

namespace phasesim::commands {

/// What an option's value is, as every front door reads it.
enum class Kind {
  flag,      ///< true or false; the CLI's --NAME alone means true
  integer,   ///< a whole number in the field's range
  seed,      ///< a whole number in [0, 2^64 - 1]
  number,    ///< a real number
  text,      ///< a string
  integers,  ///< lists: the CLI's comma-separated values, Python's sequences
  seeds,
  numbers,
  texts,  ///< a list of strings (positional words: compare's architectures)
};

/// "flag", "integer", ...: the kind's name in the references and the Python module.
const char* kind_name(Kind kind);

/// What an option means to a front door beyond its value.
enum class Role {
  value,        ///< a parameter of the run
  input_file,   ///< a file the command reads (a path, or from Python and the page its text)
  output_file,  ///< a file the command writes: checked before any work
  threads,      ///< the run's OpenMP threads (0: the OpenMP default)
  progress,     ///< show progress (the CLI on stderr, Python on sys.stderr)
};

/// How an option is declared beyond its name, field and help (designated initializers).
struct Traits {
  std::string short_name = {};            ///< "W" for -W
  std::vector<std::string> aliases = {};  ///< more long names: "gate" for --gates
  std::string negation = {};              ///< a flag's negative form: "no-content" for --no-content
  bool positional = false;                ///< given by its place on the command line
  bool required = false;                  ///< must be given (it has no default)
  std::vector<std::string> excludes = {};  ///< options that may not be given with it
  Role role = Role::value;
};

/// One option of a command, as every front door shows it.
struct Option : Traits {
  std::string name;  ///< "split-rho", or a positional's "architectures"
  Kind kind = Kind::text;
  std::string help;
  Json default_value;  ///< null: no default (the option is given or not)

  /// "--split-rho"; a positional's name as it is.
  std::string flag() const { return positional ? name : "--" + name; }
  /// "split_rho": the Python keyword.
  std::string python_name() const;
  /// True when a front door's `key` names this option: its name or an alias, with dashes or
  /// underscores ("split_rho", "gate").
  bool named(const std::string& key) const;
  bool list() const {
    return kind == Kind::integers || kind == Kind::seeds || kind == Kind::numbers ||
           kind == Kind::texts;
  }
  /// The kind of one item of a list (the kind itself for a scalar).
  Kind item_kind() const;
};

/// An input file's content: a path to read, or (from Python and the page) the text itself
/// under a name that messages and documents use.
struct FileInput {
  std::string name;                 ///< the path, or e.g. "DataFrame"
  std::optional<std::string> text;  ///< the content when it is not read from `name`

  bool operator==(const FileInput&) const = default;
};

/// `text` (the CLI's word, a sweep file's value) read as `option`'s kind: decimal numbers only
/// (no '+', no spaces, no hexadecimal, no leading zeros' octal), a list's items separated by
/// ','. Throws InputError with the CLI's line: "invalid --prompts 'abc' (must be an integer)".
Json read_text(const Option& option, const std::string& text);

/// The option of `options` that `key` names (Option::named); throws InputError "unknown option
/// --KEY" when none does.
const Option& find_option(const std::vector<Option>& options, const std::string& key);

/// The name an option goes by in a front door's given values: "split_rho" and "split-rho"
/// both give "split-rho".
std::string option_key(const std::string& name);

namespace detail {

[[noreturn]] void refuse(const Option& option, const Json& value, const std::string& rule);

template <class T>
struct FieldTraits;
template <>
struct FieldTraits<bool> {
  static constexpr Kind kind = Kind::flag;
  static bool read(const Option& option, const Json& value);
};
template <>
struct FieldTraits<std::string> {
  static constexpr Kind kind = Kind::text;
  static std::string read(const Option& option, const Json& value);
};
template <>
struct FieldTraits<double> {
  static constexpr Kind kind = Kind::number;
  static double read(const Option& option, const Json& value);
};
template <>
struct FieldTraits<std::uint64_t> {
  static constexpr Kind kind = Kind::seed;
  static std::uint64_t read(const Option& option, const Json& value);
};
/// Whole numbers, checked against the field's range.
std::int64_t read_integer(const Option& option, const Json& value, std::int64_t low,
                          std::int64_t high);
template <class T>
requires(std::is_same_v<T, int> || std::is_same_v<T, std::int64_t>) struct FieldTraits<T> {
  static constexpr Kind kind = Kind::integer;
  static T read(const Option& option, const Json& value) {
    return static_cast<T>(
        read_integer(option, value, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  }
};
template <>
struct FieldTraits<FileInput> {
  static constexpr Kind kind = Kind::text;
  static FileInput read(const Option& option, const Json& value);
};
/// A list: a JSON array (a single value is a list of one), each item read as T.
template <class T>
struct FieldTraits<std::vector<T>> {
  static constexpr Kind kind = FieldTraits<T>::kind == Kind::integer  ? Kind::integers
                               : FieldTraits<T>::kind == Kind::seed   ? Kind::seeds
                               : FieldTraits<T>::kind == Kind::number ? Kind::numbers
                                                                      : Kind::texts;
  static_assert(FieldTraits<T>::kind != Kind::flag && !std::is_same_v<T, FileInput>,
                "lists hold numbers or strings");
  static std::vector<T> read(const Option& option, const Json& value) {
    std::vector<T> items;
    if (!value.is_array()) return {FieldTraits<T>::read(option, value)};
    for (const auto& item : value) items.push_back(FieldTraits<T>::read(option, item));
    return items;
  }
};
/// No default: the option is given or not.
template <class T>
struct FieldTraits<std::optional<T>> {
  static constexpr Kind kind = FieldTraits<T>::kind;
  static std::optional<T> read(const Option& option, const Json& value) {
    return FieldTraits<T>::read(option, value);
  }
};

template <class T>
Json default_json(const T& value) {
  if constexpr (std::is_same_v<T, FileInput>) {
    return value.name.empty() ? Json() : Json(value.name);
  } else {
    return Json(value);
  }
}
template <class T>
Json default_json(const std::optional<T>& value) {
  return value ? default_json(*value) : Json();
}

/// The names of the given values that name no option of `options`, refused by name.
void check_given(const std::vector<Option>& options, const Json& given);

}  // namespace detail

/// The options of one command over the fields of its options struct. `Options` is a plain
/// struct whose member initializers are the defaults; each option reaches its field by a
/// member pointer or a function returning a reference (a field of a member struct).
template <class Options>
class OptionTable {
 public:
  /// Declares an option: its long name (dashes between words), how to reach its field, its
  /// help (one sentence, no final period), and its traits. The kind and the default follow
  /// from the field.
  template <class Access>
  void add(std::string name, Access access, std::string help, Traits traits = {}) {
    using Field = std::remove_cvref_t<decltype(std::invoke(access, std::declval<Options&>()))>;
    Option option;
    static_cast<Traits&>(option) = std::move(traits);
    option.name = std::move(name);
    option.kind = detail::FieldTraits<Field>::kind;
    option.help = std::move(help);
    option.default_value = detail::default_json(std::invoke(access, defaults_));
    options_.push_back(std::move(option));
    assign_.push_back([access](Options& options, const Option& declared, const Json& value) {
      std::invoke(access, options) = detail::FieldTraits<Field>::read(declared, value);
    });
    if constexpr (std::is_same_v<Field, int>) {
      if (options_.back().role == Role::threads) {
        threads_ = [access](const Options& options) { return std::invoke(access, options); };
      }
    }
    if constexpr (std::is_same_v<Field, bool>) {
      if (options_.back().role == Role::progress) {
        progress_ = [access](const Options& options) { return std::invoke(access, options); };
      }
    }
  }

  const std::vector<Option>& options() const { return options_; }

  /// The options struct with the `given` values (an object from option names, dashes or
  /// underscores, to typed values) assigned over the defaults. Throws InputError naming the
  /// option: a name no option has, a value of the wrong type or range, two given options
  /// that exclude each other, a required option missing.
  Options parse(const Json& given) const {
    detail::check_given(options_, given);
    Options options = defaults_;
    for (const auto& [name, value] : given.items()) {
      for (std::size_t i = 0; i < options_.size(); ++i) {
        if (options_[i].named(name)) assign_[i](options, options_[i], value);
      }
    }
    return options;
  }

  /// The run's --threads (0 when the command has none).
  int threads(const Options& options) const { return threads_ ? threads_(options) : 0; }
  /// Whether --progress was asked for (false when the command has none).
  bool progress(const Options& options) const { return progress_ ? progress_(options) : false; }

 private:
  Options defaults_{};
  std::vector<Option> options_;
  std::vector<std::function<void(Options&, const Option&, const Json&)>> assign_;
  std::function<int(const Options&)> threads_;
  std::function<bool(const Options&)> progress_;
};

}  // namespace phasesim::commands
