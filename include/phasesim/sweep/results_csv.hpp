#pragma once
// Tidy CSV from JSON result documents: one row per cell and per item of the document's
// row list (`groups`, `phases` or `rows`, whichever it has; one row if none), every
// scalar top-level key a column (the flat documents hold every parameter there),
// one-level objects such as `summary` flattened as summary_mean, lists of numbers as
// JSON text. Columns appear in first-seen order; a cell without a column leaves it empty.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace phasesim::sweep {

struct CellDocument {
  std::string cell;                 ///< the cell's id, the first column
  nlohmann::ordered_json document;  ///< what the command wrote, keys in order
};

std::string results_csv(const std::vector<CellDocument>& cells);

}  // namespace phasesim::sweep
