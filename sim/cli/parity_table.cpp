#include "cli/parity_table.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "cli/output.hpp"
#include "phasesim/core/budget.hpp"

namespace phasesim::cli {
namespace {

constexpr std::size_t kListedDifferences = 20;  // the JSON lists them all

std::string scientific(double value) {
  std::ostringstream text;
  text << std::scientific << std::setprecision(2) << value;
  return text.str();
}

void print_header(const niah::NiahRun& run, const engines::ParityLabels& labels,
                  std::ostream& out) {
  const auto& m = run.model;
  out << labels.command << ": W=" << m.geometry(0).window << " S=" << m.geometry(0).stride << ", "
      << counted(m.heads(), "head") << " (" << m.gates.front().spec
      << (m.heads() > 1 ? ", ...)" : ")") << ", dim " << *m.dim << ", query noise "
      << m.query_noise;
  if (m.content_noise > 0) out << ", content noise " << m.content_noise;
  if (m.rms_norm) out << ", rms-norm";
  out << ", context " << m.context << " (" << counted(m.entries(0), "entry", "entries") << "), "
      << counted(run.needles.trials(), "trial") << " (" << counted(run.needles.groups, "group")
      << " x " << counted(run.needles.prompts, "prompt") << "), seed " << m.seed << "\n";
  out << labels.machine << ": " << labels.where << "\n\n";
}

void print_differences(const engines::ArgmaxComparison& c, const ParityTitles& titles,
                       std::ostream& out) {
  if (c.differing.empty()) return;
  Table table({"trial", "head", titles.reference + " entry", "gap", titles.candidate + " entry",
               "gap", "outcome", "near tie"});
  for (std::size_t i = 0; i < std::min(c.differing.size(), kListedDifferences); ++i) {
    const auto& d = c.differing[i];
    table.add_row({std::to_string(d.trial), std::to_string(d.head),
                   std::to_string(d.reference.entry), scientific(d.reference.gap()),
                   std::to_string(d.candidate.entry), scientific(d.candidate.gap()),
                   d.outcome_differs ? "differs" : "same", d.near_tie() ? "yes" : "NO"});
  }
  table.print(out);
  if (c.differing.size() > kListedDifferences) {
    out << "(" << c.differing.size() - kListedDifferences << " more in the JSON)\n";
  }
  out << "(gap: top logit minus runner-up; differences are allowed only at near-ties, both gaps "
      << "<= " << scientific(engines::kNearTie) << ")\n\n";
}

void print_report(const engines::ParityCheck& check, const ParityTitles& titles, int threads,
                  std::ostream& out) {
  Table groups({"group", titles.reference, titles.candidate});
  for (std::size_t r = 0; r < check.reference.groups.size(); ++r) {
    groups.add_row({std::to_string(r), fixed(check.reference.groups[r].accuracy, 4),
                    fixed(check.candidate.groups[r].accuracy, 4)});
  }
  groups.print(out);
  const auto& c = check.comparison;
  out << "(accuracy with heads combined by any)\n\n";
  out << "(trial, head) pairs:          " << c.pairs << "\n"
      << "outcomes that differ:         " << c.outcomes_differing << "\n"
      << "argmax entries that differ:   " << c.entries_differing
      << " (not at a near-tie: " << c.not_near_ties() << ")\n"
      << "logits bitwise equal:         " << c.logits_bitwise_equal << " of "
      << c.pairs - c.entries_differing << " (same entry)\n"
      << "largest |logit difference|:   " << scientific(c.max_logit_difference) << "\n"
      << "smallest top-two gap:         " << scientific(c.smallest_gap) << " (" << titles.reference
      << ")\n"
      << titles.candidate << " run twice, same bits: " << (c.candidate_repeatable ? "yes" : "no")
      << "\n\n";
  print_differences(c, titles, out);
  Table speed({"engine", "seconds", "trials/s", "key-vectors/s"});
  const auto threaded = [&](const std::string& title) {
    return title + " (" + counted(threads, "thread") + ")";
  };
  for (const auto& [name, t] : {std::pair{threaded(titles.reference), check.reference_time},
                                std::pair{titles.candidate, check.candidate_time}}) {
    speed.add_row({name, fixed(t.seconds, 3), scientific(t.trials_per_second),
                   scientific(t.key_vectors_per_second)});
  }
  speed.print(out);
  out << "(" << titles.candidate << ": the second of two runs, end to end)\n\n";
  if (c.parity()) {
    out << "parity: yes (entries differ only at near-ties, logits within "
        << scientific(engines::kParityLogitTolerance) << ")\n";
  } else {
    out << "parity: NO (" << c.not_near_ties() << " argmax entries differ away from a near-tie, "
        << "largest logit difference " << scientific(c.max_logit_difference) << ", "
        << titles.candidate << " repeatable " << (c.candidate_repeatable ? "yes" : "no")
        << "): exit status " << kParityFailed << "\n";
  }
}

}  // namespace

void print_parity(const commands::ParityRun& parity, const commands::ParityRun::Result& result,
                  const ParityTitles& titles, int threads, std::ostream& out) {
  print_header(parity.niah_run(), result.labels, out);
  print_report(result.check, titles, Parallel{threads}.team(), out);
}

int parity_status(const commands::ParityRun::Result& result) {
  return result.check.comparison.parity() ? kSuccess : kParityFailed;
}

}  // namespace phasesim::cli
