#include "phasesim/training/ziggurat.hpp"

#include <cmath>

namespace phasesim {
namespace {

constexpr int kLayers = 128;
constexpr double kTailStart = 3.442619855899;       // R: where the tail begins
constexpr double kLayerArea = 9.91256303526217e-3;  // V: the area of every layer

// x[i]: the right edge of layer i (x[0] = V / f(R) for the base layer with its tail, x[1] = R,
// x[128] = 0); ratio[i] = x[i + 1] / x[i]: a uniform below it falls inside the rectangle.
struct Table {
  double x[kLayers + 1];
  double ratio[kLayers];

  Table() {
    double f = std::exp(-0.5 * kTailStart * kTailStart);
    x[0] = kLayerArea / f;
    x[1] = kTailStart;
    x[kLayers] = 0;
    for (int i = 2; i < kLayers; ++i) {
      x[i] = std::sqrt(-2 * std::log(kLayerArea / x[i - 1] + f));
      f = std::exp(-0.5 * x[i] * x[i]);
    }
    for (int i = 0; i < kLayers; ++i) ratio[i] = x[i + 1] / x[i];
  }
};

// The 32-bit words of blocks (index, 0), (index, 1), ... in turn.
class Words {
 public:
  Words(const RandomStream& stream, std::uint32_t index) : stream_(stream), index_(index) {}
  std::uint32_t next() {
    if (lane_ == 4) {
      bits_ = stream_.bits(index_, block_++);
      lane_ = 0;
    }
    return bits_[lane_++];
  }
  /// Uniform in (0, 1).
  double uniform() { return (next() + 0.5) * 0x1p-32; }

 private:
  const RandomStream& stream_;
  std::uint32_t index_;
  std::uint32_t block_ = 0;
  int lane_ = 4;
  RandomStream::Philox::ctr_type bits_{};
};

// Beyond R (Marsaglia 1964): x = R - log(U1) / R, accepted when -2 log(U2) > (x - R)^2.
double tail(Words& words, bool negative) {
  for (;;) {
    const double x = std::log(words.uniform()) / kTailStart;
    const double y = std::log(words.uniform());
    if (-2 * y >= x * x) return negative ? x - kTailStart : kTailStart - x;
  }
}

double normal(Words& words, const Table& table) {
  for (;;) {
    const std::uint32_t word = words.next();
    const int layer = static_cast<int>(word & (kLayers - 1));
    // The upper 25 bits as a signed uniform on a grid symmetric about 0, in (-1, 1).
    const double u = (static_cast<std::int32_t>(word & ~std::uint32_t{kLayers - 1}) + 64) * 0x1p-31;
    if (std::fabs(u) < table.ratio[layer]) return u * table.x[layer];
    if (layer == 0) return tail(words, u < 0);
    // In the wedge between layers: accept with probability (f(x) - f(x[i+1])) / (f(x[i]) - ...).
    const double x = u * table.x[layer];
    const double f0 = std::exp(-0.5 * (table.x[layer] * table.x[layer] - x * x));
    const double f1 = std::exp(-0.5 * (table.x[layer + 1] * table.x[layer + 1] - x * x));
    if (f1 + words.uniform() * (f0 - f1) < 1.0) return x;
  }
}

}  // namespace

void ziggurat_normals(const RandomStream& stream, std::uint32_t index, double scale, double* x,
                      int n) {
  static const Table table;  // immutable after its first use
  Words words(stream, index);
  for (int i = 0; i < n; ++i) x[i] = scale * normal(words, table);
}

}  // namespace phasesim
