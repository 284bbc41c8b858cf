// The gpu engine's kernel and launcher. One block per (trial, head), looping over them when
// the workspace cap allows fewer blocks: its threads split the N_c entries into consecutive
// ranges, each scanned by full_vector_argmax (the CPU engine's code) in the thread's own
// workspace, and the block merges their argmaxes with the sequential scan's tie rule.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "full_vector_heads.hpp"
#include "gpu_engine.hpp"
#include "phasesim/engines/gpu.hpp"

namespace phasesim {
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

// `window` is the largest window of any head: every thread's workspace serves every head.
__global__ void argmax_kernel(const FullVectorHead* heads, int head_count, NeedlePlan needles,
                              std::uint64_t seed, int window, double* workspace,
                              std::int64_t workspace_size, Argmax* out) {
  __shared__ std::int64_t entries[kMaxThreads];
  __shared__ double logits[kMaxThreads];
  const int t = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);  // a power of two
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * threads + t;
  const auto ws =
      FullVectorWorkspace::carve(workspace + thread * workspace_size, window, heads[0].dim);
  for (std::int64_t item = blockIdx.x; item < needles.trials() * head_count; item += gridDim.x) {
    const auto trial = static_cast<std::uint32_t>(item / head_count);
    const auto h = static_cast<int>(item % head_count);
    const FullVectorHead& head = heads[h];
    const std::int64_t begin = head.entries * t / threads;
    const std::int64_t end = head.entries * (t + 1) / threads;
    Argmax best;
    if (begin < end) {
      best = full_vector_argmax(head, seed, trial, static_cast<std::uint32_t>(h),
                                needles.position(seed, trial), begin, end, ws);
    }
    entries[t] = best.entry;
    logits[t] = best.logit;
    __syncthreads();
    for (int half = threads / 2; half > 0; half /= 2) {
      if (t < half) {
        Argmax mine{entries[t], logits[t]};
        mine.merge({entries[t + half], logits[t + half]});
        entries[t] = mine.entry;
        logits[t] = mine.logit;
      }
      __syncthreads();
    }
    if (t == 0) out[item] = {entries[0], logits[0]};
    __syncthreads();  // the next item reuses the shared arrays
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

std::vector<Argmax> engines::gpu_argmaxes(const NiahModel& model, const NeedlePlan& needles) {
  const int W = model.max_window();
  std::vector<double> gates;  // head h's weights start at starts[h]
  std::vector<std::size_t> starts;
  std::int64_t entries = 0;  // the most entries of any head
  for (int h = 0; h < model.heads(); ++h) {
    const auto& weights = model.gates[static_cast<std::size_t>(h)].weights;
    starts.push_back(gates.size());
    gates.insert(gates.end(), weights.begin(), weights.end());
    entries = std::max(entries, model.entries(h));
  }
  const auto device_gates =
      device_array<double>(static_cast<std::int64_t>(gates.size()), gates.data());
  auto heads = full_vector_heads(model);
  for (std::size_t h = 0; h < heads.size(); ++h) heads[h].gate = device_gates.get() + starts[h];
  const auto device_heads = device_array<FullVectorHead>(model.heads(), heads.data());

  // At least 16 entries a thread, so the W - S positions each range regenerates stay cheap.
  int threads = 32;
  while (threads < kMaxThreads && entries >= 32 * threads) threads *= 2;
  const std::int64_t size = FullVectorWorkspace::size(W, *model.dim);
  const std::int64_t items = needles.trials() * model.heads();
  const std::int64_t blocks = std::clamp<std::int64_t>(
      kWorkspaceBytes / (threads * size * std::int64_t{sizeof(double)}), 1, items);
  const auto workspace = device_array<double>(blocks * threads * size);
  const auto out = device_array<Argmax>(items);
  argmax_kernel<<<static_cast<unsigned>(blocks), threads>>>(
      device_heads.get(), model.heads(), needles, model.seed, W, workspace.get(), size, out.get());
  check(cudaGetLastError(), "the argmax kernel's launch");
  std::vector<Argmax> argmaxes(static_cast<std::size_t>(items));
  check(cudaMemcpy(argmaxes.data(), out.get(), argmaxes.size() * sizeof(Argmax),
                   cudaMemcpyDeviceToHost),
        "the argmax kernel");
  return argmaxes;
}

}  // namespace phasesim
