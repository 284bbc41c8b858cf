#pragma once
// Writes small checkpoints for the tests of checkpoint/ and inspect/: safetensors files
// (tensors of any dtype, sharded or not, a sparse region declared past the data), config.json
// and the index, and a V4-shaped model scaled down with a position bias planted on known
// slots, in either published spelling.
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "phasesim/checkpoint/dtype.hpp"

namespace phasesim::test {

/// One tensor as a file stores it: its bytes, or `hole` bytes the file declares and leaves a
/// hole (a sparse file: zeros that take no disk).
struct RawTensor {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;
  std::uint64_t hole = 0;

  std::uint64_t size() const { return hole > 0 ? hole : bytes.size(); }
};

/// A tensor of `shape` declared and left a hole of the file.
inline RawTensor declared(const std::string& name, const std::string& dtype,
                          std::vector<std::int64_t> shape) {
  std::uint64_t elements = 1;
  for (auto size : shape) elements *= static_cast<std::uint64_t>(size);
  const auto bytes =
      phasesim::checkpoint::dtype_bytes(*phasesim::checkpoint::dtype_named(dtype), elements);
  return {name, dtype, std::move(shape), {}, *bytes};
}

/// The bits of `value` in `dtype` (F32, F16, BF16, F8_E4M3, F8_E8M0), little-endian; the
/// value must be exact in it (the tests plant such values), else this throws.
inline std::vector<std::uint8_t> encode(const std::string& dtype, double value) {
  using namespace phasesim::checkpoint;
  const auto exact = [&](double decoded) {
    return decoded == value || (std::isnan(value) && std::isnan(decoded));
  };
  if (dtype == "F32") {
    const float f = static_cast<float>(value);
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    if (!exact(f)) throw std::invalid_argument("not a float");
    return {std::uint8_t(bits), std::uint8_t(bits >> 8), std::uint8_t(bits >> 16),
            std::uint8_t(bits >> 24)};
  }
  if (dtype == "F16" || dtype == "BF16") {
    for (std::uint32_t b = 0; b < 65536; ++b) {
      const auto bits = static_cast<std::uint16_t>(b);
      if (exact(dtype == "F16" ? f16_from_bits(bits) : bf16_from_bits(bits)))
        return {std::uint8_t(bits), std::uint8_t(bits >> 8)};
    }
  }
  if (dtype == "F8_E4M3" || dtype == "F8_E8M0") {
    for (std::uint32_t b = 0; b < 256; ++b) {
      const auto bits = static_cast<std::uint8_t>(b);
      if (exact(dtype == "F8_E4M3" ? f8_e4m3_from_bits(bits) : e8m0_from_bits(bits))) return {bits};
    }
  }
  throw std::invalid_argument(std::to_string(value) + " is not exact in " + dtype);
}

inline RawTensor tensor(const std::string& name, const std::string& dtype,
                        std::vector<std::int64_t> shape, const std::vector<double>& values) {
  RawTensor t{name, dtype, std::move(shape), {}};
  for (double v : values) {
    const auto bytes = encode(dtype, v);
    t.bytes.insert(t.bytes.end(), bytes.begin(), bytes.end());
  }
  return t;
}

/// The safetensors file of `tensors`, in order; holes are left holes (ftruncate), so that a
/// test can declare a shard of a terabyte and count what is read.
inline void write_safetensors(const std::filesystem::path& path,
                              const std::vector<RawTensor>& tensors) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  header["__metadata__"] = {{"format", "pt"}};
  std::uint64_t offset = 0;
  for (const auto& t : tensors) {
    header[t.name] = {
        {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.size()}}};
    offset += t.size();
  }
  auto text = header.dump();
  while (text.size() % 8 != 0) text += ' ';  // the format pads its header to 8 bytes
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const std::uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>(n >> (8 * i)));
  out << text;
  std::uint64_t at = 8 + n;
  for (const auto& t : tensors) {
    if (t.hole == 0) {
      out.seekp(static_cast<std::streamoff>(at));
      out.write(reinterpret_cast<const char*>(t.bytes.data()),
                static_cast<std::streamsize>(t.bytes.size()));
    }
    at += t.size();
  }
  out.close();
  if (::truncate(path.c_str(), static_cast<off_t>(at)) != 0) {
    throw std::runtime_error("cannot make a file of " + std::to_string(at) + " bytes");
  }
}

