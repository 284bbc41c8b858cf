#include "phasesim/checkpoint/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "phasesim/core/error.hpp"
#include "phasesim/core/files.hpp"

namespace phasesim::checkpoint {
namespace fs = std::filesystem;
namespace {

// config.json and the index are a few megabytes at most (DeepSeek-V4-Pro's index: 3 MB).
constexpr std::uint64_t kMaxJsonBytes = 64ULL << 20;

[[noreturn]] void invalid(const std::string& what, const std::string& file,
                          const std::string& why) {
  throw InputError("invalid " + what + " '" + file + "' (" + why + ")");
}

// A JSON object read from `file`, and its size added to `bytes`. An index names every tensor
// (tens of thousands): a sorted map, not ordered_json's linear one, holds it.
template <class Document = Json>
Document read_json_object(const fs::path& file, const std::string& what, std::uint64_t& bytes) {
  std::error_code error;
  const auto size = fs::file_size(file, error);
  if (!error && size > kMaxJsonBytes) {
    invalid(what, file.string(),
            std::to_string(size) + " bytes, over the bound of " + std::to_string(kMaxJsonBytes));
  }
  const auto text = read_input_file(file, what);
  bytes += text.size();
  auto doc = Document::parse(text, nullptr, false);
  if (doc.is_discarded()) invalid(what, file.string(), "not JSON");
  if (!doc.is_object()) invalid(what, file.string(), "not a JSON object");
  return doc;
}

// The top-level keys, with text_config's over them (V4.1's config nests the model's there).
Json model_config(const Json& doc) {
  Json config = doc;
  const auto nested = doc.find("text_config");
  if (nested != doc.end() && nested->is_object()) {
    for (const auto& [key, value] : nested->items()) config[key] = value;
  }
  return config;
}

// A shard named by the index: a file of the checkpoint's own folder, nothing else.
bool plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

// The .safetensors files of `folder`, sorted.
std::vector<std::string> safetensors_in(const fs::path& folder) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (entry.path().extension() == ".safetensors") files.push_back(entry.path().filename());
  }
  std::sort(files.begin(), files.end());
  return files;
}

[[noreturn]] void bad_tensor(const std::string& file, const std::string& tensor,
                             const std::string& what) {
  throw InputError("invalid checkpoint file '" + file + "': tensor " + tensor + ": " + what);
}

// The values of a 1-D or 2-D tensor as doubles: of a 2-D one the first `columns` columns of
// each row (0: all), a positioned read per row when that is not all of it.
Matrix read_values(const SafetensorsFile& file, const TensorInfo& t, std::int64_t columns) {
  if (t.shape.size() > 2) {
    bad_tensor(file.name(), t.name,
               "shape " + t.shape_text() + " (phasesim reads scalars, 1-D and 2-D tensors)");
  }
  Matrix m;
  m.rows = t.shape.size() == 2 ? t.shape[0] : 1;
  m.full_columns = t.shape.empty() ? 1 : t.shape.back();
  m.columns = columns > 0 && columns < m.full_columns ? columns : m.full_columns;
  const auto size = static_cast<std::uint64_t>(dtype_bits(t.dtype) / 8);
  const auto row_bytes = static_cast<std::uint64_t>(m.columns) * size;
  std::vector<std::uint8_t> bytes(
      static_cast<std::size_t>(row_bytes * static_cast<std::uint64_t>(m.rows)));
  if (m.columns == m.full_columns) {
    file.read(t, 0, bytes);
  } else {
    for (std::int64_t r = 0; r < m.rows; ++r) {
      const auto at = static_cast<std::uint64_t>(r) * row_bytes;
      file.read(t, static_cast<std::uint64_t>(r * m.full_columns) * size,
                {bytes.data() + at, static_cast<std::size_t>(row_bytes)});
    }
  }
  m.values.resize(bytes.size() / size);
  for (std::size_t i = 0; i < m.values.size(); ++i) m.values[i] = decode(t.dtype, &bytes[i * size]);
  return m;
}

