#pragma once
// A checkpoint as published: a folder with config.json and its weights in one safetensors
// file or in shards named by model.safetensors.index.json ({"weight_map": {TENSOR: SHARD}}),
// or one .safetensors file with config.json beside it. Opening reads the config, the index
// (or the one file's header) and nothing else; a shard's header is read the first time one of
// its tensors is asked for, and a tensor's data only where a read asks for them. Every byte
// read is counted (bytes_read), the JSON files' included.
//
//   auto ckpt = Checkpoint::open("DeepSeek-V4-Flash");
//   const auto ape = ckpt.read_matrix("layers.2.attn.compressor.ape");  // [4, 1024], doubles
//   const auto rows = ckpt.read_matrix("layers.2.attn.compressor.wgate.weight", 256);
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "phasesim/checkpoint/safetensors.hpp"
#include "phasesim/core/document.hpp"

namespace phasesim::checkpoint {

/// A tensor's values as doubles, row-major: a matrix of `rows` x `columns` (a 1-D tensor is
/// one row), possibly the first `columns` of `full_columns`.
struct Matrix {
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  std::int64_t full_columns = 0;
  std::vector<double> values;

  double at(std::int64_t row, std::int64_t column) const {
    return values[static_cast<std::size_t>(row * columns + column)];
  }
};

class Checkpoint {
 public:
  /// The checkpoint at `path`: a folder, or one .safetensors file. Throws InputError naming the
  /// file at fault: no config.json, an index that is not a map of tensors to shard files in
  /// the folder, a header that is not valid (safetensors.hpp).
  static Checkpoint open(const std::string& path);

  Checkpoint(Checkpoint&&) noexcept;
  Checkpoint& operator=(Checkpoint&&) noexcept;
  ~Checkpoint();

  const std::string& path() const { return path_; }
  /// config.json's path and its object (its text_config when it has one).
  const std::string& config_file() const { return config_file_; }
  const Json& config() const { return config_; }
  /// Every tensor's name, sorted: the index's keys, or the headers' names.
  const std::vector<std::string>& names() const { return names_; }
  bool has(const std::string& name) const;
  /// The file that holds tensor `name` (which must exist: has(name)).
  std::string file_of(const std::string& name) const;
  /// The files read: config.json, the index when there is one, and every shard.
  std::vector<std::string> files() const;
  /// The bytes of all its safetensors files on disk.
  std::uint64_t total_bytes() const { return total_bytes_; }
  /// The bytes read so far: the JSON files, the headers of the shards opened, the data read.
  std::uint64_t bytes_read() const;

  /// The header entry of tensor `name` (its shard's header is read the first time).
  const TensorInfo& tensor(const std::string& name);

  /// Tensor `name` (1-D or 2-D, of a dtype in kReadableValues) as doubles: of a 2-D tensor the
  /// first `columns` columns of every row (all of them when `columns` is 0 or at least its
  /// width), each row one positioned read. An F8_E4M3 tensor is multiplied by its scale tensor
  /// where the checkpoint has one (NAME without .weight + ".scale", or NAME + "_scale_inv":
  /// one scale per block of rows and columns, or one for the tensor). Throws InputError naming
  /// the file and the tensor: another dtype or rank, a scale that does not tile it, a value
  /// that is not finite.
  Matrix read_matrix(const std::string& name, std::int64_t columns = 0);

 private:
  struct Shard;
  Checkpoint() = default;
  void read_index(const std::string& file);
  /// The shards of the index and `files` (whose headers are read now) in `folder` (empty: the
  /// checkpoint is the one file).
  void add_shards(const std::string& folder, const std::vector<std::string>& files);
  Shard& shard_of(const std::string& name);
  std::optional<std::string> scale_of(const std::string& name) const;

  std::string path_;
  std::string folder_;
  std::string config_file_;
  std::string index_file_;  ///< empty when unsharded
  Json config_;
  std::vector<std::string> names_;
  std::map<std::string, std::string> file_of_;  ///< tensor -> shard file name
  std::map<std::string, std::unique_ptr<Shard>> shards_;
  std::uint64_t json_bytes_ = 0;
  std::uint64_t total_bytes_ = 0;
};

}  // namespace phasesim::checkpoint
