#include "cli/niah_options.hpp"

#include "cli/output.hpp"

namespace phasesim::cli {

niah::NiahSpec RunOptions::given_spec() const {
  auto s = spec;
  if (beta_given->count()) s.beta = beta;
  if (dim_given->count()) s.dim = dim;
  return s;
}

void add_run_options(CLI::App& cmd, RunOptions& o, const engines::EngineRegistry& registry) {
  auto& s = o.spec;
  o.beta_given = cmd.add_option("--beta", o.beta, "Standardized channel: signal strength beta")
                     ->capture_default_str();
  o.dim_given =
      cmd.add_option("--dim", o.dim, "Full-vector model: key dimension d (instead of --beta)");
  cmd.add_option("--query-noise", s.query_noise, "Full-vector model: query noise sigma_q");
  cmd.add_option("--content-noise", s.content_noise, "Content noise tau of the gate")
      ->capture_default_str();
  cmd.add_flag("--rms-norm", s.rms_norm, "RMS-normalize every pooled entry");
  cmd.add_option("--context,-L", s.context, "Context length L in tokens")->capture_default_str();
  cmd.add_option("--groups,-G", s.groups, "Groups G (group = needle position mod G)")
      ->capture_default_str();
  cmd.add_option("--prompts,-P", s.prompts, "Prompts (trials) per group")->capture_default_str();
  cmd.add_option("--combine", s.combine, "Combine heads: any or vote:K")->capture_default_str();
  cmd.add_option("--engine", o.engine, join(registry.names(), ", "))->capture_default_str();
  cmd.add_option("--seed", s.seed, "Random seed")->capture_default_str();
  add_threads_option(cmd, o.threads);
  add_json_option(cmd, o.json);
}

}  // namespace phasesim::cli
