// channel and coverage: the model's questions, answered exactly.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "bind.hpp"
#include "call.hpp"
#include "phasesim/channel/channel.hpp"
#include "phasesim/model/coverage.hpp"
#include "phasesim/niah/architecture.hpp"

namespace phasesim::python {
namespace {

py::object channel(double beta, std::int64_t entries, const std::vector<double>& u) {
  return run_command("channel", false,
                     [&](Watch&) { return channel::channel_document(beta, u, entries); });
}

py::object coverage(std::optional<int> window, std::optional<int> stride,
                    std::optional<std::string> gates, std::optional<std::string> arch) {
  return run_command("coverage", false, [&](Watch&) {
    if (arch) {
      check_excludes(true, window.has_value(), "--window");
      check_excludes(true, stride.has_value(), "--stride");
      check_excludes(true, gates.has_value(), "--gates");
      const auto architecture = niah::load_architecture(*arch);
      niah::check_coverage_work(*arch, architecture);
      return niah::architecture_coverage_document(*arch, architecture);
    }
    const Geometry geometry{window.value_or(8), stride.value_or(4)};
    return coverage_document(geometry, coverage_gate(geometry, gates.value_or("last")));
  });
}

}  // namespace

void add_model_commands(py::module_& m) {
  using namespace pybind11::literals;
  m.def("channel", &channel, py::kw_only(), "beta"_a = 5.0, "entries"_a = 32768,
        "u"_a = std::vector<double>{1.0},
        R"(P(needle retrieved) in the standardized channel, by adaptive quadrature.

As `phasesim channel`: beta >= 0 is the signal strength, entries the entries in all
(the needle's m = len(u) entries included), u the normalized weights of the needle's
entries. Returns the `channel` JSON document as a dict (p_success, chance, ...).)");
  m.def("coverage", &coverage, py::kw_only(), "window"_a = py::none(), "stride"_a = py::none(),
        "gates"_a = py::none(), "arch"_a = py::none(),
        R"(Per-phase slots, multiplicity and coverage of a gate, or of every head of an
architecture.

As `phasesim coverage`: window W (default 8), stride S (default 4) and gates (default
"last"; the gate forms of the CLI), or arch (an architecture file or preset, which
replaces window, stride and gates). Returns the `coverage` document as a dict; to_frame
gives one row per phase.)");
}

}  // namespace phasesim::python