// Multiplies `m` (the first m.columns of its rows) by `scale`: one value, or one per block of
// rows and columns, as DeepSeek's and transformers' FP8 checkpoints store them.
void apply_scale(Matrix& m, const Matrix& scale, const std::string& file, const std::string& name,
                 const std::string& scale_name) {
  if (scale.values.size() == 1) {
    for (auto& v : m.values) v *= scale.values.front();
    return;
  }
  const auto block = [](std::int64_t size, std::int64_t blocks) {
    return blocks > 0 ? (size + blocks - 1) / blocks : 0;
  };
  const auto rows = block(m.rows, scale.rows);
  const auto columns = block(m.full_columns, scale.full_columns);
  if (rows == 0 || columns == 0 || block(m.rows, rows) != scale.rows ||
      block(m.full_columns, columns) != scale.full_columns) {
    bad_tensor(file, name,
               "its scale " + scale_name + " of " + std::to_string(scale.rows) + " x " +
                   std::to_string(scale.full_columns) + " does not tile its " +
                   std::to_string(m.rows) + " x " + std::to_string(m.full_columns) + " in blocks");
  }
  for (std::int64_t r = 0; r < m.rows; ++r) {
    for (std::int64_t c = 0; c < m.columns; ++c) {
      m.values[static_cast<std::size_t>(r * m.columns + c)] *= scale.at(r / rows, c / columns);
    }
  }
}

void check_finite(const Matrix& m, const std::string& file, const std::string& name) {
  for (std::size_t i = 0; i < m.values.size(); ++i) {
    if (std::isfinite(m.values[i])) continue;
    const auto row = static_cast<std::int64_t>(i) / m.columns;
    const auto column = static_cast<std::int64_t>(i) % m.columns;
    bad_tensor(file, name,
               "a value that is not finite (" + format_number(m.values[i]) + ") at [" +
                   std::to_string(row) + ", " + std::to_string(column) + "]");
  }
}

// True for a folder, false for a file; refuses what is neither, and a JSON file given for the
// checkpoint (its index or config).
bool is_folder(const std::string& path) {
  std::error_code error;
  const auto status = fs::status(path, error);
  if (!fs::exists(status)) {
    throw InputError("cannot read checkpoint '" + path + "' (no such file or folder)");
  }
  if (!fs::is_directory(status) && fs::path(path).extension() == ".json") {
    throw InputError("cannot read checkpoint '" + path +
                     "' (a JSON file: give the checkpoint's folder or one .safetensors file)");
  }
  return fs::is_directory(status);
}

// An unsharded folder's weights: model.safetensors, else every .safetensors file.
std::vector<std::string> unsharded_files(const fs::path& dir, const std::string& path) {
  if (fs::exists(dir / "model.safetensors")) return {"model.safetensors"};
  auto files = safetensors_in(dir);
  if (files.empty()) {
    throw InputError("cannot read checkpoint '" + path +
                     "' (a folder with neither model.safetensors.index.json nor a .safetensors "
                     "file)");
  }
  return files;
}

}  // namespace

struct Checkpoint::Shard {
  std::string path;
  std::unique_ptr<SafetensorsFile> file;  ///< opened when first needed
};

Checkpoint::Checkpoint(Checkpoint&&) noexcept = default;
Checkpoint& Checkpoint::operator=(Checkpoint&&) noexcept = default;
Checkpoint::~Checkpoint() = default;

Checkpoint Checkpoint::open(const std::string& path) {
  Checkpoint c;
  c.path_ = path;
  const bool folder = is_folder(path);
  c.folder_ = folder ? path : fs::path(path).parent_path().string();
  const auto dir = fs::path(c.folder_.empty() ? "." : c.folder_);
  c.config_file_ = (dir / "config.json").string();
  c.config_ = model_config(read_json_object(c.config_file_, "config", c.json_bytes_));
  std::vector<std::string> files;  // the files whose headers say what they hold
  if (!folder) {
    files = {fs::path(path).filename().string()};
  } else if (fs::exists(dir / "model.safetensors.index.json")) {
    c.read_index((dir / "model.safetensors.index.json").string());
  } else {
    files = unsharded_files(dir, path);
  }
  c.add_shards(folder ? dir.string() : "", files);
  return c;
}

void Checkpoint::read_index(const std::string& file) {
  index_file_ = file;
  const auto index = read_json_object<nlohmann::json>(file, "checkpoint index", json_bytes_);
  const auto map = index.find("weight_map");
  if (map == index.end() || !map->is_object()) {
    invalid("checkpoint index", file, "no weight_map object of tensors to shard files");
  }
  for (const auto& [tensor, shard] : map->items()) {
    if (!shard.is_string() || !plain_file_name(shard.get<std::string>())) {
      invalid("checkpoint index", file,
              "tensor " + tensor + ": shard " + shard.dump() +
                  " (must be the name of a file in the checkpoint's folder)");
    }
    file_of_[tensor] = shard.get<std::string>();
  }
}

