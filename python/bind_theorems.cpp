// The theorem commands: optimize, phase-diagram, dynamics, diversity and the three checks
// of `theorem`, each a theorems::*Command filled from keyword arguments.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bind.hpp"
#include "call.hpp"
#include "phasesim/theorems/commands.hpp"

namespace phasesim::python {
namespace {

using namespace pybind11::literals;
using theorems::ObjectiveOptions;

// Validate, run and document, as the CLI does; the verdict of a check is in the document.
template <typename Command>
py::object run(const std::string& name, bool progress, const Command& command) {
  return run_command(name, progress, [&](Watch& watch) {
    command.validate();
    return command.document(command.run(watch.parallel()));
  });
}

ObjectiveOptions objective(int window, int stride, double beta, std::int64_t entries,
                           std::string model, std::vector<double> weights = {}) {
  return {window, stride, beta, entries, std::move(model), std::move(weights)};
}

theorems::OptimizeSettings search(int restarts, const py::int_& seed, double init_scale,
                                  int max_iterations, const std::string& command) {
  theorems::OptimizeSettings s;
  s.restarts = restarts;
  s.seed = seed_value(seed, command);
  s.init_scale = init_scale;
  s.max_iterations = max_iterations;
  return s;
}

theorems::DynamicsOptions dynamics(int steps, double lr, double max_logit_step, std::string update,
                                   double content_noise, std::vector<std::uint64_t> content_seed,
                                   int content_samples, std::string init, int inits) {
  return {steps,
          lr,
          max_logit_step,
          std::move(update),
          content_noise,
          std::move(content_seed),
          content_samples,
          std::move(init),
          inits};
}

theorems::DiversityModelOptions t3(int stride, std::vector<int> heads, double beta_out,
                                   double success, double answers) {
  return {{stride, beta_out, success, {answers}}, std::move(heads)};
}

const char* const kObjective =
    "The objective J: window W, stride S, beta, entries N (the needle's included), model "
    "(\"normalized\", \"linear\" or \"channels\")";
const char* const kSearch =
    "The optimizer: restarts (random starts random:SEED+r:SCALE besides the equal splits), "
    "seed, init_scale, max_iterations (L-BFGS iterations per start)";
const char* const kDynamics =
    "Dynamics: steps, lr, max_logit_step, update (\"gradient\" or \"replicator\"), "
    "content_noise, content_seed (a list: one run per seed), content_samples, init (a gate), "
    "inits (runs from K inits)";

}  // namespace

void add_theorem_commands(py::module_& m) {
  const theorems::OptimizeCommand o;
  m.def(
      "optimize",
      [](int window, int stride, double beta, std::int64_t entries, std::string model,
         std::vector<double> weights, int restarts, const py::int_& seed, double init_scale,
         int max_iterations, bool progress) {
        return run("optimize", progress,
                   theorems::OptimizeCommand{
                       objective(window, stride, beta, entries, model, weights),
                       search(restarts, seed, init_scale, max_iterations, "optimize")});
      },
      py::kw_only(), "window"_a = o.objective.window, "stride"_a = o.objective.stride,
      "beta"_a = o.objective.beta, "entries"_a = o.objective.entries, "model"_a = o.objective.model,
      "weights"_a = std::vector<double>{}, "restarts"_a = o.search.restarts,
      "seed"_a = o.search.seed, "init_scale"_a = o.search.init_scale,
      "max_iterations"_a = o.search.max_iterations, "progress"_a = false,
      (std::string("The gate that maximizes J (`phasesim optimize`, T1).\n\n") + kObjective +
       "; weights: phase weights w0,w1,... of J (empty: uniform). " + kSearch +
       ". progress=True shows the ascents done. Returns the `optimize` document as a dict.")
          .c_str());

  const theorems::PhaseDiagramCommand p;
  m.def(
      "phase_diagram",
      [](int window, int stride, std::string model, std::string beta,
         std::vector<std::int64_t> entries, int restarts, const py::int_& seed, double init_scale,
         int max_iterations, bool progress) {
        return run("phase-diagram", progress,
                   theorems::PhaseDiagramCommand{
                       objective(window, stride, ObjectiveOptions{}.beta,
                                 ObjectiveOptions{}.entries, model),
                       beta, entries,
                       search(restarts, seed, init_scale, max_iterations, "phase-diagram")});
      },
      py::kw_only(), "window"_a = p.objective.window, "stride"_a = p.objective.stride,
      "model"_a = p.objective.model, "beta"_a = p.betas, "entries"_a = p.entries,
      "restarts"_a = p.search.restarts, "seed"_a = p.search.seed,
      "init_scale"_a = p.search.init_scale, "max_iterations"_a = p.search.max_iterations,
      "progress"_a = false,
      "Optimal k and max weight over (beta, N), and the critical beta*(N) (`phasesim "
      "phase-diagram`). beta: \"a:b:step\" (inclusive) or a comma list, as the CLI's --beta; "
      "entries: a list of N. progress=True shows the ascents done. Returns the `phase-diagram` "
      "document as a dict (\"rows\": one per cell).");

  const theorems::DynamicsCommand d;
  const auto& dd = d.dynamics;
  m.def(
      "dynamics",
      [](int window, int stride, double beta, std::int64_t entries, std::string model, int steps,
         double lr, double max_logit_step, std::string update, double content_noise,
         std::vector<std::uint64_t> content_seed, int content_samples, std::string init, int inits,
         int reweight_at, std::vector<double> weights, int record_every, bool progress) {
        return run(
            "dynamics", progress,
            theorems::DynamicsCommand{objective(window, stride, beta, entries, model),
                                      dynamics(steps, lr, max_logit_step, update, content_noise,
                                               content_seed, content_samples, init, inits),
                                      reweight_at, weights, record_every});
      },
      py::kw_only(), "window"_a = d.objective.window, "stride"_a = d.objective.stride,
      "beta"_a = d.objective.beta, "entries"_a = d.objective.entries, "model"_a = d.objective.model,
      "steps"_a = dd.steps, "lr"_a = dd.lr, "max_logit_step"_a = dd.max_logit_step,
      "update"_a = dd.update, "content_noise"_a = dd.content_noise,
      "content_seed"_a = dd.content_seeds, "content_samples"_a = dd.content_samples,
      "init"_a = dd.init, "inits"_a = dd.inits, "reweight_at"_a = d.reweight_at,
      "weights"_a = d.weights, "record_every"_a = d.record_every, "progress"_a = false,
      (std::string("Gradient ascent on the gate logits: lock-in (`phasesim dynamics`, T2).\n\n") +
       kObjective + ". " + kDynamics +
       ". reweight_at: after this many steps J's phase weights become `weights` (-1: never); "
       "record_every: trajectory points every K steps. Returns the `dynamics` document.")
          .c_str());

  const theorems::DiversityCommand v;
  m.def(
      "diversity",
      [](int stride, std::vector<int> heads, double beta_out, double success, double answers,
         int samples, const py::int_& seed, std::vector<int> train_heads, int train_runs,
         int train_steps, const py::int_& train_seed, double lr, double init_scale, int window,
         double beta, std::int64_t entries) {
        theorems::DiversityCommand c;
        c.t3 = t3(stride, heads, beta_out, success, answers);
        c.samples = samples;
        c.seed = seed_value(seed, "diversity");
        c.channel.window = window;
        c.channel.beta = beta;
        c.channel.entries = entries;
        c.train_heads = train_heads;
        c.train_runs = train_runs;
        c.training.steps = train_steps;
        c.training.seed = seed_value(train_seed, "diversity", "--train-seed");
        c.training.lr = lr;
        c.training.init_scale = init_scale;
        return run("diversity", false, c);
      },
      py::kw_only(), "stride"_a = v.t3.model.stride, "heads"_a = v.t3.heads,
      "beta_out"_a = v.t3.model.beta_out, "success"_a = v.t3.model.success,
      "answers"_a = v.t3.model.loss.answers, "samples"_a = v.samples, "seed"_a = v.seed,
      "train_heads"_a = v.train_heads, "train_runs"_a = v.train_runs,
      "train_steps"_a = v.training.steps, "train_seed"_a = v.training.seed, "lr"_a = v.training.lr,
      "init_scale"_a = v.training.init_scale, "window"_a = v.channel.window,
      "beta"_a = v.channel.beta, "entries"_a = v.channel.entries,
      "The 1/N diversification gain and blind phases of N heads (`phasesim diversity`, T3). "
      "stride S, heads (a list of N), beta_out, success p, answers M; samples: also sample K "
      "head assignments (seed). train_heads: also train H heads jointly (train_runs, "
      "train_steps, train_seed, lr, init_scale) on the channel of window, beta, entries. "
      "Returns the `diversity` document (\"rows\": one per N).");

  const theorems::ConcentrationCommand c;
  m.def(
      "theorem_concentration",
      [](int window, int stride, double beta, std::int64_t entries, std::string model,
         std::vector<double> weights, int restarts, const py::int_& seed, double init_scale,
         int max_iterations, double threshold, bool progress) {
        return run("theorem concentration", progress,
                   theorems::ConcentrationCommand{
                       objective(window, stride, beta, entries, model, weights),
                       {search(restarts, seed, init_scale, max_iterations, "theorem concentration"),
                        threshold}});
      },
      py::kw_only(), "window"_a = c.objective.window, "stride"_a = c.objective.stride,
      "beta"_a = c.objective.beta, "entries"_a = c.objective.entries, "model"_a = c.objective.model,
      "weights"_a = std::vector<double>{}, "restarts"_a = c.check.search.restarts,
      "seed"_a = c.check.search.seed, "init_scale"_a = c.check.search.init_scale,
      "max_iterations"_a = c.check.search.max_iterations, "threshold"_a = c.check.threshold,
      "progress"_a = false,
      "T1: the optimal gate is concentrated (`phasesim theorem concentration`). The arguments "
      "are optimize's, and threshold: the max weight that counts as concentrated. Returns the "
      "document; its \"verdict\" says agree, and inside or outside the regime (the CLI's exit "
      "status 0, 3 or 5).");

  const theorems::LockinCommand l;
  const auto& ld = l.dynamics;
  m.def(
      "theorem_lockin",
      [](int window, int stride, double beta, std::int64_t entries, std::string model, int steps,
         double lr, double max_logit_step, std::string update, double content_noise,
         std::vector<std::uint64_t> content_seed, int content_samples, std::string init, int inits,
         int reweight_steps, bool progress) {
        return run(
            "theorem lockin", progress,
            theorems::LockinCommand{objective(window, stride, beta, entries, model),
                                    dynamics(steps, lr, max_logit_step, update, content_noise,
                                             content_seed, content_samples, init, inits),
                                    reweight_steps});
      },
      py::kw_only(), "window"_a = l.objective.window, "stride"_a = l.objective.stride,
      "beta"_a = l.objective.beta, "entries"_a = l.objective.entries, "model"_a = l.objective.model,
      "steps"_a = ld.steps, "lr"_a = ld.lr, "max_logit_step"_a = ld.max_logit_step,
      "update"_a = ld.update, "content_noise"_a = ld.content_noise,
      "content_seed"_a = ld.content_seeds, "content_samples"_a = ld.content_samples,
      "init"_a = ld.init, "inits"_a = ld.inits, "reweight_steps"_a = l.reweight_steps,
      "progress"_a = false,
      "T2: the winner is the initial argmax and stays when the phases are re-weighted "
      "(`phasesim theorem lockin`). The arguments are dynamics', and reweight_steps. Returns "
      "the document with its \"verdict\".");

  const theorems::DiversityTheoremCommand t;
  m.def(
      "theorem_diversity",
      [](int stride, std::vector<int> heads, double beta_out, double success, double answers,
         double tolerance) {
        theorems::DiversityTheoremCommand command;
        command.t3 = t3(stride, heads, beta_out, success, answers);
        command.check.tolerance = tolerance;
        return run("theorem diversity", false, command);
      },
      py::kw_only(), "stride"_a = t.t3.model.stride, "heads"_a = t.t3.heads,
      "beta_out"_a = t.t3.model.beta_out, "success"_a = t.t3.model.success,
      "answers"_a = t.t3.model.loss.answers, "tolerance"_a = t.check.tolerance,
      "T3: the diversification gain is C/N + O(1/N^2) (`phasesim theorem diversity`). "
      "Returns the document with its \"verdict\".");
}

}  // namespace phasesim::python
