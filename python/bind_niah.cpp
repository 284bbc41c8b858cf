// niah and compare: the NIAH protocol on any engine, one architecture or several on the
// same needles.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bind.hpp"
#include "call.hpp"
#include "phasesim/compare/compare.hpp"
#include "phasesim/engines/plan.hpp"

namespace phasesim::python {
namespace {

// The options niah and compare share (the CLI's RunOptions): the spec's parameterization
// (beta and dim only when given), context, groups, prompts, combine and seed; the engine and
// the threads.
struct RunArguments {
  niah::NiahSpec spec;
  std::string engine = "fast";
  int threads = 0;
};

RunArguments run_arguments(std::optional<double> beta, std::optional<int> dim, double query_noise,
                           double content_noise, bool rms_norm, std::int64_t context, int groups,
                           int prompts, std::string combine, std::string engine, std::uint64_t seed,
                           int threads) {
  RunArguments a{{}, std::move(engine), threads};
  auto& s = a.spec;
  s.beta = beta;
  s.dim = dim;
  s.query_noise = query_noise;
  s.content_noise = content_noise;
  s.rms_norm = rms_norm;
  s.context = context;
  s.groups = groups;
  s.prompts = prompts;
  s.combine = std::move(combine);
  s.seed = seed;
  return a;
}

struct NiahArguments {
  std::optional<int> window, stride, heads;
  std::optional<std::string> gates, arch;
  std::optional<double> split_rho;
  std::optional<int> knockout;
  RunArguments run;
  bool progress = false;

  // As the CLI's callback: the engine, --threads, then the spec (loading --arch).
  niah::NiahSpec spec() const {
    auto s = run.spec;
    check_excludes(arch.has_value(), window.has_value(), "--window");
    check_excludes(arch.has_value(), stride.has_value(), "--stride");
    check_excludes(arch.has_value(), heads.has_value(), "--heads");
    check_excludes(arch.has_value(), gates.has_value(), "--gates");
    check_excludes(arch.has_value(), split_rho.has_value(), "--split-rho");
    s.geometry.window = window.value_or(s.geometry.window);
    s.geometry.stride = stride.value_or(s.geometry.stride);
    s.gates = gates.value_or(s.gates);
    s.split_rho = split_rho.value_or(s.split_rho);
    s.heads = heads;
    s.knockout = knockout;
    if (arch) s.architecture = niah::load_architecture(*arch);
    return s;
  }
};

py::object niah(const NiahArguments& a) {
  return run_command("niah", a.progress, [&](Watch& watch) {
    const auto registry = engines::builtin_engines();
    const auto& engine = registry.find(a.run.engine);
    check_threads(a.run.threads);
    const Parallel threads{a.run.threads};
    const auto plan = engines::prepare(a.spec(), engine, threads.team());
    const auto result = engines::run_niah(plan, watch.parallel(threads));
    return engines::niah_plan_document(plan, result);
  });
}

py::object compare(const std::vector<std::string>& architectures, const RunArguments& a) {
  return run_command("compare", false, [&](Watch& watch) {
    compare::CompareSpec spec{{}, a.spec};
    for (const auto& file : architectures)
      spec.architectures.push_back(niah::load_architecture(file));
    const auto registry = engines::builtin_engines();
    const auto& engine = registry.find(a.engine);
    check_threads(a.threads);
    const Parallel threads{a.threads};
    const auto plan = compare::prepare_compare(spec, engine, threads.team());
    return compare::compare_document(compare::run_compare(plan, watch.parallel(threads)),
                                     plan.engine());
  });
}

}  // namespace

void add_niah_commands(py::module_& m) {
  using namespace pybind11::literals;
  const RunArguments d;
  m.def(
      "niah",
      [](std::optional<int> window, std::optional<int> stride, std::optional<int> heads,
         std::optional<std::string> gates, std::optional<std::string> arch,
         std::optional<double> split_rho, std::optional<double> beta, std::optional<int> dim,
         double query_noise, double content_noise, bool rms_norm, std::int64_t context, int groups,
         int prompts, std::string combine, std::string engine, const py::int_& seed, int threads,
         std::optional<int> knockout, bool progress) {
        return niah({window, stride, heads, gates, arch, split_rho, knockout,
                     run_arguments(beta, dim, query_noise, content_noise, rms_norm, context, groups,
                                   prompts, combine, engine, seed_value(seed, "niah"), threads),
                     progress});
      },
      py::kw_only(), "window"_a = py::none(), "stride"_a = py::none(), "heads"_a = py::none(),
      "gates"_a = py::none(), "arch"_a = py::none(), "split_rho"_a = py::none(),
      "beta"_a = py::none(), "dim"_a = py::none(), "query_noise"_a = d.spec.query_noise,
      "content_noise"_a = d.spec.content_noise, "rms_norm"_a = d.spec.rms_norm,
      "context"_a = d.spec.context, "groups"_a = d.spec.groups, "prompts"_a = d.spec.prompts,
      "combine"_a = d.spec.combine, "engine"_a = d.engine, "seed"_a = d.spec.seed,
      "threads"_a = d.threads, "knockout"_a = py::none(), "progress"_a = false,
      R"(Per-phase needle-in-a-haystack accuracy of a compressed cache (`phasesim niah`).

Geometry: window W (default 8) and stride S (default 4), gates (';'-separated gate per head,
default "last"; channels:SPEC=SHARE|... for a per-channel gate), heads (replicates a single
gate), split_rho (the correlation of a token's keys in its entries' newer and older slots;
1 by default), or arch (an architecture file or preset, which replaces those five). Model: beta (standardized channel, 4.5 when neither beta nor dim
is given) or dim with query_noise (full-vector model); content_noise, rms_norm. Protocol:
context L, groups G, prompts per group, combine ("any" or "vote:K"), knockout (also report
each group without that head). engine: analytic, fast, full, full-double or gpu. seed; threads
(0: the OpenMP default). progress=True shows the trials done on stderr.

Returns the `niah` JSON document as a dict; per-group results are under "groups" (to_frame
gives them as a table), the summary under "summary". Bad input raises ValueError with the
CLI's message; Ctrl-C raises KeyboardInterrupt.)");
  m.def(
      "compare",
      [](const std::vector<std::string>& architectures, std::optional<double> beta,
         std::optional<int> dim, double query_noise, double content_noise, bool rms_norm,
         std::int64_t context, int groups, int prompts, std::string combine, std::string engine,
         const py::int_& seed, int threads) {
        return compare(architectures, run_arguments(beta, dim, query_noise, content_noise, rms_norm,
                                                    context, groups, prompts, combine, engine,
                                                    seed_value(seed, "compare"), threads));
      },
      "architectures"_a, py::kw_only(), "beta"_a = py::none(), "dim"_a = py::none(),
      "query_noise"_a = d.spec.query_noise, "content_noise"_a = d.spec.content_noise,
      "rms_norm"_a = d.spec.rms_norm, "context"_a = d.spec.context, "groups"_a = d.spec.groups,
      "prompts"_a = d.spec.prompts, "combine"_a = d.spec.combine, "engine"_a = d.engine,
      "seed"_a = d.spec.seed, "threads"_a = d.threads,
      R"(Several architectures on the same needles (`phasesim compare`).

architectures: a list of architecture files or presets; differences are against the first.
The other arguments are niah's. Returns the `compare` document as a dict.)");
}

}  // namespace phasesim::python
