#pragma once
// The text `diagnose` prints: the period tests, the per-phase accuracies, each fit of the
// model, the prompts needed, and the assumptions behind the numbers.
#include <iosfwd>
#include <string>

#include "phasesim/diagnose/diagnose.hpp"

namespace phasesim::cli {

void print_diagnosis(const std::string& table_path, const diagnose::CountTable& table,
                     const diagnose::Diagnosis& diagnosis, std::ostream& out);

}  // namespace phasesim::cli
