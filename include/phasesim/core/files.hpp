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
/// unreadable (a name too long, no permission); `what` names the input, e.g. "table" or "gate
/// file".
std::string read_input_file(const std::filesystem::path& path, const std::string& what);

/// Throws InputError "cannot write 'PATH' (REASON)" unless write_file_atomically(path, ...)
/// can succeed: the folder of the file `path` names (symlinks followed) exists and takes a new
/// file, or `path` names a device or a FIFO that can be opened for writing. Called before
/// long work, so that the work is not lost at the end.
void check_output_file(const std::filesystem::path& path);

/// Whether writing `output` would replace the file `other` names: the same regular file
/// (symlinks and hard links followed), or, when neither is there yet, the same path. Devices
/// and FIFOs are never the same file (two outputs may both be /dev/null).
bool same_file(const std::filesystem::path& output, const std::filesystem::path& other);

/// Throws InputError "invalid OPTION DIR (REASON)" unless `dir` is a folder that a run may write
/// into: an existing folder that takes new files, or one that can be made (its names within
/// the file system's limit, the nearest part of it that exists a writable folder). For
/// --out, before any work.
void check_output_folder(const std::filesystem::path& dir, const std::string& option);

/// Writes `content` to `path` so that readers see either the old file or the complete new
/// one, never a partial write, and never replaces anything but a regular file:
/// - a symlink is followed: the file it names is written, the link stays;
/// - a regular file (or none) is written to a temporary file beside it, renamed over it;
/// - a device or a FIFO (/dev/null, /dev/stdout) is written through, as `>` in a shell would;
///   a FIFO that no process reads is refused rather than waited on.
/// Throws InputError "cannot write 'PATH' (REASON)" when `path` cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace phasesim
