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

// lambda of every query head of head h's cache.
std::string lambdas(const training::LabSpec& spec, const training::LayerParameters& theta, int h) {
  std::vector<std::string> items;
  for (int k = 0; k < spec.model.query_heads; ++k) {
    items.push_back(fixed(std::exp(theta.log_lambda()[h * spec.model.query_heads + k]), 3));
  }
  return join(items, " ");
}

void print_heads(const training::LabSpec& spec, const training::LabResult& result,
                 std::ostream& out) {
  Table table({"head", "initial slot (phase)", "final slot (phase)", "max weight", "phase coverage",
               spec.model.query_heads > 1 ? "lambda per query head" : "lambda",
               spec.model.per_channel ? "|A|" : "|a|"});
  const auto& heads = result.heads;
  const auto& theta = result.training.final;
  for (std::size_t h = 0; h < heads.final.size(); ++h) {
    const auto i = static_cast<Eigen::Index>(h);
    table.add_row({std::to_string(h), slot_phase(heads.initial[h]), slot_phase(heads.final[h]),
                   fixed(heads.final_max_weight[h], 4), fixed(heads.final_phase_coverage[h], 4),
                   lambdas(spec, theta, static_cast<int>(h)),
                   fixed(theta.content().row(i).norm(), 3)});
  }
  table.print(out);
}

std::string shares(const std::vector<double>& phase_share) {
  std::vector<std::string> items;
  for (double share : phase_share) items.push_back(fixed(share, 3));
  return join(items, " ");
}

// A gate per channel: the share of each head's channels per phase (the per-channel coverage)
// and its entropy, at the start and at the end.
void print_channels(const training::LabSpec& spec, const training::LabHeads& heads,
                    std::ostream& out) {
  out << "\nchannels per phase (share of the " << spec.model.dim
      << " channels whose gate's argmax has that phase; entropy in nats, log S = "
      << fixed(std::log(double(spec.model.geometry.stride)), 3) << " when even):\n";
  Table table({"head", "initial share per phase", "entropy", "final share per phase", "entropy"});
  for (std::size_t h = 0; h < heads.final_channels.size(); ++h) {
    const auto& start = heads.initial_channels[h];
    const auto& end = heads.final_channels[h];
    table.add_row({std::to_string(h), shares(start.phase_share), fixed(start.entropy, 3),
                   shares(end.phase_share), fixed(end.entropy, 3)});
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
      << (m.per_channel ? ", a gate per channel" : "")
      << (m.query_heads > 1 ? ", " + std::to_string(m.query_heads) + " query heads a head" : "")
      << (m.query_projection ? ", query projections" : "")
      << (m.split_rho < 1 ? ", split rho " + format_number(m.split_rho) : "") << ", context "
      << m.context << " (" << counted(m.entries(), "entry", "entries") << "), "
      << counted(spec.steps, "step") << " of batch " << spec.batch
      << (spec.batches == training::Batches::independent ? " per head (independent)" : "")
      << ", lr " << spec.adam.lr << ", init scale " << spec.init_scale << ", seed " << spec.seed
      << '\n';
}

void print_lab_result(const training::LabSpec& spec, const training::LabResult& result,
                      double seconds, std::ostream& out) {
  out << '\n';
  print_heads(spec, result, out);
  print_phases(spec, result.heads, out);
  if (spec.model.per_channel) print_channels(spec, result.heads, out);
  print_table(spec, result.evaluation, out);
  out << fixed(seconds, 1) << " s\n";
}

}  // namespace phasesim::cli
