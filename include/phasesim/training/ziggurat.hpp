#pragma once
// Normal numbers fast enough for the training lab, from the project's Philox streams
// (core/random.hpp). A context holds L x d embeddings (65,536 normals at L = 2048, d = 32),
// so drawing them is most of a training step: Box-Muller (RandomStream::normal_pair) costs a
// logarithm, a sine and a cosine per pair, the ziggurat one 32-bit Philox word and a table
// lookup for 98% of the normals.
//
// The ziggurat of Marsaglia and Tsang (2000) with 128 layers, as in Doornik (2005, "An
// improved ziggurat method"): the layer comes from the low 7 bits of the word and the
// uniform from the other 25, so the two are independent. A vector draws the words of blocks
// (index, 0), (index, 1), ... of its stream in turn, four per block; the few draws that miss
// the rectangle use the next words, so a vector is still a pure function of its key.
#include <cstdint>

#include "phasesim/core/random.hpp"

namespace phasesim {

/// x[0..n) = n independent N(0, 1) numbers, times `scale`, from `stream` at `index`.
void ziggurat_normals(const RandomStream& stream, std::uint32_t index, double scale, double* x,
                      int n);

}  // namespace phasesim
