#include "phasesim/core/tidy.hpp"

#include <algorithm>
#include <map>

namespace phasesim {
namespace {

using Row = std::map<std::string, Json>;

constexpr const char* kRowLists[] = {"groups", "phases", "rows"};
// sweep_cell: a sweep cell's record of itself (results.csv names the cell in its first column).
constexpr const char* kBookkeeping[] = {"schema", "command", "phasesim_version", "sweep_cell"};

bool is_scalar_list(const Json& value) {
  return value.is_array() &&
         std::all_of(value.begin(), value.end(), [](const Json& x) { return x.is_primitive(); });
}

bool is_cell(const Json& value) { return value.is_primitive() || is_scalar_list(value); }

class Columns {
 public:
  void set(Row& row, const std::string& name, const Json& value) {
    if (std::find(order_.begin(), order_.end(), name) == order_.end()) order_.push_back(name);
    row[name] = value;
  }
  const std::vector<std::string>& order() const { return order_; }

 private:
  std::vector<std::string> order_;
};

// The row list of an object: the first of kRowLists it holds as an array.
const char* row_list(const Json& node) {
  if (!node.is_object()) return nullptr;
  for (const char* key : kRowLists) {
    if (node.contains(key) && node[key].is_array()) return key;
  }
  return nullptr;
}

// Where a document's rows are: `parents` is the path to an array of objects that each hold
// the row list `list` (empty: the document holds it).
struct RowSource {
  std::vector<std::string> parents;
  const char* list = nullptr;
};

bool holds_rows(const Json& value) {
  return value.is_array() && !value.empty() &&
         std::any_of(value.begin(), value.end(), [](const Json& x) { return row_list(x); });
}

RowSource find_rows(const Json& doc) {
  if (const char* list = row_list(doc)) return {{}, list};
  for (const auto& [key, value] : doc.items()) {
    if (holds_rows(value)) return {{key}, row_list(value.front())};
  }
  for (const auto& [key, value] : doc.items()) {
    if (!value.is_object()) continue;
    for (const auto& [inner, nested] : value.items()) {
      if (holds_rows(nested)) return {{key, inner}, row_list(nested.front())};
    }
  }
  return {};
}

// The columns an object gives `row`: its scalars, lists of scalars and the scalars of its
// one-level objects (key_inner), except the key `skip` (the rows' own list) and the bookkeeping
// keys. A name the row has already takes this object's value: the more specific place wins.
void add_columns(const Json& node, const std::string& skip, Row& row, Columns& columns) {
  for (const auto& [key, value] : node.items()) {
    if (key == skip || std::find(std::begin(kBookkeeping), std::end(kBookkeeping), key) !=
                           std::end(kBookkeeping)) {
      continue;
    }
    if (is_cell(value)) {
      columns.set(row, key, value);
    } else if (value.is_object()) {
      for (const auto& [inner, x] : value.items()) {
        if (is_cell(x)) columns.set(row, key + "_" + inner, x);
      }
    }
  }
}

void add_rows(const Json& items, const Row& under, Columns& columns, std::vector<Row>& rows) {
  for (const auto& item : items) {
    Row row = under;
    add_columns(item, "", row, columns);
    rows.push_back(std::move(row));
  }
}

void document_rows(const Json& doc, Row base, Columns& columns, std::vector<Row>& rows) {
  const auto source = find_rows(doc);
  add_columns(doc, source.parents.empty() && source.list ? source.list : "", base, columns);
  if (!source.list) {
    rows.push_back(std::move(base));
    return;
  }
  if (source.parents.empty()) return add_rows(doc[source.list], base, columns, rows);
  const Json* parents = &doc;
  for (const auto& key : source.parents) parents = &(*parents)[key];
  for (const auto& parent : *parents) {
    if (!row_list(parent)) continue;  // e.g. a query head of a shared cache: no rows of its own
    Row labelled = base;
    add_columns(parent, source.list, labelled, columns);
    add_rows(parent[source.list], labelled, columns, rows);
  }
}

std::string csv_field(const Json& value) {
  const auto text = value.is_null()     ? ""
                    : value.is_string() ? value.get<std::string>()
                                        : value.dump();
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

TidyTable tidy_table(const std::vector<std::pair<std::string, Json>>& documents,
                     const std::string& label_column) {
  Columns columns;
  std::vector<Row> rows;
  for (const auto& [label, doc] : documents) {
    Row base;
    if (!label_column.empty()) columns.set(base, label_column, label);
    document_rows(doc, base, columns, rows);
  }
  TidyTable table{columns.order(), {}};
  for (const auto& row : rows) {
    auto& cells = table.rows.emplace_back();
    for (const auto& column : table.columns) {
      const auto it = row.find(column);
      cells.push_back(it == row.end() ? Json() : it->second);
    }
  }
  return table;
}

TidyTable tidy_table(const Json& document) {
  std::vector<std::pair<std::string, Json>> one;
  one.emplace_back("", document);
  return tidy_table(one);
}

std::string tidy_csv(const TidyTable& table) {
  std::string csv;
  const auto line = [&csv](const auto& fields, auto text) {
    for (std::size_t c = 0; c < fields.size(); ++c) csv += (c ? "," : "") + text(fields[c]);
    csv += "\n";
  };
  line(table.columns, [](const std::string& name) { return csv_field(Json(name)); });
  for (const auto& row : table.rows) line(row, [](const Json& value) { return csv_field(value); });
  return csv;
}

}  // namespace phasesim
