#include "phasesim/checkpoint/safetensors.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "phasesim/core/contract.hpp"
#include "phasesim/core/error.hpp"

namespace phasesim::checkpoint {
namespace {

[[noreturn]] void cannot_read(const std::string& path, const std::string& why) {
  throw InputError("cannot read checkpoint file '" + path + "' (" + why + ")");
}

[[noreturn]] void invalid(const std::string& file, const std::string& what) {
  throw InputError("invalid checkpoint file '" + file + "': " + what);
}

class FileSource final : public ByteSource {
 public:
  explicit FileSource(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) cannot_read(path_, errno == ENOENT ? "no such file" : std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail(std::strerror(errno));
    if (S_ISDIR(st.st_mode)) fail("a directory, not a file");
    if (!S_ISREG(st.st_mode)) fail("not a regular file: a FIFO or a device");
    size_ = static_cast<std::uint64_t>(st.st_size);
  }
  ~FileSource() override { ::close(fd_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  const std::string& name() const override { return path_; }
  std::uint64_t size() const override { return size_; }

  void read(std::uint64_t offset, std::span<std::uint8_t> out) const override {
    std::size_t done = 0;
    while (done < out.size()) {
      const auto got =
          ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) cannot_read(path_, std::strerror(errno));
      if (got == 0) cannot_read(path_, "it ended before its header says, was it cut short?");
      done += static_cast<std::size_t>(got);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    ::close(fd_);
    cannot_read(path_, why);
  }

  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(std::span<const std::uint8_t> bytes, std::string name)
      : bytes_(bytes), name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  std::uint64_t size() const override { return bytes_.size(); }
  void read(std::uint64_t offset, std::span<std::uint8_t> out) const override {
    PHASESIM_EXPECT(offset <= bytes_.size() && out.size() <= bytes_.size() - offset);
    std::copy_n(bytes_.begin() + static_cast<std::ptrdiff_t>(offset), out.size(), out.begin());
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::string name_;
};

std::string offsets_text(const TensorInfo& t) {
  return "[" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "]";
}

// A non-negative JSON integer of 64 bits, or unset.
std::optional<std::uint64_t> unsigned_of(const nlohmann::json& value) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(value.get<std::int64_t>());
  return std::nullopt;
}

// One entry of the header, checked on its own (its place among the others comes after).
TensorInfo read_entry(const std::string& name, const nlohmann::json& entry,
                      std::uint64_t data_bytes, const std::string& file) {
  const auto bad = [&](const std::string& what) { invalid(file, "tensor " + name + ": " + what); };
  if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
      !entry.contains("data_offsets")) {
    bad("must be an object with dtype, shape and data_offsets");
  }
  TensorInfo t;
  t.name = name;
  const auto& dtype = entry["dtype"];
  const auto named = dtype.is_string() ? dtype_named(dtype.get<std::string>()) : std::nullopt;
  if (!named) bad("dtype " + dtype.dump() + " (the format's dtypes: " + dtype_names() + ")");
  t.dtype = *named;
  const auto& shape = entry["shape"];
  if (!shape.is_array()) bad("shape must be a list of sizes");
  for (const auto& size : shape) {
    const auto value = unsigned_of(size);
    if (!value || *value > (std::uint64_t{1} << 62))
      bad("shape " + shape.dump() + " (sizes are integers >= 0)");
    t.shape.push_back(static_cast<std::int64_t>(*value));
  }
  const auto& offsets = entry["data_offsets"];
  const auto begin =
      offsets.is_array() && offsets.size() == 2 ? unsigned_of(offsets[0]) : std::nullopt;
  const auto end =
      offsets.is_array() && offsets.size() == 2 ? unsigned_of(offsets[1]) : std::nullopt;
  if (!begin || !end)
    bad("data_offsets " + offsets.dump() + " (must be [begin, end], integers >= 0)");
  t.begin = *begin;
  t.end = *end;
  if (t.begin > t.end || t.end > data_bytes) {
    bad("data_offsets " + offsets_text(t) + " outside the data (" + std::to_string(data_bytes) +
        " bytes after the header)");
  }
  // The product of the sizes, unset where it overflows (a size 0 makes it 0 whatever the rest).
  std::optional<std::uint64_t> elements = 1;
  for (auto size : t.shape) {
    const auto s = static_cast<std::uint64_t>(size);
    if (s == 0) elements = 0;
    if (elements && *elements != 0 && *elements > UINT64_MAX / s) elements.reset();
    if (elements) *elements *= s;
  }
  if (std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end()) elements = 0;
  const auto bytes = elements ? dtype_bytes(t.dtype, *elements) : std::nullopt;
  if (!bytes || *bytes != t.bytes()) {
    bad("shape " + t.shape_text() + " of " + dtype_name(t.dtype) + " needs " +
        (bytes ? std::to_string(*bytes) : std::string("more than 2^64")) +
        " bytes, its data_offsets " + offsets_text(t) + " hold " + std::to_string(t.bytes()));
  }
  return t;
}

// Tensors with bytes may not share any: in order of their offsets, each starts at or after
// the end of the one before.
void check_overlaps(const std::map<std::string, TensorInfo>& tensors, const std::string& file) {
  std::vector<const TensorInfo*> order;
  for (const auto& [name, t] : tensors) {
    if (t.bytes() > 0) order.push_back(&t);
  }
  std::sort(order.begin(), order.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->begin < b->begin; });
  for (std::size_t i = 1; i < order.size(); ++i) {
    const auto& before = *order[i - 1];
    const auto& t = *order[i];
    if (t.begin < before.end) {
      invalid(file, "tensors " + before.name + " and " + t.name + " overlap (data_offsets " +
                        offsets_text(before) + " and " + offsets_text(t) + ")");
    }
  }
}

}  // namespace

std::unique_ptr<ByteSource> open_file_source(const std::string& path) {
  return std::make_unique<FileSource>(path);
}

std::unique_ptr<ByteSource> memory_source(std::span<const std::uint8_t> bytes, std::string name) {
  return std::make_unique<MemorySource>(bytes, std::move(name));
}

std::uint64_t TensorInfo::elements() const {
  std::uint64_t n = 1;
  for (auto size : shape) n *= static_cast<std::uint64_t>(size);
  return n;
}

std::string TensorInfo::shape_text() const {
  std::string text;
  for (auto size : shape) text += (text.empty() ? "" : ", ") + std::to_string(size);
  return "[" + text + "]";
}

std::uint64_t header_length(std::span<const std::uint8_t, 8> prefix, std::uint64_t file_size,
                            const std::string& file) {
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = length << 8 | prefix[static_cast<std::size_t>(i)];
  if (length > kMaxHeaderBytes) {
    invalid(file, "header length " + std::to_string(length) + " over the format's bound of " +
                      std::to_string(kMaxHeaderBytes) + " bytes");
  }
  if (length > file_size - 8) {
    invalid(file, "header length " + std::to_string(length) + " past the end of the file (" +
                      std::to_string(file_size) + " bytes)");
  }
  return length;
}

SafetensorsHeader parse_header(std::string_view json, std::uint64_t header_bytes,
                               std::uint64_t data_bytes, const std::string& file) {
  const auto doc = nlohmann::json::parse(json, nullptr, false);
  if (doc.is_discarded()) invalid(file, "its header is not JSON");
  if (!doc.is_object()) invalid(file, "its header is not a JSON object");
  SafetensorsHeader header;
  header.header_bytes = header_bytes;
  header.data_bytes = data_bytes;
  for (const auto& [name, entry] : doc.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) invalid(file, "__metadata__ must be an object");
      continue;
    }
    header.tensors.emplace(name, read_entry(name, entry, data_bytes, file));
  }
  check_overlaps(header.tensors, file);
  return header;
}

