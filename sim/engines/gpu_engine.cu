// The gpu engine's kernel and launcher. One block per (trial, scanned head: one query head a
// cache without query noise), looping over them when the workspace cap allows fewer blocks:
// its threads split the N_c entries into consecutive ranges, each scanned by
// scan_full_vector<FloatOps> (the float block formulas the CPU engine's SIMD code computes bit
// for bit) in the thread's own workspace, and the block merges their argmaxes with the
// sequential scan's tie rule. The block's workspaces are interleaved (element i of thread t at
// i * threads + t), so the threads of a warp, which touch the same element at the same time,
// read and write consecutive floats.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "full_vector_heads.hpp"
#include "gpu_engine.hpp"
#include "phasesim/core/contract.hpp"
#include "phasesim/engines/gpu.hpp"

namespace phasesim::engines {
namespace {

constexpr int kMaxThreads = 128;
constexpr std::int64_t kWorkspaceBytes = std::int64_t{1} << 30;  // caps the blocks in flight

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA error in ") + what + ": " +
                             cudaGetErrorString(status));
  }
}

struct Free {
  void operator()(void* memory) const { cudaFree(memory); }
};
template <typename T>
using DeviceArray = std::unique_ptr<T[], Free>;

template <typename T>
DeviceArray<T> device_array(std::int64_t count, const T* from = nullptr) {
  void* memory = nullptr;
  const auto bytes = static_cast<std::size_t>(count) * sizeof(T);
  check(cudaMalloc(&memory, bytes), "cudaMalloc");
  DeviceArray<T> array(static_cast<T*>(memory));
  if (from) check(cudaMemcpy(memory, from, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  return array;
}

/// One thread's workspace inside its block's interleaved slice of the workspace arrays.
struct KernelWorkspace {
  float* reals;
  double* doubles;
  std::int64_t reals_per_thread, doubles_per_thread;
  int window, row;  ///< window: the largest of any head (a smaller one uses the first rows)
  ScanNeeds needs;

  __device__ ScanWorkspace<float> carve(int threads, int t) const {
    const std::int64_t block = blockIdx.x;
    return ScanWorkspace<float>::carve(reals + block * threads * reals_per_thread + t,
                                       doubles + block * threads * doubles_per_thread + t, window,
                                       row, needs, threads);
  }
};

/// The read path's (MODEL.md section 10): the indexers' workspaces, and per block every
/// entry's attention logit and selection score (full_vector_read.hpp). Null without one.
struct ReadWorkspace {
  KernelWorkspace index;
  const FullVectorRead* reads = nullptr;  ///< per head
  float* attention = nullptr;             ///< blocks x entries
  double* score = nullptr;
  std::int64_t entries = 0;          ///< the most of any head
  std::uint8_t* selected = nullptr;  ///< per item: stage 1 passed the needle
};

// One item of a head that reads beyond section 4: the threads scan ranges of the entries into
// the block's arrays, then thread 0 selects and reads (finish_read), as the CPU engine does.
__device__ niah::Argmax read_item(const FullVectorHead& head, const ReadWorkspace& read_ws, int h,
                                  std::uint32_t trial, std::int64_t needle, std::uint64_t seed,
                                  const ScanWorkspace<float>& ws, int threads, int t,
                                  std::uint8_t& selected) {
  const auto& read = read_ws.reads[h];
  const auto index_ws = read_ws.index.carve(threads, t);
  const auto index = static_cast<std::uint32_t>(h);
  const auto scales = prepare_read<FloatOps>(head, read, seed, trial, index, needle, ws, index_ws);
  float* attention = read_ws.attention + static_cast<std::int64_t>(blockIdx.x) * read_ws.entries;
  double* score = read_ws.score + static_cast<std::int64_t>(blockIdx.x) * read_ws.entries;
  const std::int64_t begin = head.entries * t / threads;
  const std::int64_t end = head.entries * (t + 1) / threads;
  if (begin < end) {
    scan_read_entries<FloatOps>(head, read, seed, trial, index, scales, begin, end, ws, index_ws,
                                attention, score);
  }
  __syncthreads();
  niah::Argmax best;
  if (t == 0) {
    const auto out =
        finish_read<FloatOps>(head, read, seed, trial, index, needle, attention, score, ws);
    best = out.best;
    selected = out.selected ? 1 : 0;
  }
  return best;
}

// Item i is (trial i / scanned_count, head scanned[i % scanned_count]).
__global__ void argmax_kernel(const FullVectorHead* heads, const int* scanned, int scanned_count,
                              niah::NeedlePlan needles, std::uint64_t seed,
                              KernelWorkspace workspace, ReadWorkspace read_ws, niah::Argmax* out) {
  // Plain arrays: __shared__ memory cannot hold a type with default member initializers.
  __shared__ std::int64_t entries[kMaxThreads];
  __shared__ double logits[kMaxThreads];
  __shared__ double runner_ups[kMaxThreads];
  const int t = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);  // a power of two
  PHASESIM_ASSERT(threads <= kMaxThreads);           // the shared arrays hold one per thread
  const auto ws = workspace.carve(threads, t);
  for (std::int64_t item = blockIdx.x; item < needles.trials() * scanned_count; item += gridDim.x) {
    const auto trial = static_cast<std::uint32_t>(item / scanned_count);
    const int h = scanned[item % scanned_count];
    const FullVectorHead& head = heads[h];
    if (read_ws.reads && read_ws.reads[h].on) {
      std::uint8_t selected = 0;
      const auto best = read_item(head, read_ws, h, trial, needles.position(seed, trial), seed, ws,
                                  threads, t, selected);
      if (t == 0) {
        out[item] = best;
        read_ws.selected[item] = selected;
      }
      __syncthreads();  // the next item reuses the block's arrays
      continue;
    }
    const std::int64_t begin = head.entries * t / threads;
    const std::int64_t end = head.entries * (t + 1) / threads;
    niah::Argmax best;
    if (begin < end) {
      best = scan_full_vector<FloatOps>(head, seed, trial, static_cast<std::uint32_t>(h),
                                        needles.position(seed, trial), begin, end, ws);
    }
    entries[t] = best.entry;
    logits[t] = best.logit;
    runner_ups[t] = best.runner_up;
    __syncthreads();
    for (int half = threads / 2; half > 0; half /= 2) {
      if (t < half) {
        niah::Argmax mine{entries[t], logits[t], runner_ups[t]};
        mine.merge({entries[t + half], logits[t + half], runner_ups[t + half]});
        entries[t] = mine.entry;
        logits[t] = mine.logit;
        runner_ups[t] = mine.runner_up;
      }
      __syncthreads();
    }
    if (t == 0) out[item] = {entries[0], logits[0], runner_ups[0]};
    __syncthreads();  // the next item reuses the shared array
  }
}

}  // namespace

