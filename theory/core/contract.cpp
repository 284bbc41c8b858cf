#include "phasesim/core/contract.hpp"

namespace phasesim {

ContractError::ContractError(ContractKind kind, const char* condition, const char* file, int line)
    : std::logic_error(std::string(contract_kind_name(kind)) + " failed: " + condition + " (" +
                       file + ":" + std::to_string(line) + ")"),
      kind_(kind),
      condition_(condition),
      file_(file),
      line_(line) {}

const char* contract_kind_name(ContractKind kind) {
  switch (kind) {
    case ContractKind::precondition:
      return "precondition";
    case ContractKind::assertion:
      return "assertion";
    case ContractKind::postcondition:
      return "postcondition";
  }
  return "contract";
}

void contract_failed(ContractKind kind, const char* condition, const char* file, int line) {
  throw ContractError(kind, condition, file, line);
}

}  // namespace phasesim
