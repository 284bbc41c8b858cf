#include "phasesim/core/files.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "phasesim/core/error.hpp"

namespace phasesim {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void cannot_write(const fs::path& path, int error) {
  throw InputError("cannot write '" + path.string() + "' (" + std::strerror(error) + ")");
}

[[noreturn]] void cannot_read(const fs::path& path, const std::string& what, const char* reason) {
  throw InputError("cannot read " + what + " '" + path.string() + "' (" + reason + ")");
}

// stat(2) of `path` without following a final symlink when `link` is set; nullopt when
// nothing is there. Any other failure (a name too long, a folder that may not be searched, a
// file where a folder should be) calls fail(errno), which throws.
template <typename Fail>
std::optional<struct stat> status_of(const fs::path& path, bool link, Fail fail) {
  struct stat st {};
  if ((link ? ::lstat(path.c_str(), &st) : ::stat(path.c_str(), &st)) == 0) return st;
  if (errno != ENOENT) fail(errno);
  return std::nullopt;
}

// What a write to `path` throws for errno `error`.
auto write_failure(const fs::path& path) {
  return [&path](int error) { cannot_write(path, error); };
}

// The file a write to `path` lands on: symlinks followed, one link at a time, to a path that
// is no link (and may not exist yet: a dangling link creates its target, as `>` does).
fs::path output_target(const fs::path& path) {
  fs::path at = path;
  for (int hops = 0; hops < 40; ++hops) {  // 40: Linux's own limit on links in a path
    const auto st = status_of(at, true, write_failure(path));
    if (!st || !S_ISLNK(st->st_mode)) return at;
    std::error_code error;
    const auto target = fs::read_symlink(at, error);
    if (error) cannot_write(path, error.value());
    at = target.is_absolute() ? target : at.parent_path() / target;
  }
  cannot_write(path, ELOOP);
}

fs::path folder_of(const fs::path& file) {
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

// A new, empty temporary file beside `target` ("." NAME ".tmp-XXXXXX", the name shortened so
// that it fits the file system's limit on names); its descriptor, its path in `temporary`.
int make_temporary(const fs::path& path, const fs::path& target, std::string& temporary) {
  const auto folder = folder_of(target);
  const long limit = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  const std::string suffix = ".tmp-XXXXXX";
  const auto room = static_cast<std::size_t>(limit > 0 ? limit : NAME_MAX) - suffix.size() - 1;
  const auto name = target.filename().string();
  temporary = (folder / ("." + name.substr(0, std::min(room, name.size())) + suffix)).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) cannot_write(path, errno);
  return fd;
}

// Writes all of `content` to `fd`; 0 or the errno of the write that failed.
int write_all(int fd, std::string_view content) {
  std::size_t written = 0;
  while (written < content.size()) {
    const auto n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    written += static_cast<std::size_t>(n);
  }
  return 0;
}

// Opens a device or FIFO for writing; a FIFO without a reader fails (ENXIO) at once instead
// of blocking until one comes.
int open_through(const fs::path& path, const fs::path& target) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENXIO) {
      throw InputError("cannot write '" + path.string() + "' (a FIFO that no process reads)");
    }
    cannot_write(path, errno);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

void write_through(const fs::path& path, const fs::path& target, std::string_view content) {
  const int fd = open_through(path, target);
  const int error = write_all(fd, content);
  ::close(fd);
  if (error != 0) cannot_write(path, error);
}

void replace_regular(const fs::path& path, const fs::path& target, std::string_view content,
                     const std::optional<struct stat>& old) {
  std::string temporary;
  const int fd = make_temporary(path, target, temporary);
  int error = write_all(fd, content);
  // mkstemp creates 0600 files; results are ordinary data files, or keep the old file's mode.
  const mode_t mode = old ? (old->st_mode & 07777) : 0644;
  if (error == 0 && (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0)) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && std::rename(temporary.c_str(), target.c_str()) != 0) error = errno;
  if (error != 0) {
    std::remove(temporary.c_str());
    cannot_write(path, error);
  }
}

}  // namespace