std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    return std::string("no CUDA device was found (") + cudaGetErrorString(status) + ")";
  }
  return count > 0 ? std::string() : "no CUDA device was found";
}

std::string gpu_device_name() {
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
  const double gib = static_cast<double>(p.totalGlobalMem) / (1 << 30);
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs, " + std::to_string(static_cast<int>(gib)) +
         " GiB)";
}

namespace {

// Heads' gates and channel groups in device arrays, the heads' pointers moved onto them: every
// head's gate, then every head's groups' weights, in one array; the groups' ends in another.
struct DeviceGates {
  DeviceArray<double> gates;
  DeviceArray<int> ends;
};

DeviceGates upload_gates(const std::vector<FullVectorHead*>& heads,
                         const std::vector<std::vector<double>>& group_gates,
                         const std::vector<std::vector<int>>& group_ends) {
  std::vector<double> gates;
  std::vector<int> ends;
  for (const auto* h : heads) gates.insert(gates.end(), h->gate, h->gate + h->geometry.window);
  for (std::size_t h = 0; h < heads.size(); ++h) {
    gates.insert(gates.end(), group_gates[h].begin(), group_gates[h].end());
    ends.insert(ends.end(), group_ends[h].begin(), group_ends[h].end());
  }
  DeviceGates device{device_array<double>(static_cast<std::int64_t>(gates.size()), gates.data()),
                     device_array<int>(static_cast<std::int64_t>(ends.size()), ends.data())};
  std::size_t offset = 0;
  for (auto* head : heads) {
    head->gate = device.gates.get() + offset;
    offset += static_cast<std::size_t>(head->geometry.window);
  }
  for (std::size_t h = 0, end = 0; h < heads.size(); ++h) {
    heads[h]->group_gates = device.gates.get() + offset;
    heads[h]->group_ends = device.ends.get() + end;
    offset += group_gates[h].size();
    end += group_ends[h].size();
  }
  return device;
}

// The read path's device memory (MODEL.md section 10): the indexers (their gates uploaded),
// their workspaces, each block's arrays of every entry and stage 1's outcome per item.
struct ReadArrays {
  DeviceGates gates;
  DeviceArray<FullVectorRead> reads;
  DeviceArray<float> reals, attention;
  DeviceArray<double> doubles, score;
  DeviceArray<std::uint8_t> selected;
  ReadWorkspace workspace;
};

ReadArrays read_arrays(const FullVectorHeads& list, std::int64_t blocks, int threads,
                       std::int64_t index_reals, std::int64_t doubles, int window, int row,
                       std::int64_t entries, std::int64_t items) {
  ReadArrays a;
  if (!list.reads_beyond()) return a;
  auto reads = list.reads;
  std::vector<FullVectorHead*> indexers;
  for (auto& r : reads) indexers.push_back(&r.index);
  a.gates = upload_gates(indexers, list.index_group_gates, list.index_group_ends);
  a.reads = device_array<FullVectorRead>(static_cast<std::int64_t>(reads.size()), reads.data());
  a.reals = device_array<float>(blocks * threads * index_reals);
  a.doubles = device_array<double>(blocks * threads * doubles);
  a.attention = device_array<float>(blocks * entries);
  a.score = device_array<double>(blocks * entries);
  a.selected = device_array<std::uint8_t>(items);
  a.workspace = {
      {a.reals.get(), a.doubles.get(), index_reals, doubles, window, row, list.index_needs()},
      a.reads.get(),
      a.attention.get(),
      a.score.get(),
      entries,
      a.selected.get()};
  return a;
}

}  // namespace

