// phasesim niah: per-phase needle-in-a-haystack accuracy of a compressed cache.
#include <chrono>
#include <cmath>
#include <iomanip>
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/engines/engine.hpp"

namespace phasesim::cli {
namespace {

struct NiahOptions {
  Geometry geometry;
  int heads = 1;
  std::string gates = "last";
  double beta = 4.5;
  int dim = 0;
  double query_noise = 0;
  std::int64_t context = 131072;
  int groups = 8;
  int prompts = 256;
  std::string combine = "any";
  int knockout = 0;
  double content_noise = 0;
  bool rms_norm = false;
  std::uint64_t seed = 1;
  int threads = 0;
  std::string engine = "fast";
  std::string json;
};

// Options whose presence, not only their value, matters.
struct Given {
  const CLI::Option* heads;
  const CLI::Option* beta;
  const CLI::Option* dim;
  const CLI::Option* knockout;
};

bool present(const CLI::Option* option) { return option->count() > 0; }

// --gates gives H gates, or one gate that --heads replicates.
std::vector<Gate> head_gates(const NiahOptions& o, bool heads_given) {
  auto gates = parse_gates(o.gates, o.geometry.window);
  if (gates.size() > 1) {
    require(!heads_given || o.heads == static_cast<int>(gates.size()),
            "invalid --heads " + std::to_string(o.heads) + " (--gates gives " +
                std::to_string(gates.size()) +
                " gates: give one gate to replicate over the heads, or one gate per head)");
    return gates;
  }
  require(o.heads >= 1 && o.heads <= 4096,
          "invalid --heads " + std::to_string(o.heads) + " (must be in [1, 4096])");
  std::vector<Gate> heads;
  for (int h = 0; h < o.heads; ++h) heads.push_back(replicate_gate(gates.front(), h));
  return heads;
}

NiahModel make_model(const NiahOptions& o, const Given& given) {
  o.geometry.validate();
  NiahModel m;
  m.geometry = o.geometry;
  m.gates = head_gates(o, present(given.heads));
  m.context = o.context;
  // The library rejects --beta with --dim and --query-noise without --dim.
  m.beta = present(given.beta) || !present(given.dim) ? std::optional(o.beta) : std::nullopt;
  if (present(given.dim)) m.dim = o.dim;
  m.query_noise = o.query_noise;
  m.content_noise = o.content_noise;
  m.rms_norm = o.rms_norm;
  m.seed = o.seed;
  validate_model(m);
  return m;
}

NiahRun make_run(const NiahOptions& o, const Given& given) {
  NiahRun run;
  run.model = make_model(o, given);
  run.needles = plan_needles(o.geometry, o.context, o.groups, o.prompts);
  run.combine = parse_combine(o.combine, run.model.heads());
  if (present(given.knockout)) {
    validate_knockout(o.knockout, run.model.heads());
    run.knockout = o.knockout;
  }
  return run;
}

template <typename T>
Json optional_json(const std::optional<T>& value) {
  return value ? Json(*value) : Json();
}

Json parameters_json(const NiahRun& run, EngineKind engine) {
  const auto& m = run.model;
  auto doc = new_document("niah");
  doc["window"] = m.geometry.window;
  doc["stride"] = m.geometry.stride;
  doc["heads"] = m.heads();
  doc["gates"] = Json::array();
  doc["gate_weights"] = Json::array();
  for (const auto& gate : m.gates) {
    doc["gates"].push_back(gate.spec);
    doc["gate_weights"].push_back(gate.weights);
  }
  doc["beta"] = optional_json(m.beta);
  doc["dim"] = optional_json(m.dim);
  doc["query_noise"] = m.full_vector() ? Json(m.query_noise) : Json();
  doc["beta_effective"] = m.beta_effective();
  doc["context"] = m.context;
  doc["entries"] = m.entries();
  doc["group_count"] = run.needles.groups;  // --groups; "groups" holds the per-group results
  doc["prompts"] = run.needles.prompts;
  doc["combine"] = run.combine.text;
  doc["knockout"] = optional_json(run.knockout);
  doc["content_noise"] = m.content_noise;
  doc["rms_norm"] = m.rms_norm;
  doc["engine"] = engine_name(engine);
  doc["seed"] = m.seed;
  doc["needle_positions_per_group"] = run.needles.block_count;
  doc["needle_range"] = {run.needles.first_position(0),
                         run.needles.last_position(run.needles.groups - 1)};
  doc["engine_paths"] = engine_paths(engine, m);
  return doc;
}

Json groups_json(const std::vector<GroupAccuracy>& groups) {
  Json list = Json::array();
  for (const auto& g : groups) {
    list.push_back({{"group", g.group},
                    {"accuracy", g.accuracy},
                    {"successes", optional_json(g.successes)},
                    {"trials", optional_json(g.trials)},
                    {"ci_low", g.ci_low},
                    {"ci_high", g.ci_high},
                    {"std_error", g.std_error}});
  }
  return list;
}

Json summary_json(const NiahSummary& s) {
  return {{"mean", s.mean},
          {"mean_std_error", s.mean_std_error},
          {"best", s.best},
          {"best_group", s.best_group},
          {"worst", s.worst},
          {"worst_group", s.worst_group},
          {"gap", s.gap},
          {"gap_std_error", s.gap_std_error},
          {"worst_over_mean", optional_json(s.worst_over_mean)},
          {"trials", optional_json(s.trials)}};
}

// Mean change over groups and its standard error (groups are independent).
std::pair<double, double> mean_change(const std::vector<KnockoutGroup>& groups) {
  double sum = 0;
  double variance = 0;
  for (const auto& g : groups) {
    sum += g.change;
    variance += g.change_std_error * g.change_std_error;
  }
  const auto G = static_cast<double>(groups.size());
  return {sum / G, std::sqrt(variance) / G};
}

Json knockout_json(int head, const std::vector<KnockoutGroup>& groups) {
  Json list = Json::array();
  for (const auto& g : groups) {
    list.push_back({{"group", g.group},
                    {"accuracy", g.accuracy},
                    {"change", g.change},
                    {"change_std_error", g.change_std_error}});
  }
  const auto [mean, error] = mean_change(groups);
  return {
      {"head", head}, {"groups", list}, {"mean_change", mean}, {"mean_change_std_error", error}};
}

std::string bar(double accuracy) {
  std::string text;
  const auto length = static_cast<int>(std::lround(40 * accuracy));
  for (int i = 0; i < length; ++i) text += "\u2588";
  return text;
}

void print_header(const NiahRun& run, EngineKind engine, std::ostream& out) {
  const auto& m = run.model;
  out << "niah: W=" << m.geometry.window << " S=" << m.geometry.stride << ", " << m.heads()
      << (m.heads() == 1 ? " head (" : " heads (") << m.gates.front().spec
      << (m.heads() > 1 ? ", ...)" : ")");
  if (m.full_vector()) {
    out << ", dim " << *m.dim << ", query noise " << m.query_noise;
  } else {
    out << ", beta " << *m.beta;
  }
  if (m.content_noise > 0) out << ", content noise " << m.content_noise;
  if (m.rms_norm) out << ", rms-norm";
  out << ", context " << m.context << " (" << m.entries() << " entries), combine "
      << run.combine.text << ", engine " << engine_name(engine) << ", seed " << m.seed << "\n";
}

void print_groups(const NiahResult& result, std::ostream& out) {
  const bool exact = !result.summary.trials;
  out << "group  accuracy" << (exact ? "  (exact)" : "     ± se  95% Wilson CI") << "\n";
  for (const auto& g : result.groups) {
    out << std::setw(5) << g.group << "  " << fixed(g.accuracy, 4);
    if (!exact) {
      out << "  " << fixed(g.std_error, 4) << "  [" << fixed(g.ci_low, 4) << ", "
          << fixed(g.ci_high, 4) << "]";
    }
    if (g.accuracy > 0.0125) out << (exact ? "           " : "  ") << bar(g.accuracy);
    out << "\n";
  }
}

void print_summary(const NiahRun& run, const NiahSummary& s, double seconds, std::ostream& out) {
  const bool exact = !s.trials;
  auto error = [&](double se) { return exact ? std::string() : " ± " + fixed(se, 4); };
  out << "mean " << fixed(s.mean, 4) << error(s.mean_std_error) << ", best " << fixed(s.best, 4)
      << " (group " << s.best_group << "), worst " << fixed(s.worst, 4) << " (group "
      << s.worst_group << "), gap " << fixed(s.gap, 4) << error(s.gap_std_error) << ", worst/mean "
      << (s.worst_over_mean ? fixed(*s.worst_over_mean, 3) : "-") << "; ";
  if (exact) {
    out << "exact (no trials)";
  } else {
    out << *s.trials << " trials (" << run.needles.groups << " groups x " << run.needles.prompts
        << " prompts)";
  }
  out << ", " << fixed(seconds, 2) << " s\n";
}

void print_knockout(int head, const NiahResult& result, std::ostream& out) {
  out << "\nknockout of head " << head << " (the same trials without it):\n";
  Table table({"group", "with", "without", "change", "± se"});
  for (std::size_t r = 0; r < result.knockout.size(); ++r) {
    const auto& k = result.knockout[r];
    table.add_row({std::to_string(k.group), fixed(result.groups[r].accuracy, 4),
                   fixed(k.accuracy, 4), fixed(k.change, 4), fixed(k.change_std_error, 4)});
  }
  table.print(out);
  const auto [mean, error] = mean_change(result.knockout);
  out << "mean change " << fixed(mean, 4) << " ± " << fixed(error, 4) << "\n";
}

int run_niah_command(const NiahRun& run, EngineKind engine, int threads, const std::string& json,
                     std::ostream& out) {
  const auto start = std::chrono::steady_clock::now();
  const auto result = run_niah(run, engine, threads);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;

  auto doc = parameters_json(run, engine);
  doc["groups"] = groups_json(result.groups);
  doc["summary"] = summary_json(result.summary);
  if (run.knockout) doc["knockout_result"] = knockout_json(*run.knockout, result.knockout);

  if (wants_table(json)) {
    print_header(run, engine, out);
    print_groups(result, out);
    print_summary(run, result.summary, elapsed.count(), out);
    if (run.knockout) print_knockout(*run.knockout, result, out);
  }
  write_json(json, doc);
  return kSuccess;
}

void add_model_options(CLI::App& cmd, NiahOptions& o, Given& given) {
  add_geometry_options(cmd, o.geometry);
  given.heads = cmd.add_option("--heads", o.heads, "Heads H (replicates a single --gates spec)")
                    ->capture_default_str();
  cmd.add_option("--gates", o.gates,
                 std::string("Gate per head, ';'-separated, or @file.json: ") + kGateFormsHelp)
      ->capture_default_str();
  given.beta = cmd.add_option("--beta", o.beta, "Standardized channel: signal strength beta")
                   ->capture_default_str();
  given.dim =
      cmd.add_option("--dim", o.dim, "Full-vector model: key dimension d (instead of --beta)");
  cmd.add_option("--query-noise", o.query_noise, "Full-vector model: query noise sigma_q");
  cmd.add_option("--content-noise", o.content_noise, "Content noise tau of the gate")
      ->capture_default_str();
  cmd.add_flag("--rms-norm", o.rms_norm, "RMS-normalize every pooled entry");
}

void add_protocol_options(CLI::App& cmd, NiahOptions& o, Given& given) {
  cmd.add_option("--context,-L", o.context, "Context length L in tokens")->capture_default_str();
  cmd.add_option("--groups,-G", o.groups, "Groups G (group = needle position mod G)")
      ->capture_default_str();
  cmd.add_option("--prompts,-P", o.prompts, "Prompts (trials) per group")->capture_default_str();
  cmd.add_option("--combine", o.combine, "Combine heads: any or vote:K")->capture_default_str();
  given.knockout =
      cmd.add_option("--knockout", o.knockout, "Also report each group without head H (0-based)");
  cmd.add_option("--engine", o.engine, "analytic, fast, full or gpu")->capture_default_str();
  cmd.add_option("--seed", o.seed, "Random seed")->capture_default_str();
  cmd.add_option("--threads", o.threads, "OpenMP threads (0: the OpenMP default)")
      ->capture_default_str();
}

}  // namespace

void add_niah_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<NiahOptions>();
  auto given = std::make_shared<Given>();
  auto* cmd = app.add_subcommand(
      "niah", "Per-phase needle-in-a-haystack accuracy (engines: analytic, fast, full, gpu)");
  add_model_options(*cmd, *options, *given);
  add_protocol_options(*cmd, *options, *given);
  add_json_option(*cmd, options->json);
  cmd->callback([options, given, &action] {
    const auto run = make_run(*options, *given);
    const auto engine = parse_engine(options->engine);
    check_engine(engine, run.model);
    require(options->threads >= 0, "invalid --threads " + std::to_string(options->threads) +
                                       " (must be >= 0; 0 uses the OpenMP default)");
    action = [run, engine, threads = options->threads, json = options->json](std::ostream& out) {
      return run_niah_command(run, engine, threads, json, out);
    };
  });
}

}  // namespace phasesim::cli
