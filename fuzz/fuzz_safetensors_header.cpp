// Fuzzes the safetensors header (SafetensorsFile on the fuzzer's bytes as the whole file;
// include/phasesim/checkpoint/safetensors.hpp): any bytes give a header whose every tensor has
// a dtype of the format, a byte count its shape and dtype need, and offsets within the data that
// no other tensor's overlap, each tensor then readable whole; or one InputError.
#include <algorithm>
#include <vector>

#include "fuzz_input.hpp"
#include "phasesim/checkpoint/safetensors.hpp"

namespace {

void check_file(const phasesim::checkpoint::SafetensorsFile& file, std::size_t size) {
  using phasesim::fuzz::check;
  const auto& h = file.header();
  check(h.data_start() + h.data_bytes == size, "the header and the data make the file");
  check(file.bytes_read() == h.data_start(), "opening reads the header alone");
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (const auto& [name, t] : h.tensors) {
    check(t.name == name && name != "__metadata__", "tensors under their names");
    check(t.begin <= t.end && t.end <= h.data_bytes, "offsets within the data");
    check(phasesim::checkpoint::dtype_bytes(t.dtype, t.elements()) == t.bytes(),
          "the bytes its shape and dtype need");
    if (t.bytes() > 0) spans.emplace_back(t.begin, t.end);
    std::vector<std::uint8_t> bytes(t.bytes());
    file.read(t, 0, bytes);
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i) {
    check(spans[i].first >= spans[i - 1].second, "no two tensors share a byte");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  phasesim::fuzz::expect_value_or_input_error([&] {
    const phasesim::checkpoint::SafetensorsFile file(
        phasesim::checkpoint::memory_source({data, size}, "fuzz.safetensors"));
    check_file(file, size);
  });
  return 0;
}
