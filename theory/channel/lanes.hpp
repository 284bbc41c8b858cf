#pragma once
// Two doubles as the two lanes of one vector (GCC/clang vector extensions: SSE2 natively,
// SIMD128 in the page), each lane the scalar multiplies and adds in the same order, so the
// scalar bits: the normal table's two polynomials and the success table's Chebyshev chains.

namespace phasesim::channel::detail {

using Pair = double __attribute__((vector_size(2 * sizeof(double))));

}  // namespace phasesim::channel::detail
