#include "phasesim/core/tidy.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace phasesim {
namespace {

using Row = std::map<std::string, Json>;

constexpr const char* kRowLists[] = {"groups", "phases", "rows"};
constexpr const char* kBookkeeping[] = {"schema", "command", "phasesim_version"};

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

// The columns an object gives: its scalars, lists of scalars and the scalars of its one-level
// objects (key_inner), except the key `skip` (the rows' own list), the bookkeeping keys and the
// names in `taken` (a row's own field says more than the document's value of that name).
template <class Visit>
void each_column(const Json& node, const std::string& skip, const std::set<std::string>& taken,
                 Visit visit) {
  const auto keep = [&](const std::string& name, const Json& value) {
    if (!taken.count(name)) visit(name, value);
  };
  for (const auto& [key, value] : node.items()) {
    if (key == skip || std::find(std::begin(kBookkeeping), std::end(kBookkeeping), key) !=
                           std::end(kBookkeeping)) {
      continue;
    }
    if (is_cell(value)) {
      keep(key, value);
    } else if (value.is_object()) {
      for (const auto& [inner, x] : value.items()) {
        if (is_cell(x)) keep(key + "_" + inner, x);
      }
    }
  }
}

void add_columns(const Json& node, const std::string& skip, const std::set<std::string>& taken,
                 Row& row, Columns& columns) {
  each_column(node, skip, taken,
              [&](const std::string& name, const Json& value) { columns.set(row, name, value); });
}

// The names of the columns that the items of `items` give (without `skip`), added to `names`.
void column_names(const Json& items, const std::string& skip, std::set<std::string>& names) {
  for (const auto& item : items) {
    each_column(item, skip, {}, [&](const std::string& name, const Json&) { names.insert(name); });
  }
}

void document_rows(const Json& doc, Row base, Columns& columns, std::vector<Row>& rows) {
  const auto source = find_rows(doc);
  if (!source.list) {
    add_columns(doc, "", {}, base, columns);
    rows.push_back(std::move(base));
    return;
  }
  const Json* parents = &doc;  // the parent items when the rows are one level down
  for (const auto& key : source.parents) parents = &(*parents)[key];
  // Precedence, most specific first: a row's field, its parent's, the document's.
  std::set<std::string> row_names, parent_names;
  if (source.parents.empty()) {
    column_names(doc[source.list], "", row_names);
  } else {
    for (const auto& parent : *parents) {
      if (row_list(parent)) column_names(parent[source.list], "", row_names);
    }
    column_names(*parents, source.list, parent_names);
  }
  auto taken = row_names;
  taken.insert(parent_names.begin(), parent_names.end());
  add_columns(doc, source.parents.empty() ? source.list : "", taken, base, columns);
  const auto add_rows = [&](const Json& items, const Row& under) {
    for (const auto& item : items) {
      Row row = under;
      add_columns(item, "", {}, row, columns);
      rows.push_back(std::move(row));
    }
  };
  if (source.parents.empty()) return add_rows(doc[source.list], base);
  for (const auto& parent : *parents) {
    if (!row_list(parent)) continue;  // e.g. a query head of a shared cache: no rows of its own
    Row labelled = base;
    add_columns(parent, source.list, row_names, labelled, columns);
    add_rows(parent[source.list], labelled);
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
