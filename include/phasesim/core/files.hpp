#pragma once
// Files the user names: inputs are read only when they are regular files (a FIFO would block,
// a directory would fail half-way), and outputs never destroy what the path names.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace phasesim {

/// The whole text of the input file `path`. Throws InputError "cannot read WHAT 'PATH'
/// (REASON)" when it is missing, not a regular file (a directory, FIFO or device), or
/// unreadable; `what` names the input, e.g. "table" or "gate file".
std::string read_input_file(const std::filesystem::path& path, const std::string& what);

/// Throws InputError "cannot write 'PATH' (REASON)" unless write_file_atomically(path, ...)
/// can succeed: the folder of the file `path` names (symlinks followed) exists and takes a new
/// file, or `path` names a device or a FIFO that can be opened for writing. Called before
/// long work, so that the work is not lost at the end.
void check_output_file(const std::filesystem::path& path);

/// Throws InputError "invalid OPTION 'PATH' (it names the input 'INPUT'; give another file)"
/// when a write to `path` would land on one of the files `inputs` names (symlinks followed):
/// an output is refused before work rather than written over what the run reads.
void check_not_an_input(const std::string& option, const std::filesystem::path& path,
                        const std::vector<std::string>& inputs);

/// Writes `content` to `path` so that readers see either the old file or the complete new
/// one, never a partial write, and never replaces anything but a regular file:
/// - a symlink is followed: the file it names is written, the link stays;
/// - a regular file (or none) is written to a temporary file beside it, renamed over it;
/// - a device or a FIFO (/dev/null, /dev/stdout) is written through, as `>` in a shell would;
///   a FIFO that no process reads is refused rather than waited on.
/// Throws InputError "cannot write 'PATH' (REASON)" when `path` cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace phasesim
