// phasesim gpu-check: the gpu engine against the CPU full engine on one small full-vector
// experiment, draw for draw: the argmax entry and logit of every (trial, head), per-group
// accuracies side by side, and the throughput of each, measured in the same run.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/engines/engine.hpp"

namespace phasesim::cli {
namespace {

// Logits are O(1) to O(sqrt(d)); CUDA's and glibc's sin, cos, log and exp differ by an ulp
// at most, which moves a logit by about 1e-15. A larger difference is a bug, not rounding.
constexpr double kLogitTolerance = 1e-9;

struct GpuCheckOptions {
  Geometry geometry;
  std::string gate = "random:1";
  int heads = 2;
  int dim = 64;
  double query_noise = 1;
  double content_noise = 0;
  bool rms_norm = false;
  std::int64_t context = 4096;
  int groups = 8;
  int prompts = 64;
  std::uint64_t seed = 1;
  int threads = 0;
  std::string json;
};

NiahRun make_run(const GpuCheckOptions& o) {
  o.geometry.validate();
  require(o.heads >= 1 && o.heads <= 4096,
          "invalid --heads " + std::to_string(o.heads) + " (must be in [1, 4096])");
  NiahRun run;
  auto& m = run.model;
  m.geometry = o.geometry;
  const auto gate = parse_gate(o.gate, o.geometry.window);
  for (int h = 0; h < o.heads; ++h) m.gates.push_back(replicate_gate(gate, h));
  m.context = o.context;
  m.beta.reset();
  m.dim = o.dim;
  m.query_noise = o.query_noise;
  m.content_noise = o.content_noise;
  m.rms_norm = o.rms_norm;
  m.seed = o.seed;
  validate_model(m);
  run.needles = plan_needles(o.geometry, o.context, o.groups, o.prompts);
  run.combine = parse_combine("any", m.heads());
  return run;
}

// The two engines' argmaxes, (trial, head) by (trial, head).
struct Comparison {
  std::int64_t pairs = 0;
  std::int64_t outcomes_differing = 0;
  std::int64_t entries_differing = 0;
  std::int64_t logits_bitwise_equal = 0;  ///< among pairs with the same entry
  double max_logit_difference = 0;        ///< likewise
  bool gpu_repeatable = true;             ///< two gpu runs gave the same bits
  bool parity() const {
    return entries_differing == 0 && max_logit_difference <= kLogitTolerance && gpu_repeatable;
  }
};

Comparison compare(const std::vector<Argmax>& cpu, const std::vector<Argmax>& gpu,
                   const std::vector<Argmax>& gpu_again, const OutcomeTable& cpu_outcomes,
                   const OutcomeTable& gpu_outcomes) {
  Comparison c;
  c.pairs = static_cast<std::int64_t>(cpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    c.gpu_repeatable = c.gpu_repeatable && gpu[i].entry == gpu_again[i].entry &&
                       gpu[i].logit == gpu_again[i].logit;
    if (cpu[i].entry != gpu[i].entry) {
      ++c.entries_differing;
      continue;
    }
    c.logits_bitwise_equal += cpu[i].logit == gpu[i].logit ? 1 : 0;
    c.max_logit_difference =
        std::max(c.max_logit_difference, std::abs(cpu[i].logit - gpu[i].logit));
  }
  for (std::int64_t t = 0; t < cpu_outcomes.trials(); ++t) {
    for (int h = 0; h < cpu_outcomes.heads(); ++h) {
      c.outcomes_differing += cpu_outcomes.row(t)[h] != gpu_outcomes.row(t)[h] ? 1 : 0;
    }
  }
  return c;
}

struct Timing {
  double seconds = 0;
  double trials_per_second = 0;
  double key_vectors_per_second = 0;
};

Timing timing(double seconds, const NiahRun& run) {
  const auto trials = static_cast<double>(run.needles.trials());
  const auto keys = trials * static_cast<double>(full_vector_keys_per_trial(run.model));
  return {seconds, trials / seconds, keys / seconds};
}

template <typename Run>
std::pair<std::vector<Argmax>, double> timed(Run run) {
  const auto start = std::chrono::steady_clock::now();
  auto argmaxes = run();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return {std::move(argmaxes), elapsed.count()};
}

std::string scientific(double value) {
  std::ostringstream text;
  text << std::scientific << std::setprecision(2) << value;
  return text.str();
}

Json timing_json(const Timing& t) {
  return {{"seconds", t.seconds},
          {"trials_per_second", t.trials_per_second},
          {"key_vectors_per_second", t.key_vectors_per_second}};
}

void print_report(const NiahRun& run, const std::string& device, const NiahResult& cpu,
                  const NiahResult& gpu, const Comparison& c, const Timing& cpu_time,
                  const Timing& gpu_time, int threads, std::ostream& out) {
  const auto& m = run.model;
  out << "gpu-check: W=" << m.geometry.window << " S=" << m.geometry.stride << ", " << m.heads()
      << (m.heads() == 1 ? " head (" : " heads (") << m.gates.front().spec
      << (m.heads() > 1 ? ", ...)" : ")") << ", dim " << *m.dim << ", query noise "
      << m.query_noise;
  if (m.content_noise > 0) out << ", content noise " << m.content_noise;
  if (m.rms_norm) out << ", rms-norm";
  out << ", context " << m.context << " (" << m.entries() << " entries), " << run.needles.trials()
      << " trials (" << run.needles.groups << " groups x " << run.needles.prompts
      << " prompts), seed " << m.seed << "\n";
  out << "device: " << device << "\n\n";
  Table groups({"group", "cpu full", "gpu"});
  for (std::size_t r = 0; r < cpu.groups.size(); ++r) {
    groups.add_row(
        {std::to_string(r), fixed(cpu.groups[r].accuracy, 4), fixed(gpu.groups[r].accuracy, 4)});
  }
  groups.print(out);
  out << "(accuracy with heads combined by any)\n\n";
  out << "(trial, head) pairs:          " << c.pairs << "\n"
      << "outcomes that differ:         " << c.outcomes_differing << "\n"
      << "argmax entries that differ:   " << c.entries_differing << "\n"
      << "logits bitwise equal:         " << c.logits_bitwise_equal << " of "
      << c.pairs - c.entries_differing << " (same entry)\n"
      << "largest |logit difference|:   " << scientific(c.max_logit_difference) << "\n"
      << "gpu run twice, same bits:     " << (c.gpu_repeatable ? "yes" : "no") << "\n\n";
  Table speed({"engine", "seconds", "trials/s", "key-vectors/s"});
  speed.add_row({"cpu full (" + std::to_string(threads) + " threads)", fixed(cpu_time.seconds, 3),
                 scientific(cpu_time.trials_per_second),
                 scientific(cpu_time.key_vectors_per_second)});
  speed.add_row({"gpu", fixed(gpu_time.seconds, 3), scientific(gpu_time.trials_per_second),
                 scientific(gpu_time.key_vectors_per_second)});
  speed.print(out);
  out << "(gpu: the second of two runs, end to end: allocation, copies and kernel)\n\n";
  if (c.parity()) {
    out << "parity: yes (every (trial, head) picks the same entry, logits within "
        << scientific(kLogitTolerance) << ")\n";
  } else {
    out << "parity: NO (" << c.entries_differing << " argmax entries differ, largest logit "
        << "difference " << scientific(c.max_logit_difference) << ", gpu repeatable "
        << (c.gpu_repeatable ? "yes" : "no") << "): exit status " << kParityFailed << "\n";
  }
}

int run_gpu_check(const GpuCheckOptions& o, const NiahRun& run, std::ostream& out) {
  const auto& m = run.model;
  const auto device = gpu_device_name();
  const auto [cpu, cpu_seconds] =
      timed([&] { return full_vector_argmaxes(EngineKind::full, m, run.needles, o.threads); });
  // The first gpu run pays for the CUDA context and module loading; the second is timed.
  const auto gpu_first = full_vector_argmaxes(EngineKind::gpu, m, run.needles, 0);
  const auto [gpu, gpu_seconds] =
      timed([&] { return full_vector_argmaxes(EngineKind::gpu, m, run.needles, 0); });

  const auto cpu_outcomes = full_vector_outcomes(m, run.needles, cpu);
  const auto gpu_outcomes = full_vector_outcomes(m, run.needles, gpu);
  const auto c = compare(cpu, gpu, gpu_first, cpu_outcomes, gpu_outcomes);
  const auto cpu_result = monte_carlo_result(run, cpu_outcomes);
  const auto gpu_result = monte_carlo_result(run, gpu_outcomes);
  const auto cpu_time = timing(cpu_seconds, run);
  const auto gpu_time = timing(gpu_seconds, run);
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();

  auto doc = new_document("gpu-check");
  doc["window"] = m.geometry.window;
  doc["stride"] = m.geometry.stride;
  doc["gate"] = o.gate;
  doc["heads"] = m.heads();
  doc["gates"] = Json::array();
  for (const auto& gate : m.gates) doc["gates"].push_back(gate.spec);
  doc["dim"] = *m.dim;
  doc["query_noise"] = m.query_noise;
  doc["content_noise"] = m.content_noise;
  doc["rms_norm"] = m.rms_norm;
  doc["context"] = m.context;
  doc["entries"] = m.entries();
  doc["group_count"] = run.needles.groups;
  doc["prompts"] = run.needles.prompts;
  doc["seed"] = m.seed;
  doc["threads"] = o.threads;
  doc["cpu_threads"] = threads;
  doc["device"] = device;
  doc["groups"] = Json::array();
  for (std::size_t r = 0; r < cpu_result.groups.size(); ++r) {
    doc["groups"].push_back({{"group", r},
                             {"cpu_accuracy", cpu_result.groups[r].accuracy},
                             {"gpu_accuracy", gpu_result.groups[r].accuracy}});
  }
  doc["pairs"] = c.pairs;
  doc["outcomes_differing"] = c.outcomes_differing;
  doc["argmax_entries_differing"] = c.entries_differing;
  doc["logits_bitwise_equal"] = c.logits_bitwise_equal;
  doc["max_logit_difference"] = c.max_logit_difference;
  doc["logit_tolerance"] = kLogitTolerance;
  doc["gpu_repeatable"] = c.gpu_repeatable;
  doc["keys_per_trial"] = full_vector_keys_per_trial(m);
  doc["cpu"] = timing_json(cpu_time);
  doc["gpu"] = timing_json(gpu_time);
  doc["parity"] = c.parity();

  if (wants_table(o.json)) {
    print_report(run, device, cpu_result, gpu_result, c, cpu_time, gpu_time, threads, out);
  }
  write_json(o.json, doc);
  return c.parity() ? kSuccess : kParityFailed;
}

}  // namespace

void add_gpu_check_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<GpuCheckOptions>();
  auto* cmd = app.add_subcommand(
      "gpu-check",
      "The gpu engine against the CPU full engine, draw for draw, with the throughput of each "
      "(exit status 4 when they differ)");
  add_geometry_options(*cmd, o->geometry);
  cmd->add_option("--gate", o->gate, "Gate spec, replicated over the heads")->capture_default_str();
  cmd->add_option("--heads", o->heads, "Heads H")->capture_default_str();
  cmd->add_option("--dim", o->dim, "Key dimension d")->capture_default_str();
  cmd->add_option("--query-noise", o->query_noise, "Query noise sigma_q")->capture_default_str();
  cmd->add_option("--content-noise", o->content_noise, "Content noise tau of the gate")
      ->capture_default_str();
  cmd->add_flag("--rms-norm", o->rms_norm, "RMS-normalize every pooled entry");
  cmd->add_option("--context,-L", o->context, "Context length L in tokens")->capture_default_str();
  cmd->add_option("--groups,-G", o->groups, "Groups G")->capture_default_str();
  cmd->add_option("--prompts,-P", o->prompts, "Prompts (trials) per group")->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  cmd->add_option("--threads", o->threads, "OpenMP threads of the CPU run (0: the default)")
      ->capture_default_str();
  add_json_option(*cmd, o->json);
  cmd->callback([o, &action] {
    const auto run = make_run(*o);
    require(o->threads >= 0, "invalid --threads " + std::to_string(o->threads) +
                                 " (must be >= 0; 0 uses the OpenMP default)");
    const auto reason = gpu_unavailable_reason();
    require(reason.empty(), reason);
    action = [o, run](std::ostream& out) { return run_gpu_check(*o, run, out); };
  });
}

}  // namespace phasesim::cli