std::vector<niah::Argmax> gpu_argmaxes(const niah::NiahModel& model,
                                       const niah::NeedlePlan& needles,
                                       std::vector<std::uint8_t>* selected) {
  const auto list = full_vector_heads(model);
  auto heads = list.heads;
  std::vector<FullVectorHead*> pointers;
  for (auto& h : heads) pointers.push_back(&h);
  const auto device_gates = upload_gates(pointers, list.group_gates, list.group_ends);
  const auto device_heads = device_array<FullVectorHead>(model.heads(), heads.data());
  // Each head has its own geometry; every thread's workspace serves the largest window.
  const int window = model.max_window();
  std::int64_t entries = 0;  // the most entries of any head
  for (const auto& head : heads) entries = std::max(entries, head.entries);
  // Query heads that attend alike repeat their cache's first one: one scan a cache.
  const auto scanned = model.scanned_heads();
  const auto scanned_count = static_cast<int>(scanned.size());
  const auto device_scanned = device_array<int>(scanned_count, scanned.data());

  // At least 16 entries a thread, so the W - S positions each range regenerates stay cheap.
  int threads = 32;
  while (threads < kMaxThreads && entries >= 32 * threads) threads *= 2;
  const int row = FloatOps::row_size(*model.dim);
  const std::int64_t reals = ScanWorkspace<float>::reals(window, row, list.needs());
  const std::int64_t doubles = ScanWorkspace<float>::doubles(window);
  const bool beyond = list.reads_beyond();
  const std::int64_t index_reals =
      beyond ? ScanWorkspace<float>::reals(window, row, list.index_needs()) : 0;
  const std::int64_t bytes_per_thread = (reals + index_reals) * std::int64_t{sizeof(float)} +
                                        (beyond ? 2 : 1) * doubles * std::int64_t{sizeof(double)};
  // The read path keeps every entry's logit and score per block.
  const std::int64_t bytes_per_block =
      threads * bytes_per_thread + (beyond ? entries * std::int64_t{12} : 0);
  const std::int64_t items = needles.trials() * scanned_count;
  const std::int64_t blocks = std::clamp<std::int64_t>(kWorkspaceBytes / bytes_per_block, 1, items);
  const auto device_reals = device_array<float>(blocks * threads * reals);
  const auto device_doubles = device_array<double>(blocks * threads * doubles);
  const auto out = device_array<niah::Argmax>(items);
  const KernelWorkspace workspace{
      device_reals.get(), device_doubles.get(), reals, doubles, window, row, list.needs()};
  const auto read =
      read_arrays(list, blocks, threads, index_reals, doubles, window, row, entries, items);
  argmax_kernel<<<static_cast<unsigned>(blocks), threads>>>(
      device_heads.get(), device_scanned.get(), scanned_count, needles, model.seed, workspace,
      read.workspace, out.get());
  check(cudaGetLastError(), "the argmax kernel's launch");
  std::vector<niah::Argmax> argmaxes(static_cast<std::size_t>(items));
  check(cudaMemcpy(argmaxes.data(), out.get(), argmaxes.size() * sizeof(niah::Argmax),
                   cudaMemcpyDeviceToHost),
        "the argmax kernel");
  if (selected && beyond) {
    selected->resize(static_cast<std::size_t>(items));
    check(
        cudaMemcpy(selected->data(), read.selected.get(), selected->size(), cudaMemcpyDeviceToHost),
        "the read path's stage 1");
  }
  return argmaxes;
}

}  // namespace phasesim::engines
