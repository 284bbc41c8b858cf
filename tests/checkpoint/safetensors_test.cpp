// safetensors files: the header read and checked whole (every refusal by its message), data
// read by offset and every byte counted.
#include "phasesim/checkpoint/safetensors.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "phasesim/core/error.hpp"
#include "support/checkpoint_writer.hpp"
#include "support/cli_runner.hpp"

using namespace phasesim::checkpoint;
using phasesim::InputError;

namespace {

// A file's bytes: the 8-byte length (`length`, default the header's own) and the header, then
// `data` zero bytes.
std::vector<std::uint8_t> file_of(const std::string& header, std::size_t data,
                                  std::optional<std::uint64_t> length = std::nullopt) {
  std::vector<std::uint8_t> bytes;
  const auto n = length.value_or(header.size());
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.resize(bytes.size() + data, 0);
  return bytes;
}

std::string refusal(const std::vector<std::uint8_t>& bytes) {
  try {
    SafetensorsFile file(memory_source(bytes, "f.safetensors"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

const std::string kBad = "invalid checkpoint file 'f.safetensors': ";

}  // namespace

TEST_CASE("a header's tensors: dtype, shape, offsets; data read where asked, bytes counted") {
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"b":{"dtype":"F16","shape":[3],"data_offsets":[8,14]},)"
      R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"e":{"dtype":"F4","shape":[3],"data_offsets":[14,16]}})";
  auto bytes = file_of(header, 16);
  const auto data = 8 + header.size();
  bytes[data + 6] = 0x80, bytes[data + 7] = 0x3F;  // a[1] = 1.0f
  const SafetensorsFile file(memory_source(bytes, "f.safetensors"));
  CHECK(file.header().header_bytes == header.size());
  CHECK(file.header().data_bytes == 16);
  CHECK(file.bytes_read() == data);
  REQUIRE(file.header().tensors.size() == 3);
  const auto& a = file.tensor("a");
  CHECK(a.dtype == Dtype::F32);
  CHECK(a.shape == std::vector<std::int64_t>{2});
  CHECK(a.shape_text() == "[2]");
  CHECK(file.tensor("e").bytes() == 2);  // three 4-bit values in two bytes
  std::vector<std::uint8_t> out(4);
  file.read(a, 4, out);
  CHECK(decode(Dtype::F32, out.data()) == 1.0);
  CHECK(file.bytes_read() == data + 4);
  CHECK(file.find("none") == nullptr);
  CHECK_THROWS_WITH_AS(file.tensor("none"), (kBad + "no tensor none").c_str(), InputError);
}

TEST_CASE("a header that is not what the format says is refused, naming the file and tensor") {
  const auto entry = [](const std::string& body) { return "{\"t\":" + body + "}"; };
  CHECK(refusal({1, 2, 3}) == kBad + "shorter than the 8 bytes of its header length");
  CHECK(refusal(file_of("{}", 0, 100)) ==
        kBad + "header length 100 past the end of the file (10 bytes)");
  CHECK(refusal(file_of("{}", 0, 100'000'001)) ==
        kBad + "header length 100000001 over the format's bound of 100000000 bytes");
  CHECK(refusal(file_of("{\"t\":", 0)) == kBad + "its header is not JSON");
  CHECK(refusal(file_of("[1, 2]", 0)) == kBad + "its header is not a JSON object");
  CHECK(refusal(file_of(R"({"__metadata__":[]})", 0)) == kBad + "__metadata__ must be an object");
  CHECK(refusal(file_of(entry("[]"), 0)) ==
        kBad + "tensor t: must be an object with dtype, shape and data_offsets");
  CHECK(refusal(file_of(entry(R"({"dtype":"Q4","shape":[1],"data_offsets":[0,1]})"), 1)) ==
        kBad + "tensor t: dtype \"Q4\" (the format's dtypes: " + dtype_names() + ")");
  CHECK(refusal(file_of(entry(R"({"dtype":"F32","shape":[2,-1],"data_offsets":[0,4]})"), 4)) ==
        kBad + "tensor t: shape [2,-1] (sizes are integers >= 0)");
  CHECK(refusal(file_of(entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0]})"), 4)) ==
        kBad + "tensor t: data_offsets [0] (must be [begin, end], integers >= 0)");
  CHECK(refusal(file_of(entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})"), 4)) ==
        kBad + "tensor t: data_offsets [0, 8] outside the data (4 bytes after the header)");
  CHECK(refusal(file_of(entry(R"({"dtype":"F32","shape":[2],"data_offsets":[4,0]})"), 4)) ==
        kBad + "tensor t: data_offsets [4, 0] outside the data (4 bytes after the header)");
  CHECK(refusal(file_of(entry(R"({"dtype":"F32","shape":[3],"data_offsets":[0,8]})"), 8)) ==
        kBad + "tensor t: shape [3] of F32 needs 12 bytes, its data_offsets [0, 8] hold 8");
  CHECK(refusal(file_of(
            entry(R"({"dtype":"F64","shape":[4611686018427387904,4],"data_offsets":[0,8]})"), 8)) ==
        kBad +
            "tensor t: shape [4611686018427387904, 4] of F64 needs more than 2^64 bytes, its "
            "data_offsets [0, 8] hold 8");
  CHECK(refusal(file_of(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                        R"("b":{"dtype":"U8","shape":[4],"data_offsets":[3,7]}})",
                        8)) == kBad + "tensors a and b overlap (data_offsets [0, 4] and [3, 7])");
  // Empty tensors take no bytes, and a gap between tensors is allowed.
  CHECK(refusal(file_of(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[2,2]},)"
                        R"("b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})",
                        4)) == "accepted");
}

TEST_CASE("a file on disk: missing, a folder, read by pread") {
  const phasesim::test::TempDir dir("safetensors");
  CHECK_THROWS_WITH_AS(
      open_file_source((dir / "none.safetensors").string()),
      ("cannot read checkpoint file '" + (dir / "none.safetensors").string() + "' (no such file)")
          .c_str(),
      InputError);
  CHECK_THROWS_WITH_AS(
      open_file_source(dir.path().string()),
      ("cannot read checkpoint file '" + dir.path().string() + "' (a directory, not a file)")
          .c_str(),
      InputError);
  const auto path = dir / "one.safetensors";
  phasesim::test::write_safetensors(path, {phasesim::test::tensor("w", "BF16", {2}, {1.5, -2})});
  const SafetensorsFile file(open_file_source(path.string()));
  std::vector<std::uint8_t> out(4);
  file.read(file.tensor("w"), 0, out);
  CHECK(decode(Dtype::BF16, out.data()) == 1.5);
  CHECK(decode(Dtype::BF16, out.data() + 2) == -2.0);
}
