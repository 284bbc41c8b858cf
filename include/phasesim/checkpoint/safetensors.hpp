#pragma once
// One safetensors file, read by offset: an 8-byte little-endian header length N, N bytes of
// JSON ({"NAME": {"dtype", "shape", "data_offsets": [begin, end]}, ..., "__metadata__"}),
// then the data, each tensor's bytes at [begin, end) from the end of the header. The header
// is read and checked whole (every tensor of it, so that a corrupt file is refused before
// anything is read from it); data are read only where a caller asks, so a shard of hundreds
// of gigabytes costs its header and the bytes asked for. Every byte read is counted.
//
//   SafetensorsFile file(open_file_source("model-00001-of-00046.safetensors"));
//   const auto& ape = file.tensor("layers.2.attn.compressor.ape");
//   std::vector<std::uint8_t> bytes(ape.bytes());
//   file.read(ape, 0, bytes);  // file.bytes_read(): the header and these bytes
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "phasesim/checkpoint/dtype.hpp"

namespace phasesim::checkpoint {

/// The largest header read (the safetensors library's own bound): a longer one is refused
/// rather than read into memory.
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

/// Where bytes come from: a file read by positioned reads, or memory (tests, the fuzzer).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// What messages call it: the file's path.
  virtual const std::string& name() const = 0;
  virtual std::uint64_t size() const = 0;
  /// Fills `out` with the bytes at [offset, offset + out.size()), which lie within size().
  /// Throws InputError naming the source when they cannot be read.
  virtual void read(std::uint64_t offset, std::span<std::uint8_t> out) const = 0;
};

/// A regular file, read with pread (nothing else of it is touched). Throws InputError
/// "cannot read checkpoint file 'PATH' (REASON)" when it is missing, not a regular file, or
/// cannot be opened.
std::unique_ptr<ByteSource> open_file_source(const std::string& path);

/// Bytes in memory under a name (they must outlive the source).
std::unique_ptr<ByteSource> memory_source(std::span<const std::uint8_t> bytes, std::string name);

/// One tensor of a header.
struct TensorInfo {
  std::string name;
  Dtype dtype = Dtype::F32;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0;  ///< data_offsets, from the end of the header
  std::uint64_t end = 0;

  std::uint64_t bytes() const { return end - begin; }
  /// The product of the shape (1 for a scalar).
  std::uint64_t elements() const;
  /// "[4, 1024]".
  std::string shape_text() const;
};

/// A checked header: every tensor's dtype is one of the format's, its shape's element count
/// matches its byte count, and the tensors lie within the data without overlapping.
struct SafetensorsHeader {
  std::uint64_t header_bytes = 0;  ///< N
  std::uint64_t data_bytes = 0;    ///< the file's bytes after the header
  std::map<std::string, TensorInfo> tensors;

  std::uint64_t data_start() const { return 8 + header_bytes; }
};

/// The header length N from the file's first 8 bytes, checked against the file's size and
/// kMaxHeaderBytes. Throws InputError naming `file` ("invalid checkpoint file 'F': ...").
std::uint64_t header_length(std::span<const std::uint8_t, 8> prefix, std::uint64_t file_size,
                            const std::string& file);

/// The header's JSON text, checked (SafetensorsHeader) against `data_bytes` bytes of data.
/// Throws InputError naming `file` and, where one is at fault, the tensor.
SafetensorsHeader parse_header(std::string_view json, std::uint64_t header_bytes,
                               std::uint64_t data_bytes, const std::string& file);

/// A safetensors file: its header, read and checked when it is opened, and its tensors' bytes
/// on demand, each read counted.
class SafetensorsFile {
 public:
  explicit SafetensorsFile(std::unique_ptr<ByteSource> source);

  const std::string& name() const { return source_->name(); }
  const SafetensorsHeader& header() const { return header_; }
  /// The tensor `name`, or nullptr.
  const TensorInfo* find(const std::string& name) const;
  /// The tensor `name`; throws InputError naming the file when it has none.
  const TensorInfo& tensor(const std::string& name) const;
  /// The bytes of `tensor` at [offset, offset + out.size()) of its data (within its bytes).
  void read(const TensorInfo& tensor, std::uint64_t offset, std::span<std::uint8_t> out) const;
  /// The bytes read so far: the header's and every read's.
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  std::unique_ptr<ByteSource> source_;
  SafetensorsHeader header_;
  mutable std::uint64_t bytes_read_ = 0;
};

}  // namespace phasesim::checkpoint
