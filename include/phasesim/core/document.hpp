#pragma once
// Results are data: every command's result is a JSON document that opens with the schema
// version, the command and the phasesim version, then holds every parameter under its
// option name (snake_case) and the results. Each layer turns its own result types into
// JSON; the CLI only writes the document.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "phasesim/version.hpp"

namespace phasesim {

/// Keys keep the order they were added in, so documents read parameters first.
using Json = nlohmann::ordered_json;

/// Version of the JSON layout; bump it when a key changes meaning or disappears.
inline constexpr const char* kSchema = "phasesim/1";

/// A new document: {"schema": ..., "command": ..., "phasesim_version": ...}.
inline Json new_document(const std::string& command) {
  Json doc;
  doc["schema"] = kSchema;
  doc["command"] = command;
  doc["phasesim_version"] = kVersion;
  return doc;
}

/// The value, or null when it is unset.
template <typename T>
Json optional_json(const std::optional<T>& value) {
  return value ? Json(*value) : Json();
}

}  // namespace phasesim
