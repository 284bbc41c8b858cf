// Fuzzes `@file.json` gate files (parse_gates on "@PATH"; MODEL.md section 3): any file
// gives gates of W finite non-negative weights summing to 1, or one InputError.
#include "gate_checks.hpp"

// The first byte picks the window (1..64); the rest is the file.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int window = 1 + data[0] % 64;
  const phasesim::fuzz::InputFile file(phasesim::fuzz::as_text(data + 1, size - 1), ".json");
  phasesim::fuzz::expect_value_or_input_error([&] {
    phasesim::fuzz::check_gates(phasesim::parse_gates("@" + file.path().string(), window), window);
  });
  return 0;
}
