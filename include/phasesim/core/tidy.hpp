#pragma once
// The tidy table of result documents, defined once: sweeps write it as results.csv, the
// Python module returns it from to_frame, and the page exports it as CSV.
//
// One row per item of the document's row list ("groups", "phases" or "rows"), or per item of
// a row list one level down (compare's architectures[i].groups, coverage --arch's
// architecture.heads[i].phases, each row labelled with its parent item's columns); one row
// when there is none. Every scalar of the document is a column, and so is every list of
// scalars (as JSON text in CSV) and every scalar of a one-level object, named key_inner
// (summary_mean); "schema", "command", "phasesim_version" and a sweep cell's "sweep_cell"
// record are not. Where a name is in
// several places, a row takes the most specific that has it: its own field (phase-diagram's
// beta of the row, not the document's range of betas), then its parent's, then the
// document's. Columns appear in the order first seen; a row without one leaves it empty.
#include <string>
#include <vector>

#include "phasesim/core/document.hpp"

namespace phasesim {

struct TidyTable {
  std::vector<std::string> columns;
  std::vector<std::vector<Json>> rows;  ///< scalars and lists of scalars; null where empty
};

/// The table of several documents, each row preceded by its document's label in the column
/// `label_column` (a sweep's cell ids under "cell"); no such column when it is empty.
TidyTable tidy_table(const std::vector<std::pair<std::string, Json>>& documents,
                     const std::string& label_column = "");

/// The table of one document.
TidyTable tidy_table(const Json& document);

/// The table as CSV: a header line, then one line a row; null is empty, a string is itself,
/// anything else its JSON text; fields with a comma, quote or line break are quoted.
std::string tidy_csv(const TidyTable& table);

}  // namespace phasesim
