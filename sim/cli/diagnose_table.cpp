#include "cli/diagnose_table.hpp"

#include <iomanip>
#include <numeric>
#include <ostream>
#include <sstream>

#include "cli/output.hpp"

namespace phasesim::cli {
namespace {

// A p-value as people read it: three decimals, or one significant digit below 0.001.
std::string p_text(double p) {
  if (p >= 1e-3) return fixed(p, 3);
  std::ostringstream text;
  text << std::scientific << std::setprecision(1) << p;
  return text.str();
}

std::string interval(double low, double high, int digits = 4) {
  return "[" + fixed(low, digits) + ", " + fixed(high, digits) + "]";
}

std::string value_source(const std::string& name, const std::string& value,
                         diagnose::Source source) {
  return name + value +
         (source == diagnose::Source::given
              ? ""
              : " (" + std::string(diagnose::source_name(source)) + ")");
}

void print_header(const std::string& path, const diagnose::CountTable& table,
                  const diagnose::Diagnosis& d, std::ostream& out) {
  const auto& a = d.architecture;
  out << "diagnose: " << path << " (" << diagnose::format_name(table.format) << ", "
      << counted(table.size(), "group") << ", " << counted(table.trials(), "trial") << "); "
      << value_source("W=", a.window ? std::to_string(*a.window) : "?", a.window_source) << " "
      << value_source("S=", a.stride ? std::to_string(*a.stride) : "?", a.stride_source) << ", "
      << value_source("context ", std::to_string(a.context), a.context_source) << ", "
      << value_source(counted(a.heads, "head"), "", a.heads_source) << "; exact tests from "
      << counted(d.period.options.replicates, "draw") << ", seed " << d.period.options.seed << "\n";
}

void print_period(const diagnose::CountTable& table, const diagnose::Diagnosis& d,
                  std::ostream& out) {
  out << "\nIs there a period? Likelihood-ratio tests of 'accuracy depends on the group mod P' "
         "against flat\n";
  Table t({"P", "statistic", "df", "p exact", "p Holm", "p chi2", "lack of fit p Holm"});
  for (const auto& c : d.period.candidates) {
    t.add_row({std::to_string(c.period), fixed(c.statistic, 2), std::to_string(c.df),
               p_text(c.p_value), p_text(c.p_holm), p_text(c.p_chi_squared),
               c.period == table.size() ? "-" : p_text(c.lack_of_fit_holm)});
  }
  t.print(out);
  out << stats::period_verdict(d.period);
  if (d.architecture.stride) {
    const int predicted = std::gcd(table.size(), *d.architecture.stride);
    out << "; over " << counted(table.size(), "group") << " the stride predicts "
        << (predicted == 1 ? "none" : "period " + std::to_string(predicted));
  }
  out << "\n";
}

void print_phases(const diagnose::Diagnosis& d, std::ostream& out) {
  const auto& p = d.profile;
  out << "\nWhich phases are covered? " << counted(d.phases, "phase")
      << (d.phases_from == diagnose::PhasesFrom::flat
              ? " (no period: every group pooled)"
              : " (groups pooled by residue mod " + std::to_string(d.phases) +
                    (d.phases_from == diagnose::PhasesFrom::stride ? ", from the stride)"
                                                                   : ", the detected period)"))
      << "\n";
  Table t({"phase", "groups", "accuracy", "95% interval", "chance", "status"});
  for (const auto& phase : p.phases) {
    std::string groups;
    for (int g : phase.groups) groups += (groups.empty() ? "" : " ") + std::to_string(g);
    t.add_row({std::to_string(phase.phase), groups, fixed(phase.accuracy, 4),
               interval(phase.ci_low, phase.ci_high), p_text(phase.chance),
               phase.blind ? "blind" : "covered"});
  }
  t.print(out);
  out << "worst phase " << p.worst.phase << ": " << fixed(p.worst.accuracy, 4) << " "
      << interval(p.worst.ci_low, p.worst.ci_high) << "; best phase " << p.best.phase << ": "
      << fixed(p.best.accuracy, 4) << " " << interval(p.best.ci_low, p.best.ci_high) << "; gap "
      << fixed(p.gap, 4) << "; " << p.blind << " of " << d.phases << " blind\n";
}

void print_fit(const diagnose::LabelledFit& labelled, const diagnose::Diagnosis& d,
               std::ostream& out) {
  const auto& f = labelled.fit;
  out << "\nWhat model produces it? Fit: "
      << (f.model == diagnose::FitModel::one_head &&
                  labelled.assumption != diagnose::Assumption::two_token_needles
              ? "one head, "
              : "")
      << diagnose::assumption_name(labelled.assumption) << ", N = " << d.entries << " entries\n";
  if (f.beta_high) {
    out << "beta " << fixed(f.beta, 3) << " [" << fixed(f.beta_low, 3) << ", "
        << fixed(*f.beta_high, 3) << "]";
  } else {  // the likelihood still rises at the largest beta explored: a lower bound only
    out << "beta at least " << fixed(f.beta_low, 3) << " (the table does not bound it above)";
  }
  out << ", deviance against the per-phase table " << fixed(f.deviance, 2);
  if (f.deviance_p) {
    out << " (chi-squared p with " << f.deviance_df << " df: " << p_text(*f.deviance_p)
        << (*f.deviance_p < 0.05 ? ", the model does not fit: read its numbers as rough)" : ")");
  }
  out << "\n";
  const bool heads = f.model != diagnose::FitModel::one_head;
  Table t(
      heads ? std::vector<std::string>{"phase", "fitted", "heads", "heads range"}
            : std::vector<std::string>{"phase", "fitted", "weight u", "95% interval", "coverage"});
  for (const auto& p : f.phases) {
    if (heads) {
      t.add_row({std::to_string(p.phase), fixed(p.accuracy, 4), std::to_string(*p.heads),
                 std::to_string(*p.heads_low) + "-" + std::to_string(*p.heads_high)});
    } else {
      t.add_row({std::to_string(p.phase), fixed(p.accuracy, 4), fixed(*p.weight, 4),
                 p.weight_low ? interval(*p.weight_low, *p.weight_high) : "-",
                 fixed(*p.coverage, 3)});
    }
  }
  t.print(out);
}

void print_power(const diagnose::Diagnosis& d, std::ostream& out) {
  const auto& p = d.power;
  auto prompts = [](const diagnose::PowerTarget& t) {
    return t.prompts ? std::to_string(*t.prompts) : std::string("no finite number (flat)");
  };
  out << "\nHow many prompts would settle it? Per group, for 80% power at 5% with the "
         "likelihood-ratio test of period "
      << p.period << " against flat:\n  the gap " << fixed(p.observed.gap, 4) << ": "
      << prompts(p.observed) << "; half of it (" << fixed(p.half.gap, 4) << "): " << prompts(p.half)
      << "\n";
}

}  // namespace

void print_diagnosis(const std::string& table_path, const diagnose::CountTable& table,
                     const diagnose::Diagnosis& diagnosis, std::ostream& out) {
  print_header(table_path, table, diagnosis, out);
  print_period(table, diagnosis, out);
  print_phases(diagnosis, out);
  for (const auto& fit : diagnosis.fits) print_fit(fit, diagnosis, out);
  if (!diagnosis.fit_note.empty()) out << "\n" << diagnosis.fit_note << "\n";
  print_power(diagnosis, out);
  out << "\nAssumptions:\n";
  for (const auto& a : diagnosis.assumptions) out << "  - " << a << "\n";
}

}  // namespace phasesim::cli
