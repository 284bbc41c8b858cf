#pragma once
// Results as bytes: how the results of the items one rank of an MPI job ran travel to the
// other ranks (the parallel policy, core/parallel.hpp; no MODEL.md section). A type travels
// when it is trivially copyable (numbers, Argmax, structs of those), a std::string, a
// std::vector of a type that travels, or a struct that lists its fields in Fields<T>:
//
//   template <>
//   struct Fields<Ascent> {
//     static auto of(auto& a) { return std::tie(a.logits, a.at, a.iterations); }
//   };
//
// Both ends are the same binary, so bytes are copied as they lie in memory.
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace phasesim {

/// Specialize with `static auto of(auto& value)` returning std::tie of every field, so that
/// a struct with vectors or strings can be a result of parallel_map.
template <typename T>
struct Fields;

namespace detail {

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

template <typename T>
concept HasFields = requires(T& value) {
  Fields<T>::of(value);
};

// Copied as it lies in memory: no pointers, which mean nothing in another process.
template <typename T>
concept Plain = std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>;

}  // namespace detail

/// Appends values to a byte string.
class ByteWriter {
 public:
  template <typename T>
  void put(const T& value) {
    if constexpr (detail::Plain<T>) {
      bytes_.append(reinterpret_cast<const char*>(&value), sizeof(T));
    } else if constexpr (std::is_same_v<T, std::string>) {
      put(static_cast<std::uint64_t>(value.size()));
      bytes_.append(value);
    } else if constexpr (detail::IsVector<T>::value) {
      put(static_cast<std::uint64_t>(value.size()));
      put_range(value.data(), value.size());
    } else {
      static_assert(detail::HasFields<T>,
                    "a result that crosses ranks must be trivially copyable, a string, a vector "
                    "or a struct with a Fields<T> specialization (phasesim/core/bytes.hpp)");
      std::apply([&](const auto&... field) { (put(field), ...); }, Fields<T>::of(value));
    }
  }

  /// `count` values starting at `first`.
  template <typename T>
  void put_range(const T* first, std::size_t count) {
    if constexpr (detail::Plain<T>) {
      bytes_.append(reinterpret_cast<const char*>(first), count * sizeof(T));
    } else {
      for (std::size_t i = 0; i < count; ++i) put(first[i]);
    }
  }

  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

/// Reads back, in the same order, what a ByteWriter wrote. Throws std::runtime_error when
/// the bytes run out (they came from a different build).
class ByteReader {
 public:
  explicit ByteReader(const std::string& bytes) : bytes_(bytes) {}

  template <typename T>
  void get(T& value) {
    if constexpr (detail::Plain<T>) {
      std::memcpy(static_cast<void*>(&value), take(sizeof(T)), sizeof(T));
    } else if constexpr (std::is_same_v<T, std::string>) {
      const auto size = length();
      value.assign(take(size), size);
    } else if constexpr (detail::IsVector<T>::value) {
      value.resize(length());
      get_range(value.data(), value.size());
    } else {
      std::apply([&](auto&... field) { (get(field), ...); }, Fields<T>::of(value));
    }
  }

  template <typename T>
  T get() {
    T value{};
    get(value);
    return value;
  }

  template <typename T>
  void get_range(T* first, std::size_t count) {
    if constexpr (detail::Plain<T>) {
      if (count > 0)
        std::memcpy(static_cast<void*>(first), take(count * sizeof(T)), count * sizeof(T));
    } else {
      for (std::size_t i = 0; i < count; ++i) get(first[i]);
    }
  }

  bool done() const { return offset_ == bytes_.size(); }

 private:
  // A length from the stream as size_t, which has 32 bits in wasm: a corrupt length fails
  // there instead of wrapping into a plausible one.
  std::size_t length() {
    const auto n = get<std::uint64_t>();
    if constexpr (sizeof(std::size_t) < sizeof(std::uint64_t)) {
      if (n > std::numeric_limits<std::size_t>::max()) {
        throw std::runtime_error("corrupt result bytes");
      }
    }
    return static_cast<std::size_t>(n);
  }

  const char* take(std::size_t size) {
    if (size > bytes_.size() - offset_) throw std::runtime_error("truncated result bytes");
    const char* at = bytes_.data() + offset_;
    offset_ += size;
    return at;
  }

  const std::string& bytes_;
  std::size_t offset_ = 0;
};

}  // namespace phasesim
