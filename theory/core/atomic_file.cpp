#include "phasesim/core/atomic_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "phasesim/core/error.hpp"

namespace phasesim {
namespace {

[[noreturn]] void cannot_write(const std::filesystem::path& path, int error) {
  throw InputError("cannot write '" + path.string() + "' (" + std::strerror(error) + ")");
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const auto directory = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string temporary = (directory / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) cannot_write(path, errno);

  std::size_t written = 0;
  while (written < content.size()) {
    const auto n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      std::remove(temporary.c_str());
      cannot_write(path, error);
    }
    written += static_cast<std::size_t>(n);
  }
  // mkstemp creates 0600 files; results are ordinary data files.
  const bool ok = ::fchmod(fd, 0644) == 0 && ::fsync(fd) == 0;
  const int error = errno;
  if (::close(fd) != 0 || !ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int final_error = ok ? errno : error;
    std::remove(temporary.c_str());
    cannot_write(path, final_error);
  }
}

}  // namespace phasesim
