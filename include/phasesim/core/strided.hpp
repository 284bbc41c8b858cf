#pragma once
// An array read through a stride: a column of a row-major matrix (the per-channel softmax), or a
// GPU block's interleaved workspaces (full_vector.hpp).
#include <cstdint>

#include "phasesim/core/host_device.hpp"

namespace phasesim {

/// An array whose element i sits at data[i * stride]: stride 1 on the CPU; a GPU block
/// interleaves its threads' workspaces (stride = threads), so that a warp reading element i
/// of its threads' arrays reads consecutive addresses.
template <typename T>
struct Strided {
  T* data = nullptr;
  int stride = 1;
  PHASESIM_HD T& operator[](std::int64_t i) const { return data[i * stride]; }
  PHASESIM_HD Strided operator+(std::int64_t offset) const {
    return {data + offset * stride, stride};
  }
};

/// Column c of a row-major matrix of `cols` columns.
template <typename T>
PHASESIM_HD inline Strided<T> column_of(T* matrix, int cols, int c) {
  return {matrix + c, cols};
}

}  // namespace phasesim
