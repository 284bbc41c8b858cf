#include "phasesim/diagnose/table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "phasesim/core/error.hpp"
#include "phasesim/core/files.hpp"

namespace phasesim::diagnose {
namespace {

std::string trim(std::string_view text) {
  auto begin = text.begin();
  auto end = text.end();
  while (begin != end && std::isspace(static_cast<unsigned char>(*begin))) ++begin;
  while (end != begin && std::isspace(static_cast<unsigned char>(end[-1]))) --end;
  return std::string(begin, end);
}

std::vector<std::string> split(std::string_view line, char separator) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == separator) {
      fields.push_back(trim(line.substr(start, i - start)));
      start = i + 1;
    }
  }
  return fields;
}

// One value of a row, with where it came from for messages ("t.csv line 4").
struct Cell {
  std::string where;
  std::string column;
  std::string text;

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(where + ": " + column + " " + what);
  }

  double number() const {
    double value = 0;
    if (has_leading_zero(text)) fail("'" + text + "' has " + leading_zero_rule(text));
    if (!read_number(text, value) || !std::isfinite(value)) {
      throw InputError(where + ": non-numeric " + column + " '" + text + "'");
    }
    return value;
  }

  std::int64_t whole(std::int64_t at_least, std::int64_t at_most) const {
    const double value = number();
    if (value < 0) fail(text + " is negative");
    if (value != std::floor(value)) fail(text + " is not a whole number");
    if (value < static_cast<double>(at_least) || value > static_cast<double>(at_most)) {
      fail(text + " (must be from " + std::to_string(at_least) + " to " + std::to_string(at_most) +
           ")");
    }
    return static_cast<std::int64_t>(value);
  }
};

// A count from a JSON value: a number, or an error that says what the value is.
std::string json_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// Checks one group's counts (successes within trials) and keeps it; duplicates and the
// position of each group are checked once all rows are in.
struct Rows {
  std::string name;
  std::vector<stats::GroupCount> groups;
  std::vector<std::string> where;  // of each row, for duplicate-group messages

  // `count` holds successes, or an accuracy when `accuracy` is set.
  void add(const Cell& group, const Cell& count, const Cell& trials, bool accuracy) {
    stats::GroupCount row;
    row.group = static_cast<int>(group.whole(0, kMaxGroups - 1));
    row.trials = trials.whole(1, kMaxTrials);
    if (accuracy) {
      const double a = count.number();
      if (a < 0 || a > 1) count.fail(count.text + " outside [0, 1]");
      row.successes = std::llround(a * static_cast<double>(row.trials));
    } else {
      row.successes = count.whole(0, kMaxTrials);
      if (row.successes > row.trials) {
        count.fail(count.text + " above trials " + std::to_string(row.trials));
      }
    }
    groups.push_back(row);
    where.push_back(group.where);
  }

  // Groups 0..G-1, each exactly once, G >= 2.
  std::vector<stats::GroupCount> ordered() const {
    std::map<int, std::size_t> first;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const auto [it, fresh] = first.emplace(groups[i].group, i);
      if (!fresh) {
        throw InputError(where[i] + ": duplicate group " + std::to_string(groups[i].group) +
                         " (first at " + where[it->second].substr(name.size() + 1) + ")");
      }
    }
    if (groups.size() < 2) {
      throw InputError(name + ": fewer than two groups (a table needs at least two, " +
                       std::to_string(groups.size()) + " given)");
    }
    const int last = first.rbegin()->first;
    for (int r = 0; r <= last; ++r) {
      if (!first.count(r)) {
        throw InputError(name + ": missing group " + std::to_string(r) +
                         " (groups must run from 0 to " + std::to_string(last) + ", each once)");
      }
    }
    std::vector<stats::GroupCount> result(groups.size());
    for (const auto& g : groups) result[static_cast<std::size_t>(g.group)] = g;
    return result;
  }
};

constexpr const char* kHeaderHelp = "group,successes,trials or group,accuracy,trials";

