// phasesim gpu-check: the gpu engine against the CPU full engine on one small full-vector
// experiment, draw for draw (phasesim/engines/parity.hpp), with the throughput of each.
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/engines/gpu.hpp"
#include "phasesim/engines/parity.hpp"

namespace phasesim::cli {
namespace {

// A small full-vector run: two random heads, d = 64, L = 4096, 8 groups x 64 prompts.
NiahSpec small_run() {
  NiahSpec s;
  s.gates = "random:1";
  s.heads = 2;
  s.dim = 64;
  s.query_noise = 1;
  s.context = 4096;
  s.prompts = 64;
  return s;
}

struct GpuCheckOptions {
  NiahSpec spec = small_run();
  int threads = 0;
  std::string json;
};

std::string scientific(double value) {
  std::ostringstream text;
  text << std::scientific << std::setprecision(2) << value;
  return text.str();
}

void print_header(const NiahRun& run, const std::string& device, std::ostream& out) {
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
}

void print_report(const ParityCheck& check, int threads, std::ostream& out) {
  Table groups({"group", "cpu full", "gpu"});
  for (std::size_t r = 0; r < check.reference.groups.size(); ++r) {
    groups.add_row({std::to_string(r), fixed(check.reference.groups[r].accuracy, 4),
                    fixed(check.candidate.groups[r].accuracy, 4)});
  }
  groups.print(out);
  const auto& c = check.comparison;
  out << "(accuracy with heads combined by any)\n\n";
  out << "(trial, head) pairs:          " << c.pairs << "\n"
      << "outcomes that differ:         " << c.outcomes_differing << "\n"
      << "argmax entries that differ:   " << c.entries_differing << "\n"
      << "logits bitwise equal:         " << c.logits_bitwise_equal << " of "
      << c.pairs - c.entries_differing << " (same entry)\n"
      << "largest |logit difference|:   " << scientific(c.max_logit_difference) << "\n"
      << "gpu run twice, same bits:     " << (c.candidate_repeatable ? "yes" : "no") << "\n\n";
  Table speed({"engine", "seconds", "trials/s", "key-vectors/s"});
  for (const auto& [name, t] :
       {std::pair{"cpu full (" + std::to_string(threads) + " threads)", check.reference_time},
        std::pair{std::string("gpu"), check.candidate_time}}) {
    speed.add_row({name, fixed(t.seconds, 3), scientific(t.trials_per_second),
                   scientific(t.key_vectors_per_second)});
  }
  speed.print(out);
  out << "(gpu: the second of two runs, end to end: allocation, copies and kernel)\n\n";
  if (c.parity()) {
    out << "parity: yes (every (trial, head) picks the same entry, logits within "
        << scientific(kParityLogitTolerance) << ")\n";
  } else {
    out << "parity: NO (" << c.entries_differing << " argmax entries differ, largest logit "
        << "difference " << scientific(c.max_logit_difference) << ", gpu repeatable "
        << (c.candidate_repeatable ? "yes" : "no") << "): exit status " << kParityFailed << "\n";
  }
}

int run_gpu_check(const GpuCheckOptions& o, const NiahRun& run, const EngineRegistry& engines,
                  std::ostream& out) {
  const Parallel parallel{o.threads};
  const auto device = gpu_device_name();
  const auto check = check_parity(run, engines.find("full"), engines.find("gpu"), parallel);
  if (wants_table(o.json)) {
    print_header(run, device, out);
    print_report(check, parallel.team(), out);
  }
  write_json(o.json, parity_document(run, o.spec.gates, parallel, device, check));
  return check.comparison.parity() ? kSuccess : kParityFailed;
}

}  // namespace

void add_gpu_check_command(CLI::App& app, Action& action,
                           std::shared_ptr<const EngineRegistry> engines) {
  auto o = std::make_shared<GpuCheckOptions>();
  auto& s = o->spec;
  auto* cmd = app.add_subcommand(
      "gpu-check",
      "The gpu engine against the CPU full engine, draw for draw, with the throughput of each "
      "(exit status 4 when they differ)");
  add_geometry_options(*cmd, s.geometry);
  cmd->add_option("--gate", s.gates, "Gate spec, replicated over the heads")->capture_default_str();
  cmd->add_option("--heads", *s.heads, "Heads H")->capture_default_str();
  cmd->add_option("--dim", *s.dim, "Key dimension d")->capture_default_str();
  cmd->add_option("--query-noise", s.query_noise, "Query noise sigma_q")->capture_default_str();
  cmd->add_option("--content-noise", s.content_noise, "Content noise tau of the gate")
      ->capture_default_str();
  cmd->add_flag("--rms-norm", s.rms_norm, "RMS-normalize every pooled entry");
  cmd->add_option("--context,-L", s.context, "Context length L in tokens")->capture_default_str();
  cmd->add_option("--groups,-G", s.groups, "Groups G")->capture_default_str();
  cmd->add_option("--prompts,-P", s.prompts, "Prompts (trials) per group")->capture_default_str();
  cmd->add_option("--seed", s.seed, "Random seed")->capture_default_str();
  add_threads_option(*cmd, o->threads);
  add_json_option(*cmd, o->json);
  cmd->callback([o, engines, &action] {
    const auto run = make_run(o->spec);
    check_threads(o->threads);
    // The CPU full engine is the reference: bound its share of the work up front.
    check_work("the CPU reference of --context " + std::to_string(o->spec.context) + ", " +
                   std::to_string(run.needles.trials()) + " trials",
               engines->find("full").estimate(run), Parallel{o->threads}.team());
    const auto reason = gpu_unavailable_reason();
    require(reason.empty(), reason);
    action = [o, run, engines](std::ostream& out) { return run_gpu_check(*o, run, *engines, out); };
  });
}

}  // namespace phasesim::cli
