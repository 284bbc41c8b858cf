#pragma once
// results.csv: the tidy table of the cells' documents (phasesim/core/tidy.hpp), a row's cell
// id in its first column (the documents' sweep_cell record is bookkeeping there).
#include <string>
#include <vector>

#include "phasesim/core/document.hpp"

namespace phasesim::sweep {

struct CellDocument {
  std::string cell;  ///< the cell's id, the first column
  Json document;     ///< what the command wrote, keys in order
};

std::string results_csv(const std::vector<CellDocument>& cells);

}  // namespace phasesim::sweep
