#include "phasesim/sweep/results_csv.hpp"

#include "phasesim/core/tidy.hpp"

namespace phasesim::sweep {

std::string results_csv(const std::vector<CellDocument>& cells) {
  std::vector<std::pair<std::string, Json>> documents;
  for (const auto& [cell, document] : cells) documents.emplace_back(cell, document);
  return tidy_csv(tidy_table(documents, "cell"));
}

}  // namespace phasesim::sweep
