// phasesim diagnose: from a per-group NIAH table back to the period, the phases and the model.
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/diagnose_table.hpp"
#include "cli/output.hpp"
#include "phasesim/diagnose/diagnose.hpp"

namespace phasesim::cli {
namespace {

// The options as CLI11 fills them; the architecture options count only when given.
struct DiagnoseOptions {
  std::string table;
  int window = 0;
  int stride = 0;
  std::int64_t context = 0;
  int heads = 0;
  stats::PeriodOptions period;
  int threads = 0;
  std::string json;
  const CLI::Option *window_given, *stride_given, *context_given, *heads_given;

  diagnose::DiagnoseSpec given_spec() const {
    auto value = [](const CLI::Option* o, auto v) {
      return o->count() ? std::optional(v) : std::nullopt;
    };
    return {value(window_given, window), value(stride_given, stride), value(context_given, context),
            value(heads_given, heads), period};
  }
};

void add_options(CLI::App& cmd, DiagnoseOptions& o) {
  cmd.add_option("table", o.table,
                 "CSV with columns group,successes,trials or group,accuracy,trials, or a "
                 "`phasesim niah --json` result")
      ->required();
  o.window_given = cmd.add_option("--window,-W", o.window, "Window W, when known");
  o.stride_given = cmd.add_option("--stride,-S", o.stride, "Stride S, when known");
  o.context_given = cmd.add_option("--context,-L", o.context,
                                   "Context length L in tokens, when known (default 131072)");
  o.heads_given = cmd.add_option("--heads", o.heads,
                                 "KV heads H, when known (default 1); H > 1 fits one-hot heads");
  cmd.add_option("--replicates", o.period.replicates,
                 "Monte Carlo draws of each exact test's null distribution")
      ->capture_default_str();
  cmd.add_option("--seed", o.period.seed, "Random seed of the exact tests")->capture_default_str();
  add_threads_option(cmd, o.threads);
  add_json_option(cmd, o.json);
}

}  // namespace

void add_diagnose_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<DiagnoseOptions>();
  auto* cmd = app.add_subcommand(
      "diagnose",
      "From a per-group NIAH table back to the model: period, covered phases, beta and "
      "gates, prompts needed");
  add_options(*cmd, *options);
  cmd->callback([options, &action] {
    auto table = std::make_shared<const diagnose::CountTable>(diagnose::read_table(options->table));
    const auto spec = options->given_spec();
    diagnose::resolve_architecture(*table, spec);
    stats::validate_period_options(spec.period, table->size());
    check_threads(options->threads);
    check_json_path(options->json);
    action = [options, table, spec](std::ostream& out) {
      const auto diagnosis = diagnose::diagnose(*table, spec, Parallel{options->threads});
      warn("diagnose", diagnosis.warnings, out);
      if (wants_table(options->json)) print_diagnosis(options->table, *table, diagnosis, out);
      write_json(options->json,
                 diagnose::diagnose_document(options->table, *table, spec, diagnosis));
      return kSuccess;
    };
  });
}

}  // namespace phasesim::cli
