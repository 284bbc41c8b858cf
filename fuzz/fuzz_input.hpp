#pragma once
// Helpers shared by the libFuzzer targets (fuzz/README.md): the fuzzer's bytes as text or
// as a file a parser reads by name, and the one outcome bad input may have.
//
// A parser under fuzzing may return a value or throw InputError (the CLI's one line and
// exit status 2). Anything else is a finding: another exception escapes and libFuzzer
// reports it, a sanitizer stops at undefined behaviour, and check() stops where a value a
// parser accepted breaks its documented invariant.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "phasesim/core/error.hpp"

namespace phasesim::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Stops the run with a message when an accepted value breaks an invariant.
inline void check(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
  }
}

/// A file holding the fuzzer's bytes, for parsers that read a path; one per process, so
/// parallel fuzzing jobs do not share it, removed when the object dies.
class InputFile {
 public:
  InputFile(std::string_view text, const std::string& extension)
      : path_(std::filesystem::temp_directory_path() /
              ("phasesim-fuzz-" + std::to_string(::getpid()) + extension)) {
    std::ofstream(path_, std::ios::binary | std::ios::trunc)
        .write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  ~InputFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Runs `parse` and lets only InputError through.
template <typename Parse>
void expect_value_or_input_error(Parse&& parse) {
  try {
    parse();
  } catch (const InputError&) {
  }
}

}  // namespace phasesim::fuzz
