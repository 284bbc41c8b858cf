// phasesim inspect: a checkpoint's layers (gates, coverage, content noise, sinks, predicted
// best and worst groups) and the stack's predicted per-group table.
#include <ostream>

#include "cli/door.hpp"
#include "cli/niah_table.hpp"
#include "phasesim/commands/inspect.hpp"

namespace phasesim::cli {
namespace {

std::string phases_text(const std::vector<int>& phases) {
  if (phases.empty()) return "-";
  std::string text;
  for (int p : phases) text += (text.empty() ? "" : ",") + std::to_string(p);
  return text.size() > 24 ? counted(phases.size(), "phase") : text;
}

// "12.3 MiB", or the bytes themselves under a mebibyte.
std::string amount(std::uint64_t bytes) {
  return bytes < (1U << 20) ? counted(bytes, "byte") : bytes_text(static_cast<double>(bytes));
}

std::string summary_text(const niah::NiahSummary& s, bool best) {
  return fixed(best ? s.best : s.worst, 4) + " (" +
         std::to_string(best ? s.best_group : s.worst_group) + ")";
}

void print_header(const inspect::Inspection& inspection, std::ostream& out) {
  const auto& c = inspection.checkpoint();
  const auto& config = inspection.config();
  out << "inspect " << c.path() << ": " << checkpoint::spelling_name(inspection.spelling())
      << " tensor names, " << counted(config.layers, "layer") << " (" << config.kinds_from
      << "), read " << amount(inspection.bytes_read()) << " of " << amount(c.total_bytes())
      << " in " << counted(c.files().size(), "file") << "\n";
  out << "read: " << inspect::kRead << "\n";
  const auto& p = inspection.spec().protocol;
  out << "beta " << format_number(p.beta) << ", context " << p.context << ", "
      << counted(p.groups, "group") << "; content noise from " << inspection.spec().content_columns
      << " columns of each gate row (0: all)\n\n";
}

void print_layers(const inspect::Inspection& inspection, const inspect::Prediction& prediction,
                  std::ostream& out) {
  Table table({"layer", "kind", "W/S", "covered", "blind", "bias", "content", "indexer covers",
               "sink mean", "best (group)", "worst (group)", "gap"});
  std::size_t cache = 0;
  for (const auto& layer : inspection.layers()) {
    const auto& p = layer.plan;
    std::vector<std::string> row{std::to_string(p.layer),
                                 p.cache_of ? "reads " + std::to_string(*p.cache_of) : p.kind};
    const auto& g = layer.compressor;
    row.push_back(g ? std::to_string(g->geometry.window) + "/" + std::to_string(g->geometry.stride)
                    : "-");
    row.push_back(g ? phases_text(g->covered) : "-");
    row.push_back(g ? phases_text(g->blind) : "-");
    row.push_back(g ? fixed(g->bias_spread, 3) : "-");
    row.push_back(g && g->content ? fixed(g->content->rms, 3) : "-");
    row.push_back(layer.indexer ? phases_text(layer.indexer->covered) : "-");
    row.push_back(layer.sinks ? fixed(layer.sinks->mean, 3) : "-");
    if (g) {
      const auto& s = prediction.layers[cache++].summary;
      row.insert(row.end(), {summary_text(s, true), summary_text(s, false), fixed(s.gap, 4)});
    } else {
      row.insert(row.end(), {"-", "-", "-"});
    }
    table.add_row(std::move(row));
  }
  table.print(out);
  out << "bias: rms over channels of the spread of its logits over the slots; content: rms "
         "content noise tau of the gate projection's rows (docs/INSPECT.md)\n";
}

void print_inspect(const commands::Inspect& command, const inspect::Prediction& prediction,
                   double seconds, std::ostream& out) {
  const auto& inspection = command.inspection();
  print_header(inspection, out);
  print_layers(inspection, prediction, out);
  std::string layers;
  for (int l : inspection.stack_layers())
    layers += (layers.empty() ? "" : ", ") + std::to_string(l);
  out << "\nstack of " << counted(inspection.stack_layers().size(), "compressed cache")
      << ", its layers 1, 2, ... the checkpoint's " << layers
      << ", read if any of them reads the needle:\n";
  print_niah_table(inspection.stack_plan().run(), "analytic", prediction.stack, seconds, out);
  if (command.options().save_arch) {
    out << "architecture written to " << *command.options().save_arch << "\n";
  }
}

}  // namespace

void add_inspect_command(CLI::App& app, Action& action, const commands::Environment& environment) {
  add_command<commands::Inspect>(app, action, environment, {print_inspect});
}

}  // namespace phasesim::cli
