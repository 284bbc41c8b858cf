// The analytic engine: P_h(phi) of the standardized channel by quadrature for every head and
// phase (theory/channel); the report combines them exactly. Under --dim it is the large-d
// limit of the full-vector model, beta = sqrt(d / (1 + sigma_q^2)).
#include "phasesim/channel/phase_channel.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/engines/engine.hpp"

namespace phasesim::engines {
namespace {

constexpr std::int64_t kMaxClasses = std::int64_t{1} << 20;

class AnalyticEngine final : public Engine {
 public:
  std::string name() const override { return "analytic"; }
  bool monte_carlo() const override { return false; }

  void check(const NiahModel& model) const override {
    require(model.content_noise == 0,
            "invalid --content-noise " + format_number(model.content_noise) +
                " with --engine analytic (the analytic channel has no content noise; use "
                "--engine fast)");
    // The report combines heads per class of needle positions modulo the strides' lcm:
    // bound that work, and its memory, before any.
    const auto classes = stride_period(model.geometries, model.context);
    require(classes <= kMaxClasses,
            "invalid --engine analytic (the heads' strides give " + std::to_string(classes) +
                " classes of needle positions to combine the heads over, more than " +
                std::to_string(kMaxClasses) + "; use --engine fast)");
  }

  std::string approximation(const NiahModel& model) const override {
    return model.full_vector() ? "the large-d limit of the full-vector model" : "";
  }

  std::vector<std::string> paths(const NiahModel& model) const override {
    return std::vector<std::string>(static_cast<std::size_t>(model.heads()), "quadrature");
  }

  EngineOutput run(const NiahRun& run, const Parallel&) const override {
    const auto& m = run.model;
    EngineOutput output;
    for (int h = 0; h < m.heads(); ++h) {
      output.phase_success.push_back(phase_success(
          m.geometry(h), m.gates[static_cast<std::size_t>(h)], m.beta_effective(), m.entries(h)));
    }
    return output;
  }
};

}  // namespace

std::unique_ptr<Engine> make_analytic_engine() { return std::make_unique<AnalyticEngine>(); }

}  // namespace phasesim::engines
