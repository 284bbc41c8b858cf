#include "phasesim/commands/theorems.hpp"

#include "commands/common_options.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::commands {
namespace {

// The field `get` reaches in an option struct, then `field` of it: the options of a part.
template <class Get, class Field>
auto part(Get get, Field field) {
  return [ get, field ](auto& options) -> auto& { return std::invoke(field, get(options)); };
}

// The objective J: --window, --stride, --model (channels only where `channels`: theorem
// concentration refuses it) and (unless `point` is false: phase-diagram takes lists) --beta
// and --entries; --weights when `weights` names its help.
template <class Options, class Get>
void add_objective(OptionTable<Options>& t, Get get, bool point = true,
                   const std::string& weights = "", bool channels = true) {
  using theorems::ObjectiveOptions;
  add_geometry(t, part(get, &ObjectiveOptions::window), part(get, &ObjectiveOptions::stride));
  if (point) {
    t.add("beta", part(get, &ObjectiveOptions::beta), "Signal strength beta >= 0");
    t.add("entries", part(get, &ObjectiveOptions::entries),
          "Entries N in all (the needle's included)", {.short_name = "N"});
  }
  t.add("model", part(get, &ObjectiveOptions::model),
        channels ? "normalized (u = g/||g||, the physical model), linear (A_lin(c), T1a) or "
                   "channels (the weights are shares of one-hot channel groups)"
                 : "normalized (u = g/||g||, the physical model) or linear (A_lin(c), T1a)");
  if (!weights.empty()) t.add("weights", part(get, &ObjectiveOptions::weights), weights);
}

// --top-k: T1 under selection (theory/THEORY.md), the commands whose objective takes it.
template <class Options, class Get>
void add_top_k(OptionTable<Options>& t, Get get) {
  t.add("top-k", part(get, &theorems::ObjectiveOptions::top_k),
        "T1 under selection (MODEL.md section 10): a phase succeeds when its best entry ranks in "
        "the top K (default: 1, the argmax)");
}

// The optimizer's --restarts, --seed, --init-scale and --max-iterations.
template <class Options, class Get>
void add_search(OptionTable<Options>& t, Get get, const std::string& restarts) {
  using theorems::OptimizeSettings;
  t.add("restarts", part(get, &OptimizeSettings::restarts), restarts);
  t.add("seed", part(get, &OptimizeSettings::seed),
        "SEED of the random starts random:SEED+r:SCALE");
  t.add("init-scale", part(get, &OptimizeSettings::init_scale), "SCALE of the random starts");
  t.add("max-iterations", part(get, &OptimizeSettings::max_iterations),
        "L-BFGS iterations per start");
}

// A batch of dynamics runs: --steps ... --inits (`inits` describes --inits).
template <class Options, class Get>
void add_dynamics(OptionTable<Options>& t, Get get, const std::string& inits) {
  using theorems::DynamicsOptions;
  t.add("steps", part(get, &DynamicsOptions::steps), "Ascent steps");
  t.add("lr", part(get, &DynamicsOptions::lr), "Learning rate (step size per unit gradient)");
  t.add("max-logit-step", part(get, &DynamicsOptions::max_logit_step),
        "Split a step that would move a logit by more than this (follow the flow)");
  t.add("update", part(get, &DynamicsOptions::update),
        "gradient (b += lr dJ/db) or replicator (b += lr dJ/dg, mirror ascent)");
  t.add("content-noise", part(get, &DynamicsOptions::content_noise),
        "tau: gate logits b + tau xi per token in the needle's entries (0: none)");
  t.add("content-seed", part(get, &DynamicsOptions::content_seeds),
        "Seed(s) of the content draws, comma-separated: one run per seed");
  t.add("content-samples", part(get, &DynamicsOptions::content_samples),
        "Needle contexts per phase and step (antithetic pairs)");
  t.add("init", part(get, &DynamicsOptions::init), std::string("Initial gate: ") + kGateFormsHelp);
  t.add("inits", part(get, &DynamicsOptions::inits), inits);
}

// T3's model: --stride, --heads, --beta-out, --success, --answers.
template <class Options, class Get>
void add_diversity_model(OptionTable<Options>& t, Get get) {
  const auto model = [get](auto& o) -> auto& { return get(o).model; };
  t.add("stride", part(model, &theorems::DiversityModel::stride), "Stride S (phases)",
        {.short_name = "S"});
  t.add("heads", part(get, &theorems::DiversityModelOptions::heads), "Head counts N1,N2,...");
  t.add("beta-out", part(model, &theorems::DiversityModel::beta_out), "Output signal scale beta_o");
  t.add("success", part(model, &theorems::DiversityModel::success),
        "p, per-head success on a covered phase");
  t.add(
      "answers", [model](auto& o) -> auto& { return model(o).loss.answers; },
      "M competing answers in l(z)");
}

constexpr const char* kWeightsHelp = "Phase weights w0,w1,... of J (default uniform)";

Work ascents(const theorems::ChainWork& work) {
  return {work.estimate, static_cast<std::size_t>(work.ascents), "ascents"};
}

}  // namespace

