#include "cli/niah_table.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>

#include "cli/output.hpp"

namespace phasesim::cli {
namespace {

std::string bar(double accuracy) {
  std::string text;
  for (auto i = std::lround(40 * accuracy); i > 0; --i) text += "\u2588";
  return text;
}

// "8 heads (random:1:10, ...)" for the shorthand; the architecture's name, file and layers.
void print_heads(const niah::NiahRun& run, std::ostream& out) {
  const auto& m = run.model;
  const auto heads = heads_text(niah::kv_cost(m.geometries, m.key_heads).heads, m.heads());
  if (run.architecture) {
    const auto& a = *run.architecture;
    out << "architecture " << a.name << " (" << a.file << "): " << counted(a.layers, "layer")
        << ", " << heads;
    return;
  }
  out << "W=" << m.geometry(0).window << " S=" << m.geometry(0).stride << ", " << heads << " ("
      << m.gates.front().spec << (m.heads() > 1 ? ", ...)" : ")");
}

// "32768 entries", or "16384 to 18724 entries" when the heads' entry counts differ.
std::string entries_text(const niah::NiahModel& m) {
  std::int64_t least = m.entries(0);
  std::int64_t most = least;
  for (int h = 1; h < m.heads(); ++h) {
    least = std::min(least, m.entries(h));
    most = std::max(most, m.entries(h));
  }
  return most > least ? std::to_string(least) + " to " + std::to_string(most) + " entries"
                      : counted(least, "entry", "entries");
}

// The read path (MODEL.md section 10), where some head has one: the first head's, or "read
// paths per head" when they differ.
void print_read_path(const niah::NiahModel& m, std::ostream& out) {
  if (m.needle_tokens > 1) out << ", needle of " << m.needle_tokens << " tokens";
  if (m.read_paths.empty()) return;
  const auto text = read_path_json(m.read_path(0)).dump();
  for (int h = 1; h < m.heads(); ++h) {
    if (read_path_json(m.read_path(h)).dump() != text) {
      out << ", read paths per head";
      return;
    }
  }
  const auto& p = m.read_path(0);
  if (p.top_k) {
    out << ", top-k " << *p.top_k << " (index " << (p.index_gate ? p.index_gate->spec : "gate")
        << ", beta " << m.index_beta(0) << ", rho " << p.index_rho << ")";
  }
  if (p.raw_blocks) out << ", raw blocks";
  if (p.sliding_window > 0) out << ", window " << p.sliding_window;
  if (p.sink) out << ", sink " << *p.sink;
}

void print_header(const niah::NiahRun& run, const std::string& engine, std::ostream& out) {
  const auto& m = run.model;
  out << "niah: ";
  print_heads(run, out);
  if (m.full_vector()) {
    out << ", dim " << *m.dim << ", query noise " << m.query_noise;
  } else {
    out << ", beta " << *m.beta;
  }
  if (m.content_noise > 0) out << ", content noise " << m.content_noise;
  if (m.rms_norm) out << ", rms-norm";
  print_read_path(m, out);
  out << ", context " << m.context << " (" << entries_text(m) << "), combine " << run.combine.text
      << ", engine " << engine << ", seed " << m.seed << "\n";
}

// With the read path, each group's stage 1 (selected) beside its accuracy.
void print_groups(const niah::NiahResult& result, std::ostream& out) {
  const bool exact = !result.summary.trials;
  const bool stages = result.groups.front().selected.has_value();
  out << "group  accuracy" << (stages ? "  selected" : "")
      << (exact ? "  (exact)" : "     ± se  95% Wilson CI") << "\n";
  for (const auto& g : result.groups) {
    out << std::setw(5) << g.group << "  " << fixed(g.accuracy, 4);
    if (stages) out << "    " << fixed(*g.selected, 4);
    if (!exact) {
      out << "  " << fixed(g.std_error, 4) << "  [" << fixed(g.ci_low, 4) << ", "
          << fixed(g.ci_high, 4) << "]";
    }
    if (g.accuracy > 0.0125) out << (exact ? "           " : "  ") << bar(g.accuracy);
    out << "\n";
  }
}

void print_summary(const niah::NiahRun& run, const niah::NiahSummary& s, double seconds,
                   std::ostream& out) {
  auto error = [&](double se) { return s.trials ? " ± " + fixed(se, 4) : std::string(); };
  out << "mean " << fixed(s.mean, 4) << error(s.mean_std_error) << ", best " << fixed(s.best, 4)
      << " (group " << s.best_group << "), worst " << fixed(s.worst, 4) << " (group "
      << s.worst_group << "), gap " << fixed(s.gap, 4) << error(s.gap_std_error) << ", worst/mean "
      << (s.worst_over_mean ? fixed(*s.worst_over_mean, 3) : "-") << "; ";
  if (s.trials) {
    out << counted(*s.trials, "trial") << " (" << counted(run.needles.groups, "group") << " x "
        << counted(run.needles.prompts, "prompt") << ")";
  } else {
    out << "exact (no trials)";
  }
  out << ", " << fixed(seconds, 2) << " s\n";
  const auto cost = niah::kv_cost(run.model.geometries, run.model.key_heads, run.model.read_paths);
  out << "kv cost " << fixed(cost.entries_per_token, 4) << " entries per token, "
      << fixed(cost.relative(), 4) << " of full attention (" << counted(cost.heads, "head")
      << ")\n";
}

void print_knockout(const niah::NiahRun& run, const niah::NiahResult& result, std::ostream& out) {
  const auto& k = *result.knockout;
  out << "\nknockout of head " << k.head;
  if (run.architecture) {
    const auto& head = run.architecture->heads[static_cast<std::size_t>(k.head)];
    out << " (layer " << head.layer << ", head " << head.head << ")";
  }
  out << " (the same trials without it):\n";
  Table table({"group", "with", "without", "change", "± se"});
  for (std::size_t r = 0; r < k.groups.size(); ++r) {
    const auto& g = k.groups[r];
    table.add_row({std::to_string(g.group), fixed(result.groups[r].accuracy, 4),
                   fixed(g.accuracy, 4), fixed(g.change, 4), fixed(g.change_std_error, 4)});
  }
  table.print(out);
  out << "mean change " << fixed(k.mean_change, 4) << " ± " << fixed(k.mean_change_std_error, 4)
      << "\n";
}

}  // namespace

// Where the needles were lost: at selection (1 - selected) or at attention (selected -
// accuracy), mean over groups, and the groups that lost most at each.
void print_stages(const niah::NiahResult& result, std::ostream& out) {
  if (!result.groups.front().selected) return;
  double selected = 0;
  const niah::GroupAccuracy* worst_selection = &result.groups.front();
  const niah::GroupAccuracy* worst_attention = &result.groups.front();
  for (const auto& g : result.groups) {
    selected += *g.selected;
    if (*g.selected < *worst_selection->selected) worst_selection = &g;
    if (*g.selected - g.accuracy > *worst_attention->selected - worst_attention->accuracy) {
      worst_attention = &g;
    }
  }
  selected /= static_cast<double>(result.groups.size());
  out << "stages: selection passes " << fixed(selected, 4) << " (loses " << fixed(1 - selected, 4)
      << ", most in group " << worst_selection->group << "), attention loses "
      << fixed(selected - result.summary.mean, 4) << " (most in group " << worst_attention->group
      << ")\n";
}

void print_niah_table(const niah::NiahRun& run, const std::string& engine,
                      const niah::NiahResult& result, double seconds, std::ostream& out) {
  print_header(run, engine, out);
  print_groups(result, out);
  print_summary(run, result.summary, seconds, out);
  print_stages(result, out);
  if (result.knockout) print_knockout(run, result, out);
}

}  // namespace phasesim::cli
