#pragma once
// The architecture presets of presets/*.toml, compiled into the program (CMake writes
// presets.cpp from presets.cpp.in), so that `--arch v4-csa` works from any directory.
#include <span>
#include <string_view>

namespace phasesim::niah {

struct Preset {
  std::string_view name;  ///< the file's stem, e.g. "v4-csa"
  std::string_view file;  ///< e.g. "presets/v4-csa.toml", for messages and reports
  std::string_view text;  ///< the file's TOML
};

std::span<const Preset> builtin_presets();

}  // namespace phasesim::niah