CommandInfo Optimize::info() {
  CommandInfo info{"optimize",
                   "The gate that maximizes J (L-BFGS on the logits, exact gradients, restarts)"};
  info.details =
      "The gate that maximizes J (L-BFGS on the logits with exact gradients, restarts): max "
      "weight, entropy, k above 1%, k* of the equal-split law. With --model channels the W weights "
      "are the shares of one-hot channel groups (per-channel gates, theory/THEORY.md \"T1 for "
      "channel allocations\").";
  return info;
}

OptionTable<Optimize::Options> Optimize::table(const Environment&) {
  OptionTable<Options> t;
  add_objective(
      t, [](auto& o) -> auto& { return o.command.objective; }, true, kWeightsHelp);
  add_top_k(
      t, [](auto& o) -> auto& { return o.command.objective; });
  add_search(
      t, [](auto& o) -> auto& { return o.command.search; },
      "Random starts random:SEED+r:SCALE besides the equal splits");
  add_progress(t, &Options::progress);
  return t;
}

Work Optimize::work() const { return ascents(options_.command.work()); }

CommandInfo PhaseDiagram::info() {
  CommandInfo info{"phase-diagram",
                   "Optimal k and max weight over (beta, N), and the critical beta*(N)"};
  info.details = "The optimal k and max weight over (beta, N), and beta*(N) of the linear model.";
  return info;
}

OptionTable<PhaseDiagram::Options> PhaseDiagram::table(const Environment&) {
  OptionTable<Options> t;
  add_objective(
      t, [](auto& o) -> auto& { return o.command.objective; }, false);
  add_top_k(
      t, [](auto& o) -> auto& { return o.command.objective; });
  t.add(
      "beta", [](auto& o) -> auto& { return o.command.betas; },
      "Betas: a:b:step (inclusive) or a comma list");
  t.add("entries", [](auto& o) -> auto& { return o.command.entries; },
        "Entry counts N1,N2,... (entries in all)", {.short_name = "N"});
  add_search(
      t, [](auto& o) -> auto& { return o.command.search; },
      "Random starts per cell besides the equal splits and the warm start");
  add_progress(t, &Options::progress);
  return t;
}

Work PhaseDiagram::work() const { return ascents(options_.command.work()); }

CommandInfo Dynamics::info() {
  CommandInfo info{"dynamics",
                   "Gradient ascent on the gate logits from random inits: lock-in (T2)"};
  info.details =
      "Gradient ascent on the gate logits: trajectory, lock-in of the initial argmax, batch "
      "counts; re-weighting the phases at a step (--reweight-at, --weights), content noise "
      "(--content-noise).";
  return info;
}

OptionTable<Dynamics::Options> Dynamics::table(const Environment&) {
  OptionTable<Options> t;
  add_objective(
      t, [](auto& o) -> auto& { return o.command.objective; });
  add_dynamics(
      t, [](auto& o) -> auto& { return o.command.dynamics; },
      "Runs from K inits (random:SEED+i:SCALE for a random --init): batch mode");
  t.add(
      "reweight-at", [](auto& o) -> auto& { return o.command.reweight_at; },
      "After this many steps switch J's phase weights to --weights (-1: never)");
  t.add(
      "weights", [](auto& o) -> auto& { return o.command.weights; },
      "Phase weights w0,w1,... from --reweight-at on");
  t.add(
      "record-every", [](auto& o) -> auto& { return o.command.record_every; },
      "Trajectory points every K steps");
  add_progress(t, &Options::progress);
  return t;
}

Work Dynamics::work() const {
  const auto& c = options_.command;
  return {c.estimate(), c.dynamics.runs(c.objective.window).size(), "runs"};
}

CommandInfo Diversity::info() {
  CommandInfo info{"diversity", "The 1/N diversification gain and blind phases of N heads (T3)"};
  info.details =
      "The 1/N diversification gap exactly over the head assignment, N*gap against C, blind "
      "phases; sampled assignments (--samples); joint training of heads (--train-heads).";
  return info;
}