SafetensorsFile::SafetensorsFile(std::unique_ptr<ByteSource> source) : source_(std::move(source)) {
  const auto& file = source_->name();
  const auto size = source_->size();
  if (size < 8) invalid(file, "shorter than the 8 bytes of its header length");
  std::array<std::uint8_t, 8> prefix{};
  source_->read(0, prefix);
  const auto length = header_length(prefix, size, file);
  std::string json(length, '\0');
  source_->read(8, {reinterpret_cast<std::uint8_t*>(json.data()), json.size()});
  bytes_read_ = 8 + length;
  header_ = parse_header(json, length, size - 8 - length, file);
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
  const auto it = header_.tensors.find(name);
  return it == header_.tensors.end() ? nullptr : &it->second;
}

const TensorInfo& SafetensorsFile::tensor(const std::string& name) const {
  const auto* t = find(name);
  if (t == nullptr) invalid(source_->name(), "no tensor " + name);
  return *t;
}

void SafetensorsFile::read(const TensorInfo& tensor, std::uint64_t offset,
                           std::span<std::uint8_t> out) const {
  PHASESIM_EXPECT(offset <= tensor.bytes() && out.size() <= tensor.bytes() - offset);
  source_->read(header_.data_start() + tensor.begin + offset, out);
  bytes_read_ += out.size();
}

}  // namespace phasesim::checkpoint
