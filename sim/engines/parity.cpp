#include "phasesim/engines/parity.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "full_vector_heads.hpp"
#include "phasesim/core/contract.hpp"

namespace phasesim::engines {
namespace {

std::pair<niah::EngineOutput, double> timed_run(const NiahPlan& plan, const Parallel& parallel) {
  const auto start = std::chrono::steady_clock::now();
  auto output = run_engine(plan, parallel);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  const auto& run = plan.run();
  // check_parity's precondition, known once the engine has run: it computes argmaxes.
  PHASESIM_EXPECT(output.argmaxes.size() ==
                  static_cast<std::size_t>(run.needles.trials() * run.model.heads()));
  return {std::move(output), elapsed.count()};
}

ArgmaxComparison compare(const niah::EngineOutput& reference, const niah::EngineOutput& candidate,
                         const niah::EngineOutput& candidate_again) {
  ArgmaxComparison c;
  const auto& cpu = reference.argmaxes;
  const auto& gpu = candidate.argmaxes;
  const auto& gpu_again = candidate_again.argmaxes;
  const auto& a = *reference.outcomes;
  const auto& b = *candidate.outcomes;
  c.pairs = static_cast<std::int64_t>(cpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    c.candidate_repeatable = c.candidate_repeatable && gpu[i].entry == gpu_again[i].entry &&
                             gpu[i].logit == gpu_again[i].logit;
    const auto trial = static_cast<std::int64_t>(i) / a.heads();
    const auto head = static_cast<int>(static_cast<std::int64_t>(i) % a.heads());
    const bool outcome_differs = a.row(trial)[head] != b.row(trial)[head];
    c.smallest_gap = std::min(c.smallest_gap, cpu[i].gap());
    c.outcomes_differing += outcome_differs ? 1 : 0;
    if (cpu[i].entry != gpu[i].entry) {
      ++c.entries_differing;
      c.differing.push_back({trial, head, cpu[i], gpu[i], outcome_differs});
      continue;
    }
    c.logits_bitwise_equal += cpu[i].logit == gpu[i].logit ? 1 : 0;
    c.max_logit_difference =
        std::max(c.max_logit_difference, std::abs(cpu[i].logit - gpu[i].logit));
  }
  return c;
}

EngineTiming timing(double seconds, const niah::NiahRun& run, std::int64_t keys_per_trial) {
  const auto trials = static_cast<double>(run.needles.trials());
  const auto keys = trials * static_cast<double>(keys_per_trial);
  return {seconds, trials / seconds, keys / seconds};
}

Json argmax_json(const niah::Argmax& a) {
  return {{"entry", a.entry}, {"logit", a.logit}, {"gap", a.gap()}};
}

Json timing_json(const EngineTiming& t) {
  return {{"seconds", t.seconds},
          {"trials_per_second", t.trials_per_second},
          {"key_vectors_per_second", t.key_vectors_per_second}};
}

}  // namespace

std::int64_t ArgmaxComparison::not_near_ties() const {
  return std::count_if(differing.begin(), differing.end(),
                       [](const DifferingArgmax& d) { return !d.near_tie(); });
}

ParityCheck check_parity(const NiahPlan& reference, const NiahPlan& candidate,
                         const Parallel& parallel) {
  const auto& run = reference.run();
  const auto [cpu, cpu_seconds] = timed_run(reference, parallel);
  const auto gpu_first = timed_run(candidate, parallel).first;
  const auto [gpu, gpu_seconds] = timed_run(candidate, parallel);
  ParityCheck check;
  check.comparison = compare(cpu, gpu, gpu_first);
  check.reference = niah::niah_result(run, cpu);
  check.candidate = niah::niah_result(run, gpu);
  check.keys_per_trial = full_vector_keys_per_trial(run.model);
  check.reference_time = timing(cpu_seconds, run, check.keys_per_trial);
  check.candidate_time = timing(gpu_seconds, run, check.keys_per_trial);
  return check;
}

std::int64_t full_vector_keys_per_trial(const niah::NiahModel& model) {
  std::int64_t keys = 0;
  for (const auto& head : engines::full_vector_heads(model).heads) keys += scanned_keys(head);
  return keys;
}

Json parity_document(const niah::NiahRun& run, const std::string& gate, const Parallel& parallel,
                     const ParityLabels& labels, const ParityCheck& check) {
  const auto& m = run.model;
  const auto& c = check.comparison;
  const auto& ref = labels.reference;
  const auto& cand = labels.candidate;
  auto doc = new_document(labels.command);
  doc["window"] = m.geometry(0).window;  // gpu-check and precision-check run the one-layer
  doc["stride"] = m.geometry(0).stride;  // shorthand: every head has the same geometry
  doc["gate"] = gate;
  doc["heads"] = m.heads();
  doc["gates"] = Json::array();
  for (const auto& g : m.gates) doc["gates"].push_back(g.spec);
  doc["dim"] = *m.dim;
  doc["query_noise"] = m.query_noise;
  doc["content_noise"] = m.content_noise;
  doc["rms_norm"] = m.rms_norm;
  doc["context"] = m.context;
  doc["entries"] = m.entries(0);
  doc["group_count"] = run.needles.groups;
  doc["prompts"] = run.needles.prompts;
  doc["seed"] = m.seed;
  doc["threads"] = parallel.threads;
  doc["cpu_threads"] = parallel.team();
  doc[labels.machine] = labels.where;
  doc["groups"] = Json::array();
  for (std::size_t r = 0; r < check.reference.groups.size(); ++r) {
    doc["groups"].push_back({{"group", r},
                             {ref + "_accuracy", check.reference.groups[r].accuracy},
                             {cand + "_accuracy", check.candidate.groups[r].accuracy}});
  }
  doc["pairs"] = c.pairs;
  doc["outcomes_differing"] = c.outcomes_differing;
  doc["argmax_entries_differing"] = c.entries_differing;
  doc["argmax_entries_differing_not_near_tie"] = c.not_near_ties();
  doc["near_tie"] = kNearTie;
  doc["differing"] = Json::array();
  for (const auto& d : c.differing) {
    doc["differing"].push_back({{"trial", d.trial},
                                {"head", d.head},
                                {"outcome_differs", d.outcome_differs},
                                {"near_tie", d.near_tie()},
                                {ref, argmax_json(d.reference)},
                                {cand, argmax_json(d.candidate)}});
  }
  doc["smallest_gap"] = c.smallest_gap;
  doc["logits_bitwise_equal"] = c.logits_bitwise_equal;
  doc["max_logit_difference"] = c.max_logit_difference;
  doc["logit_tolerance"] = kParityLogitTolerance;
  doc[cand + "_repeatable"] = c.candidate_repeatable;
  doc["keys_per_trial"] = check.keys_per_trial;
  doc[ref] = timing_json(check.reference_time);
  doc[cand] = timing_json(check.candidate_time);
  doc["parity"] = c.parity();
  return doc;
}

}  // namespace phasesim::engines
