#include "cli/train_table.hpp"

#include <cmath>
#include <ostream>

#include "cli/output.hpp"
#include "cli/progress.hpp"

namespace phasesim::cli {
namespace {

std::string slot_phase(const training::SlotPhase& a) {
  return std::to_string(a.slot) + " (" + std::to_string(a.phase) + ")";
}

std::string phase_list(const std::vector<int>& phases) {
  if (phases.empty()) return "none";
  std::vector<std::string> items;
  for (int phi : phases) items.push_back(std::to_string(phi));
  return join(items, ", ");
}

void print_heads(const training::LabResult& result, std::ostream& out) {
  Table table({"head", "initial slot (phase)", "final slot (phase)", "max weight", "phase coverage",
               "lambda", "|a|"});
  const auto& heads = result.heads;
  const auto& theta = result.training.final;
  for (std::size_t h = 0; h < heads.final.size(); ++h) {
    const auto i = static_cast<Eigen::Index>(h);
    table.add_row({std::to_string(h), slot_phase(heads.initial[h]), slot_phase(heads.final[h]),
                   fixed(heads.final_max_weight[h], 4), fixed(heads.final_phase_coverage[h], 4),
                   fixed(std::exp(theta.log_lambda()[i]), 3),
                   fixed(theta.content().row(i).norm(), 3)});
  }
  table.print(out);
}

void print_phases(const training::LabSpec& spec, const training::LabHeads& heads,
                  std::ostream& out) {
  const auto H = spec.model.heads;
  const auto S = static_cast<double>(spec.model.geometry.stride);
  std::vector<std::string> counts;
  for (int n : heads.heads_per_phase) counts.push_back(std::to_string(n));
  out << "heads per phase " << join(counts, " ")
      << "; phases no head covers: " << phase_list(heads.blind_phases)
      << " (at init: " << phase_list(heads.initial_blind_phases)
      << "); T3's multinomial law expects " << fixed(S * std::pow(1 - 1 / S, H), 2)
      << " blind phases for " << counted(H, "head") << " over "
      << counted(spec.model.geometry.stride, "phase") << "\nlock-in: " << heads.kept_phase << " of "
      << counted(H, "head") << " ended on their initial argmax's phase (" << heads.kept_slot
      << " on its slot)\n";
}

void print_table(const training::LabSpec& spec, const training::LabEvaluation& e,
                 std::ostream& out) {
  out << "\nNIAH of the trained layer (argmax retrieval on fresh contexts, any head; "
      << counted(spec.prompts, "prompt")
      << " per group) and the analytic prediction from its gates\n"
      << "(heads independent; shared: the heads of one phase as one reader):\n";
  Table table({"group", "accuracy", "± se", "95% Wilson CI", "analytic", "shared"});
  for (std::size_t r = 0; r < e.table.groups.size(); ++r) {
    const auto& g = e.table.groups[r];
    table.add_row({std::to_string(g.group), fixed(g.accuracy, 4), fixed(g.std_error, 4),
                   "[" + fixed(g.ci_low, 4) + ", " + fixed(g.ci_high, 4) + "]",
                   fixed(e.prediction.groups[r].accuracy, 4),
                   fixed(e.prediction_shared.groups[r].accuracy, 4)});
  }
  table.print(out);
  const auto& s = e.table.summary;
  out << "mean " << fixed(s.mean, 4) << ", best " << fixed(s.best, 4) << " (group " << s.best_group
      << "), worst " << fixed(s.worst, 4) << " (group " << s.worst_group << "), gap "
      << fixed(s.gap, 4) << "\n"
      << stats::period_verdict(e.period) << "\n";
}

}  // namespace

void TrainingLog::operator()(const training::LabProgress& p) {
  out_ << "step " << p.step << "/" << p.steps << "  loss " << fixed(p.loss, 4) << "  max gate";
  for (Eigen::Index h = 0; h < p.gates.rows(); ++h) {
    Eigen::Index slot = 0;
    const double top = p.gates.row(h).maxCoeff(&slot);
    out_ << " " << fixed(top, 2) << "@" << slot;
  }
  if (eta_) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    out_ << "  eta " << duration_text(elapsed * (p.steps - p.step) / p.step);
  }
  out_ << '\n' << std::flush;
}

void print_lab_header(const training::LabSpec& spec, std::ostream& out) {
  const auto& m = spec.model;
  out << "train: W=" << m.geometry.window << " S=" << m.geometry.stride
      << (m.geometry.offset > 0 ? " offset " + std::to_string(m.geometry.offset) : "") << ", "
      << counted(m.heads, "head") << ", dim " << m.dim << ", query noise " << m.query_noise
      << (m.rms_norm ? ", rms-norm" : "") << (m.content ? ", content term" : ", no content term")
      << ", context " << m.context << " (" << counted(m.entries(), "entry", "entries") << "), "
      << counted(spec.steps, "step") << " of batch " << spec.batch << ", lr " << spec.adam.lr
      << ", init scale " << spec.init_scale << ", seed " << spec.seed << '\n';
}

void print_lab_result(const training::LabSpec& spec, const training::LabResult& result,
                      double seconds, std::ostream& out) {
  out << '\n';
  print_heads(result, out);
  print_phases(spec, result.heads, out);
  print_table(spec, result.evaluation, out);
  out << fixed(seconds, 1) << " s\n";
}

}  // namespace phasesim::cli
