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

// Item i is (trial i / scanned_count, head scanned[i % scanned_count]).
__global__ void argmax_kernel(const FullVectorHead* heads, const int* scanned, int scanned_count,
                              niah::NeedlePlan needles, std::uint64_t seed,
                              KernelWorkspace workspace, niah::Argmax* out) {
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

std::vector<niah::Argmax> gpu_argmaxes(const niah::NiahModel& model,
                                       const niah::NeedlePlan& needles) {
  const auto list = full_vector_heads(model);
  auto heads = list.heads;
  // Every head's gate, then every head's channel groups' weights, in one device array; the
  // groups' channel ends in another.
  std::vector<double> gates;
  std::vector<int> ends;
  for (const auto& h : heads) gates.insert(gates.end(), h.gate, h.gate + h.geometry.window);
  for (std::size_t h = 0; h < heads.size(); ++h) {
    gates.insert(gates.end(), list.group_gates[h].begin(), list.group_gates[h].end());
    ends.insert(ends.end(), list.group_ends[h].begin(), list.group_ends[h].end());
  }
  const auto device_gates =
      device_array<double>(static_cast<std::int64_t>(gates.size()), gates.data());
  const auto device_ends = device_array<int>(static_cast<std::int64_t>(ends.size()), ends.data());
  // Each head has its own geometry; every thread's workspace serves the largest window.
  const int window = model.max_window();
  std::int64_t entries = 0;  // the most entries of any head
  std::size_t offset = 0;
  for (auto& head : heads) {
    head.gate = device_gates.get() + offset;
    offset += static_cast<std::size_t>(head.geometry.window);
    entries = std::max(entries, head.entries);
  }
  for (std::size_t h = 0, end = 0; h < heads.size(); ++h) {
    heads[h].group_gates = device_gates.get() + offset;
    heads[h].group_ends = device_ends.get() + end;
    offset += list.group_gates[h].size();
    end += list.group_ends[h].size();
  }
  const auto device_heads = device_array<FullVectorHead>(model.heads(), heads.data());
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
  const std::int64_t bytes_per_thread =
      reals * std::int64_t{sizeof(float)} + doubles * std::int64_t{sizeof(double)};
  const std::int64_t items = needles.trials() * scanned_count;
  const std::int64_t blocks =
      std::clamp<std::int64_t>(kWorkspaceBytes / (threads * bytes_per_thread), 1, items);
  const auto device_reals = device_array<float>(blocks * threads * reals);
  const auto device_doubles = device_array<double>(blocks * threads * doubles);
  const auto out = device_array<niah::Argmax>(items);
  const KernelWorkspace workspace{
      device_reals.get(), device_doubles.get(), reals, doubles, window, row, list.needs()};
  argmax_kernel<<<static_cast<unsigned>(blocks), threads>>>(
      device_heads.get(), device_scanned.get(), scanned_count, needles, model.seed, workspace,
      out.get());
  check(cudaGetLastError(), "the argmax kernel's launch");
  std::vector<niah::Argmax> argmaxes(static_cast<std::size_t>(items));
  check(cudaMemcpy(argmaxes.data(), out.get(), argmaxes.size() * sizeof(niah::Argmax),
                   cudaMemcpyDeviceToHost),
        "the argmax kernel");
  return argmaxes;
}

}  // namespace phasesim::engines
