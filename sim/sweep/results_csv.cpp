#include "phasesim/sweep/results_csv.hpp"

#include <algorithm>
#include <map>

namespace phasesim::sweep {
namespace {

using Json = nlohmann::ordered_json;
using Row = std::map<std::string, std::string>;

constexpr const char* kRowLists[] = {"groups", "phases", "rows"};
constexpr const char* kBookkeeping[] = {"schema", "command", "phasesim_version"};

std::string cell_text(const Json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

bool is_scalar_list(const Json& value) {
  return value.is_array() &&
         std::all_of(value.begin(), value.end(), [](const Json& x) { return x.is_primitive(); });
}

class Columns {
 public:
  void set(Row& row, const std::string& name, const std::string& text) {
    if (std::find(order_.begin(), order_.end(), name) == order_.end()) order_.push_back(name);
    row[name] = text;
  }
  const std::vector<std::string>& order() const { return order_; }

 private:
  std::vector<std::string> order_;
};

// The cell-wide columns: scalars, lists of scalars, and one level of nested objects.
void add_cell_columns(const Json& doc, const char* row_list, Row& row, Columns& columns) {
  for (const auto& [key, value] : doc.items()) {
    if (std::find(std::begin(kBookkeeping), std::end(kBookkeeping), key) !=
            std::end(kBookkeeping) ||
        (row_list && key == row_list)) {
      continue;
    }
    if (value.is_primitive() || is_scalar_list(value)) {
      columns.set(row, key, cell_text(value));
    } else if (value.is_object()) {
      for (const auto& [inner, x] : value.items()) {
        if (x.is_primitive() || is_scalar_list(x))
          columns.set(row, key + "_" + inner, cell_text(x));
      }
    }
  }
}

const char* find_row_list(const Json& doc) {
  for (const char* key : kRowLists) {
    if (doc.contains(key) && doc[key].is_array()) return key;
  }
  return nullptr;
}

}  // namespace

std::string results_csv(const std::vector<CellDocument>& cells) {
  Columns columns;
  std::vector<Row> rows;
  for (const auto& [cell, doc] : cells) {
    Row base;
    columns.set(base, "cell", cell);
    const char* row_list = find_row_list(doc);
    add_cell_columns(doc, row_list, base, columns);
    if (!row_list) {
      rows.push_back(base);
      continue;
    }
    for (const auto& item : doc[row_list]) {
      Row row = base;
      for (const auto& [key, value] : item.items()) {
        // A row field that shadows a cell-wide column is prefixed with its list's name.
        const auto name = base.count(key) ? std::string(row_list) + "_" + key : key;
        if (value.is_primitive() || is_scalar_list(value)) columns.set(row, name, cell_text(value));
      }
      rows.push_back(std::move(row));
    }
  }
  std::string csv;
  for (std::size_t c = 0; c < columns.order().size(); ++c) {
    csv += (c ? "," : "") + csv_field(columns.order()[c]);
  }
  csv += "\n";
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < columns.order().size(); ++c) {
      const auto it = row.find(columns.order()[c]);
      csv += (c ? "," : "") + csv_field(it == row.end() ? "" : it->second);
    }
    csv += "\n";
  }
  return csv;
}

}  // namespace phasesim::sweep