OptionTable<Diversity::Options> Diversity::table(const Environment&) {
  OptionTable<Options> t;
  add_diversity_model(
      t, [](auto& o) -> auto& { return o.command.t3; });
  t.add(
      "samples", [](auto& o) -> auto& { return o.command.samples; },
      "Also sample K head assignments (Monte Carlo check; 0: exact only)");
  t.add(
      "seed", [](auto& o) -> auto& { return o.command.seed; }, "Seed of the sampled assignments");
  t.add(
      "train-heads", [](auto& o) -> auto& { return o.command.train_heads; },
      "Also train H1,H2,... heads jointly on the output loss (T3)");
  t.add(
      "train-runs", [](auto& o) -> auto& { return o.command.train_runs; },
      "Training runs per head count");
  t.add(
      "train-steps", [](auto& o) -> auto& { return o.command.training.steps; }, "Training steps");
  t.add(
      "train-seed", [](auto& o) -> auto& { return o.command.training.seed; },
      "Run r, head h starts from random:TRAIN_SEED+1000r+h:SCALE");
  t.add(
      "lr", [](auto& o) -> auto& { return o.command.training.lr; },
      "Training learning rate (as in dynamics)");
  t.add(
      "init-scale", [](auto& o) -> auto& { return o.command.training.init_scale; },
      "SCALE of the head inits");
  t.add("window", [](auto& o) -> auto& { return o.command.channel.window; },
        "Window W of the heads' channel", {.short_name = "W"});
  t.add(
      "beta", [](auto& o) -> auto& { return o.command.channel.beta; },
      "beta of the heads' channel");
  t.add("entries", [](auto& o) -> auto& { return o.command.channel.entries; },
        "Entries N of the heads' channel", {.short_name = "N"});
  return t;
}

CommandInfo TheoremConcentration::info() {
  CommandInfo info{"theorem concentration",
                   "T1: the optimal gate is concentrated (one-hot in the linear model)"};
  info.details =
      "States T1 of theory/THEORY.md, checks it numerically and gives a verdict: exit 0 agree, 3 a "
      "counterexample inside the regime, 5 disagree outside it (the document's \"verdict\").";
  return info;
}

OptionTable<TheoremConcentration::Options> TheoremConcentration::table(const Environment&) {
  OptionTable<Options> t;
  add_objective(
      t, [](auto& o) -> auto& { return o.command.objective; }, true, kWeightsHelp, false);
  add_top_k(
      t, [](auto& o) -> auto& { return o.command.objective; });
  add_search(
      t, [](auto& o) -> auto& { return o.command.check.search; }, "Random starts of the optimizer");
  t.add(
      "threshold", [](auto& o) -> auto& { return o.command.check.threshold; },
      "Max weight that counts as concentrated");
  add_progress(t, &Options::progress);
  return t;
}

Work TheoremConcentration::work() const { return ascents(options_.command.work()); }

CommandInfo TheoremLockin::info() {
  CommandInfo info{
      "theorem lockin",
      "T2: the winner is the initial argmax and stays when the phases are re-weighted"};
  info.details =
      "States T2 of theory/THEORY.md, checks it numerically and gives a verdict: exit 0 agree, 3 a "
      "counterexample inside the regime, 5 disagree outside it (the document's \"verdict\").";
  return info;
}

OptionTable<TheoremLockin::Options> TheoremLockin::table(const Environment&) {
  OptionTable<Options> t;
  add_objective(
      t, [](auto& o) -> auto& { return o.command.objective; });
  add_dynamics(
      t, [](auto& o) -> auto& { return o.command.dynamics; },
      "Runs from K inits (random:SEED+i:SCALE)");
  t.add(
      "reweight-steps", [](auto& o) -> auto& { return o.command.reweight_steps; },
      "Steps after moving all phase weight to a phase the winner does not cover");
  add_progress(t, &Options::progress);
  return t;
}

Work TheoremLockin::work() const {
  return {options_.command.estimate(), options_.command.runs().size(), "runs"};
}

CommandInfo TheoremDiversity::info() {
  CommandInfo info{"theorem diversity", "T3: the diversification gain is C/N + O(1/N^2)"};
  info.details =
      "States T3 of theory/THEORY.md, checks it numerically and gives a verdict: exit 0 agree, 3 a "
      "counterexample inside the regime, 5 disagree outside it (the document's \"verdict\").";
  return info;
}

OptionTable<TheoremDiversity::Options> TheoremDiversity::table(const Environment&) {
  OptionTable<Options> t;
  add_diversity_model(
      t, [](auto& o) -> auto& { return o.command.t3; });
  t.add(
      "tolerance", [](auto& o) -> auto& { return o.command.check.tolerance; },
      "Allowed relative error of N*gap against C, and of the slope against -1");
  return t;
}

}  // namespace phasesim::commands