inline void write_json(const std::filesystem::path& path, const nlohmann::ordered_json& doc) {
  std::ofstream(path) << doc.dump(2);
}

/// A V4-shaped model scaled down: its config and tensors (MODEL.md section 9).
struct SmallModel {
  std::vector<int> ratios{0, 4, 8, 4};  ///< window, CSA, HCA (ratio 8, not 4), CSA
  int head_dim = 4;
  int index_head_dim = 2;
  int hidden = 8;
  int heads = 2;
  std::string dtype = "F32";
  bool deepseek = true;  ///< DeepSeek's names, else transformers'

  /// Channel c's logit at slot s of layer `layer`'s compressor (the indexer's with `indexer`):
  /// 4 on the planted slot (layer + c) mod W, 0 elsewhere. Exact in every dtype.
  static double logit(int layer, int c, int s, int window, bool indexer) {
    return s == (layer + c + (indexer ? 1 : 0)) % window ? 4.0 : 0.0;
  }
  int window(int layer) const { return ratios[layer] == 4 ? 8 : ratios[layer]; }

  std::string prefix(int layer) const {
    return (deepseek ? "layers." : "model.layers.") + std::to_string(layer) +
           (deepseek ? ".attn." : ".self_attn.");
  }
  /// The bias of a compressor as stored: [m, coff d]; slot s < m reads column c, slot s >= m
  /// (CSA's newer half) column d + c.
  std::vector<double> bias(int layer, int dim, bool indexer) const {
    const int m = ratios[layer], coff = ratios[layer] == 4 ? 2 : 1;
    std::vector<double> v(static_cast<std::size_t>(m * coff * dim), 0.0);
    for (int c = 0; c < dim; ++c) {
      for (int s = 0; s < window(layer); ++s) {
        const int row = s % m, column = s >= m ? dim + c : c;
        v[static_cast<std::size_t>(row * coff * dim + column)] =
            logit(layer, c, s, window(layer), indexer);
      }
    }
    return v;
  }
  /// The gate projection's rows: row r has r + 1 in every column (its content noise is
  /// (r + 1) sqrt(hidden)).
  std::vector<double> gate(int rows) const {
    std::vector<double> v;
    for (int r = 0; r < rows; ++r) v.insert(v.end(), static_cast<std::size_t>(hidden), r % 4 + 1.0);
    return v;
  }

  std::vector<RawTensor> tensors() const {
    std::vector<RawTensor> list;
    const auto names = [&](const char* ours, const char* theirs) {
      return std::string(deepseek ? ours : theirs);
    };
    for (int l = 0; l < static_cast<int>(ratios.size()); ++l) {
      const auto p = prefix(l);
      list.push_back(tensor(p + names("attn_sink", "sinks"), "F32", {heads},
                            std::vector<double>(heads, 0.5 * l)));
      if (ratios[l] == 0) continue;
      const int m = ratios[l], coff = m == 4 ? 2 : 1;
      list.push_back(tensor(p + names("compressor.ape", "compressor.position_bias"), dtype,
                            {m, coff * head_dim}, bias(l, head_dim, false)));
      list.push_back(tensor(p + names("compressor.wgate.weight", "compressor.gate_proj.weight"),
                            dtype, {coff * head_dim, hidden}, gate(coff * head_dim)));
      list.push_back(tensor(p + names("compressor.wkv.weight", "compressor.kv_proj.weight"), dtype,
                            {coff * head_dim, hidden},
                            std::vector<double>(coff * head_dim * hidden, 1.0)));
      if (m != 4) continue;
      list.push_back(tensor(p + names("indexer.compressor.ape", "compressor.indexer.position_bias"),
                            dtype, {m, 2 * index_head_dim}, bias(l, index_head_dim, true)));
      list.push_back(tensor(
          p + names("indexer.compressor.wgate.weight", "compressor.indexer.gate_proj.weight"),
          dtype, {2 * index_head_dim, hidden}, gate(2 * index_head_dim)));
    }
    return list;
  }

