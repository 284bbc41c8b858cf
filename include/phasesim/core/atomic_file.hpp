#pragma once
#include <filesystem>
#include <string_view>

namespace phasesim {

/// Writes `content` to `path` so that readers see either the old file or the complete
/// new one, never a partial write: the text goes to a temporary file in the same
/// directory, which is then renamed over `path`. Throws InputError when the path
/// cannot be written (missing directory, no permission).
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace phasesim
