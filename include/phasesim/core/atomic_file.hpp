#pragma once
#include <filesystem>
#include <string_view>

namespace phasesim {

/// Writes `content` to `path` so that readers see either the old file or the complete
/// new one, never a partial write: the text goes to a temporary file in the same
/// directory, which is then renamed over `path`. Throws InputError when the path
/// cannot be written (missing directory, no permission).
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// Throws InputError, as write_file_atomically would, unless `path` can be written: its
/// directory takes a temporary file (created and removed at once) and `path` is not a
/// directory. For commands that check their output paths before long work.
void check_writable(const std::filesystem::path& path);

}  // namespace phasesim