std::string read_input_file(const fs::path& path, const std::string& what) {
  const auto st =
      status_of(path, false, [&](int error) { cannot_read(path, what, std::strerror(error)); });
  if (!st) cannot_read(path, what, "no such file");
  if (S_ISDIR(st->st_mode)) cannot_read(path, what, "a directory, not a file");
  if (!S_ISREG(st->st_mode)) cannot_read(path, what, "not a regular file: a FIFO or a device");
  std::ifstream in(path, std::ios::binary);
  if (!in) cannot_read(path, what, std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) cannot_read(path, what, "read error");
  // A UTF-8 byte-order mark (spreadsheets write one before a CSV) is no part of the text.
  auto content = std::move(text).str();
  if (content.starts_with("\xEF\xBB\xBF")) content.erase(0, 3);
  return content;
}

void check_output_file(const fs::path& path) {
  const auto target = output_target(path);
  const auto st = status_of(target, false, write_failure(path));
  if (st && S_ISDIR(st->st_mode)) cannot_write(path, EISDIR);
  if (st && !S_ISREG(st->st_mode)) {
    if (::access(target.c_str(), W_OK) != 0) cannot_write(path, errno);
    return;  // written through when the run ends; a FIFO's reader may come later
  }
  // Creating the temporary file is the test that counts (root may write anywhere by the
  // permissions, yet not in /proc, nor on a read-only file system).
  std::string temporary;
  ::close(make_temporary(path, target, temporary));
  std::remove(temporary.c_str());
}

void write_file_atomically(const fs::path& path, std::string_view content) {
  const auto target = output_target(path);
  const auto st = status_of(target, false, write_failure(path));
  if (st && S_ISDIR(st->st_mode)) cannot_write(path, EISDIR);
  if (st && !S_ISREG(st->st_mode)) {
    write_through(path, target, content);
  } else {
    replace_regular(path, target, content, st);
  }
}

bool same_file(const fs::path& output, const fs::path& other) {
  std::error_code error;
  const auto a = fs::status(output, error), b = fs::status(other, error);
  if (fs::exists(a) || fs::exists(b)) {
    return fs::is_regular_file(a) && fs::is_regular_file(b) && fs::equivalent(output, other, error);
  }
  const auto x = fs::weakly_canonical(output, error);
  if (error) return false;
  const auto y = fs::weakly_canonical(other, error);
  return !error && x == y;
}

void check_output_folder(const fs::path& dir, const std::string& option) {
  const auto refuse = [&](const std::string& why) {
    throw InputError("invalid " + option + " " + dir.string() + " (" + why + ")");
  };
  // A folder made later: each of its names must fit the file system's limit (the nearest
  // folder that exists says nothing about the names below it).
  for (const auto& name : dir) {
    if (name.string().size() > NAME_MAX) {
      refuse("cannot create it: a name of " + std::to_string(name.string().size()) +
             " bytes, the limit is " + std::to_string(NAME_MAX));
    }
  }
  if (dir.string().size() >= PATH_MAX) refuse(std::strerror(ENAMETOOLONG));
  // The nearest part of the path that is there, as the user wrote it: the folder itself, or
  // where it is made ("." for a relative path whose first name is new).
  fs::path at = dir;
  std::optional<struct stat> st;
  for (;;) {
    st = status_of(at, false, [&](int error) {
      if (error != ENOTDIR) refuse("cannot create it: " + std::string(std::strerror(error)));
    });
    if (st || at == at.parent_path() || at == ".") break;
    at = at.has_parent_path() ? at.parent_path() : fs::path(".");
  }
  const bool here = at == dir;
  const auto where = here ? std::string() : "cannot create it: " + at.string() + " ";
  if (!st || !S_ISDIR(st->st_mode)) {
    refuse(here ? "exists and is not a folder" : where + "is not a folder");
  }
  if (::access(at.c_str(), W_OK | X_OK) != 0)
    refuse(where + (here ? "" : "is ") + "not a writable folder");
}

}  // namespace phasesim