  nlohmann::ordered_json config() const {
    if (deepseek) {
      return {{"n_layers", ratios.size()},
              {"compress_ratios", ratios},
              {"dim", hidden},
              {"n_heads", heads},
              {"head_dim", head_dim},
              {"index_head_dim", index_head_dim},
              {"window_size", 128},
              {"index_topk", 512}};
    }
    nlohmann::ordered_json types = nlohmann::ordered_json::array();
    for (int r : ratios) {
      types.push_back(r == 0   ? "sliding_attention"
                      : r == 4 ? "compressed_sparse_attention"
                               : "heavily_compressed_attention");
    }
    return {{"num_hidden_layers", ratios.size()},
            {"layer_types", types},
            {"compress_rates",
             {{"compressed_sparse_attention", 4}, {"heavily_compressed_attention", 8}}},
            {"hidden_size", hidden},
            {"num_attention_heads", heads},
            {"head_dim", head_dim},
            {"index_head_dim", index_head_dim},
            {"sliding_window", 128},
            {"index_topk", 512}};
  }

  /// The checkpoint in `folder`: config.json and one model.safetensors, or `shards` files
  /// (tensors dealt round-robin) with model.safetensors.index.json.
  void write(const std::filesystem::path& folder, int shards = 1) const {
    std::filesystem::create_directories(folder);
    write_json(folder / "config.json", config());
    const auto all = tensors();
    if (shards == 1) return write_safetensors(folder / "model.safetensors", all);
    std::vector<std::vector<RawTensor>> parts(static_cast<std::size_t>(shards));
    nlohmann::ordered_json map = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < all.size(); ++i) {
      parts[i % parts.size()].push_back(all[i]);
      map[all[i].name] = "model-0000" + std::to_string(i % parts.size() + 1) + ".safetensors";
    }
    for (std::size_t s = 0; s < parts.size(); ++s) {
      write_safetensors(folder / ("model-0000" + std::to_string(s + 1) + ".safetensors"), parts[s]);
    }
    write_json(folder / "model.safetensors.index.json",
               {{"metadata", {{"total_size", 0}}}, {"weight_map", map}});
  }

  /// The same gates typed by hand as an architecture file: one layer per compressor, each
  /// channel's logits, split_rho 0 for CSA.
  std::string architecture() const {
    std::string text = "name = \"typed by hand\"\n";
    for (int l = 0; l < static_cast<int>(ratios.size()); ++l) {
      if (ratios[l] == 0) continue;
      const int w = window(l);
      text += "[[layer]]\nwindow = " + std::to_string(w) +
              "\nstride = " + std::to_string(ratios[l]) + "\n";
      if (ratios[l] == 4) text += "split_rho = 0\n";
      text += "channels = " + channels(l, head_dim, false);
      // The read path from the config: every layer's window, CSA's indexer and top-k.
      text += "sliding_window = 128\n";
      if (ratios[l] == 4)
        text += "top_k = 512\nindex_channels = " + channels(l, index_head_dim, true);
    }
    return text;
  }
  /// The per-channel gate of layer l's compressor (or its indexer's) as a TOML array.
  std::string channels(int l, int dim, bool indexer) const {
    const int w = window(l);
    std::string text = "[";
    for (int c = 0; c < dim; ++c) {
      text += "\"logits:";
      for (int s = 0; s < w; ++s)
        text += (s ? "," : "") + std::to_string(int(logit(l, c, s, w, indexer)));
      text += "\", ";
    }
    return text + "]\n";
  }
};

}  // namespace phasesim::test