// Column index of each name in the header, or an error naming the allowed headers.
std::map<std::string, std::size_t> header_columns(const std::string& line,
                                                  const std::string& where) {
  std::map<std::string, std::size_t> columns;
  const auto names = split(line, ',');
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string lower = names[i];
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    columns.emplace(lower, i);
  }
  const bool known = names.size() == 3 && columns.size() == 3 && columns.count("group") &&
                     columns.count("trials") &&
                     (columns.count("successes") || columns.count("accuracy"));
  if (!known) {
    throw InputError(where + ": the header must name the columns " + std::string(kHeaderHelp) +
                     " (got '" + trim(line) + "')");
  }
  return columns;
}

}  // namespace

std::int64_t CountTable::successes() const {
  std::int64_t sum = 0;
  for (const auto& g : groups) sum += g.successes;
  return sum;
}

std::int64_t CountTable::trials() const {
  std::int64_t sum = 0;
  for (const auto& g : groups) sum += g.trials;
  return sum;
}

const char* format_name(TableFormat format) {
  switch (format) {
    case TableFormat::csv_successes:
      return "csv-successes";
    case TableFormat::csv_accuracy:
      return "csv-accuracy";
    case TableFormat::niah_json:
      return "niah-json";
  }
  return "";
}

CountTable parse_csv_table(std::string_view text, const std::string& name) {
  Rows rows{name, {}, {}};
  std::map<std::string, std::size_t> columns;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto content = trim(line);
    if (content.empty() || content.front() == '#') continue;
    const std::string where = name + " line " + std::to_string(number);
    if (columns.empty()) {
      columns = header_columns(content, where);
      continue;
    }
    const auto fields = split(content, ',');
    if (fields.size() != 3) {
      throw InputError(where + ": " + std::to_string(fields.size()) +
                       " fields (expected 3, as in the header)");
    }
    auto cell = [&](const std::string& column) {
      return Cell{where, column, fields[columns.at(column)]};
    };
    const bool accuracy = columns.count("accuracy") > 0;
    rows.add(cell("group"), cell(accuracy ? "accuracy" : "successes"), cell("trials"), accuracy);
  }
  if (columns.empty()) {
    throw InputError(name + ": empty (expected a header " + std::string(kHeaderHelp) +
                     " and one row per group)");
  }
  return {rows.ordered(),
          columns.count("accuracy") ? TableFormat::csv_accuracy : TableFormat::csv_successes,
          {}};
}

CountTable parse_niah_table(std::string_view text, const std::string& name) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(name + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  const auto command = doc.is_object() ? doc.value("command", nlohmann::json()) : nlohmann::json();
  if (command != "niah" || !doc.contains("groups") || !doc["groups"].is_array()) {
    throw InputError(name + ": not a phasesim niah result (expected \"command\": \"niah\" and a " +
                     "list of groups; other tables go in CSV: " + kHeaderHelp + ")");
  }
  Rows rows{name, {}, {}};
  for (std::size_t i = 0; i < doc["groups"].size(); ++i) {
    const auto& g = doc["groups"][i];
    const std::string where = name + " groups[" + std::to_string(i) + "]";
    if (!g.is_object() || g.value("trials", nlohmann::json()).is_null()) {
      throw InputError(where + ": no trial counts (an analytic niah result holds exact " +
                       "probabilities: run niah with a Monte Carlo engine)");
    }
    auto cell = [&](const char* column) {
      return Cell{where, column, json_text(g.value(column, nlohmann::json()))};
    };
    rows.add(cell("group"), cell("successes"), cell("trials"), false);
  }
  CountTable table{rows.ordered(), TableFormat::niah_json, {}};
  auto known = [&](const char* key) {
    return doc.contains(key) && doc[key].is_number_integer() ? std::optional(doc[key].get<int>())
                                                             : std::nullopt;
  };
  table.architecture = {known("window"), known("stride"), std::nullopt, known("heads")};
  if (doc.contains("context") && doc["context"].is_number_integer()) {
    table.architecture.context = doc["context"].get<std::int64_t>();
  }
  return table;
}

CountTable read_table(const std::filesystem::path& path) {
  const std::string text = read_input_file(path, "table");
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    return parse_niah_table(text, path.string());
  }
  return parse_csv_table(text, path.string());
}

}  // namespace phasesim::diagnose