void Checkpoint::add_shards(const std::string& folder, const std::vector<std::string>& files) {
  for (const auto& [tensor, shard] : file_of_) shards_.try_emplace(shard);
  for (const auto& name : files) shards_.try_emplace(name);
  for (auto& [name, shard] : shards_) {
    shard = std::make_unique<Shard>();
    shard->path = folder.empty() ? path_ : (fs::path(folder) / name).string();
  }
  // Without an index the headers say what each file holds: read them now.
  for (const auto& name : files) {
    auto& shard = *shards_[name];
    shard.file = std::make_unique<SafetensorsFile>(open_file_source(shard.path));
    for (const auto& [tensor, info] : shard.file->header().tensors) {
      const auto [at, fresh] = file_of_.emplace(tensor, name);
      if (!fresh) {
        invalid("checkpoint", path_,
                "tensor " + tensor + " is in both " + at->second + " and " + name);
      }
    }
  }
  for (const auto& [name, shard] : shards_) {
    std::error_code error;
    const auto size = fs::file_size(shard->path, error);
    if (error) {
      throw InputError("cannot read checkpoint file '" + shard->path + "' (" + error.message() +
                       ")");
    }
    total_bytes_ += size;
  }
  for (const auto& [tensor, shard] : file_of_) names_.push_back(tensor);
}

bool Checkpoint::has(const std::string& name) const { return file_of_.contains(name); }

std::string Checkpoint::file_of(const std::string& name) const {
  return shards_.at(file_of_.at(name))->path;
}

std::vector<std::string> Checkpoint::files() const {
  std::vector<std::string> files{config_file_};
  if (!index_file_.empty()) files.push_back(index_file_);
  for (const auto& [name, shard] : shards_) files.push_back(shard->path);
  return files;
}

std::uint64_t Checkpoint::bytes_read() const {
  auto bytes = json_bytes_;
  for (const auto& [name, shard] : shards_) {
    if (shard->file) bytes += shard->file->bytes_read();
  }
  return bytes;
}

Checkpoint::Shard& Checkpoint::shard_of(const std::string& name) {
  auto& shard = *shards_.at(file_of_.at(name));
  if (!shard.file) shard.file = std::make_unique<SafetensorsFile>(open_file_source(shard.path));
  return shard;
}

const TensorInfo& Checkpoint::tensor(const std::string& name) {
  const auto& shard = shard_of(name);
  const auto* t = shard.file->find(name);
  if (t == nullptr) {
    invalid("checkpoint file", shard.path,
            "the index puts tensor " + name + " in it, its header does not have it");
  }
  return *t;
}

std::optional<std::string> Checkpoint::scale_of(const std::string& name) const {
  const auto base = name.ends_with(".weight") ? name.substr(0, name.size() - 7) : name;
  for (const auto& candidate : {base + ".scale", name + "_scale_inv"}) {
    if (has(candidate)) return candidate;
  }
  return std::nullopt;
}

Matrix Checkpoint::read_matrix(const std::string& name, std::int64_t columns) {
  const auto& t = tensor(name);
  const auto& file = *shard_of(name).file;
  if (!readable_value(t.dtype)) {
    bad_tensor(
        file.name(), name,
        std::string("dtype ") + dtype_name(t.dtype) + " (phasesim reads " + kReadableValues + ")");
  }
  auto m = read_values(file, t, columns);
  const auto scale_name = t.dtype == Dtype::F8_E4M3 ? scale_of(name) : std::nullopt;
  if (scale_name) {
    const auto& s = tensor(*scale_name);
    const auto& scale_file = *shard_of(*scale_name).file;
    if (!readable_value(s.dtype) && s.dtype != Dtype::F8_E8M0) {
      bad_tensor(
          scale_file.name(), *scale_name,
          std::string("dtype ") + dtype_name(s.dtype) + " (a scale is F32, F16, BF16 or F8_E8M0)");
    }
    const auto scale = read_values(scale_file, s, 0);
    check_finite(scale, scale_file.name(), *scale_name);
    apply_scale(m, scale, file.name(), name, *scale_name);
  }
  check_finite(m, file.name(), name);
  return m;
}

}  // namespace phasesim::checkpoint
