#pragma once
// The full engine's per-trial scan on the CPU (MODEL.md section 4): scan_full_vector of
// full_vector.hpp with FloatOps's key rows and entry logits computed in SIMD (Google Highway,
// runtime dispatch), operation for operation, so that it returns the bits that
// scan_full_vector<FloatOps> (the CUDA kernel's code) returns.
#include <cstdint>

#include "phasesim/engines/full_vector.hpp"
#include "phasesim/engines/full_vector_read.hpp"

namespace phasesim::engines {

/// scan_full_vector<FloatOps>(head, seed, trial, head_index, needle, begin, end, ws) in SIMD.
/// The workspace has stride 1 and rows of FloatOps::row_size(head.dim) floats.
niah::Argmax full_vector_argmax_simd(const FullVectorHead& head, std::uint64_t seed,
                                     std::uint32_t trial, std::uint32_t head_index,
                                     std::int64_t needle, std::int64_t begin, std::int64_t end,
                                     const ScanWorkspace<float>& ws);

/// scan_read_entries<FloatOps>(...) in SIMD: the read path's stage-1 scan (full_vector_read.hpp).
void full_vector_read_simd(const FullVectorHead& head, const FullVectorRead& read,
                           std::uint64_t seed, std::uint32_t trial, std::uint32_t head_index,
                           ReadQueries scales, std::int64_t begin, std::int64_t end,
                           const ScanWorkspace<float>& ws, const ScanWorkspace<float>& index_ws,
                           float* attention, double* score);

/// FloatOps::entry_logit in SIMD: one entry's pooling, RMS norm and dot product (its own entry
/// point for the pooling micro-benchmark).
float full_vector_entry_logit_simd(const FullVectorHead& head, const ScanWorkspace<float>& ws,
                                   EntryWeights<float> weights, std::int64_t first);

}  // namespace phasesim::engines
