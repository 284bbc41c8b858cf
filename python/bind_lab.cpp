// train and diagnose: the training lab, and from a per-group table back to the model.
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "bind.hpp"
#include "call.hpp"
#include "phasesim/diagnose/diagnose.hpp"
#include "phasesim/training/report.hpp"
#include "phasesim/training/train.hpp"

namespace phasesim::python {
namespace {

struct TrainArguments {
  training::LabSpec spec;
  int threads = 0;
  bool progress = false;
};

py::object train(const TrainArguments& a) {
  return run_command("train", a.progress, [&](Watch& watch) {
    a.spec.validate();
    check_threads(a.threads);
    a.spec.check_work(Parallel{a.threads}.team());
    const auto steps = [&watch](const training::LabProgress& p) { watch.report(p.step); };
    const auto result = training::run_lab(a.spec, watch.parallel({a.threads}, false), steps);
    return training::lab_document(a.spec, result);
  });
}

struct DiagnoseArguments {
  std::string table;               ///< the table's file, or its name when csv is given
  std::optional<std::string> csv;  ///< the table as CSV text (from arrays or a DataFrame)
  diagnose::DiagnoseSpec spec;
  int threads = 0;
};

py::object diagnose_table(const DiagnoseArguments& a) {
  return run_command("diagnose", false, [&](Watch& watch) {
    const auto table =
        a.csv ? diagnose::parse_csv_table(*a.csv, a.table) : diagnose::read_table(a.table);
    diagnose::resolve_architecture(table, a.spec);
    stats::validate_period_options(a.spec.period, table.size());
    check_threads(a.threads);
    const auto diagnosis = diagnose::diagnose(table, a.spec, watch.parallel({a.threads}));
    return diagnose::diagnose_document(a.table, table, a.spec, diagnosis);
  });
}

}  // namespace

void add_lab_commands(py::module_& m) {
  using namespace pybind11::literals;
  const training::LabSpec d;
  m.def(
      "train",
      [](int window, int stride, int offset, int heads, int dim, std::int64_t context,
         double query_noise, bool rms_norm, bool content, bool per_channel, int query_heads,
         bool query_projection, double split_rho, double beta_out, double answers, int steps,
         int batch, const std::string& batches, double lr, double init_scale,
         std::optional<double> init_lambda, const py::int_& seed, int record_every, int log_every,
         int groups, int prompts, int threads, bool progress) {
        TrainArguments a;
        auto& s = a.spec;
        s.model.geometry = {window, stride, offset};
        s.model.heads = heads;
        s.model.dim = dim;
        s.model.context = context;
        s.model.query_noise = query_noise;
        s.model.rms_norm = rms_norm;
        s.model.content = content;
        s.model.per_channel = per_channel;
        s.model.query_heads = query_heads;
        s.model.query_projection = query_projection;
        s.model.split_rho = split_rho;
        s.model.beta_out = beta_out;
        s.model.loss.answers = answers;
        s.steps = steps;
        s.batch = batch;
        s.batches = training::parse_batches(batches);
        s.adam.lr = lr;
        s.init_scale = init_scale;
        s.init_lambda = init_lambda;
        s.seed = seed_value(seed, "train");
        s.record_every = record_every;
        s.log_every = log_every;
        s.groups = groups;
        s.prompts = prompts;
        a.threads = threads;
        a.progress = progress;
        return train(a);
      },
      py::kw_only(), "window"_a = d.model.geometry.window, "stride"_a = d.model.geometry.stride,
      "offset"_a = d.model.geometry.offset, "heads"_a = d.model.heads, "dim"_a = d.model.dim,
      "context"_a = d.model.context, "query_noise"_a = d.model.query_noise,
      "rms_norm"_a = d.model.rms_norm, "content"_a = d.model.content,
      "per_channel"_a = d.model.per_channel, "query_heads"_a = d.model.query_heads,
      "query_projection"_a = d.model.query_projection, "split_rho"_a = d.model.split_rho,
      "beta_out"_a = d.model.beta_out, "answers"_a = d.model.loss.answers, "steps"_a = d.steps,
      "batch"_a = d.batch, "batches"_a = training::to_string(d.batches), "lr"_a = d.adam.lr,
      "init_scale"_a = d.init_scale, "init_lambda"_a = py::none(), "seed"_a = d.seed,
      "record_every"_a = d.record_every, "log_every"_a = d.log_every, "groups"_a = d.groups,
      "prompts"_a = d.prompts, "threads"_a = 0, "progress"_a = false,
      R"(Train a tiny compressed-attention layer and read it with the NIAH protocol
(`phasesim train`, docs/TRAINING.md).

Model: window, stride, offset, heads, dim, context, query_noise, rms_norm, content (learn the
gate's content term), per_channel, query_heads, query_projection, split_rho (the real
compressor: a gate per channel, K query heads a cache, their projections, split projections),
beta_out, answers. Training: steps of Adam with lr, batch contexts per
step, batches ("shared" or "independent": each head its own batch), init_scale, init_lambda (default sqrt(dim), 1 with rms_norm), seed, record_every (gate
trajectory and loss curve), log_every. Evaluation: groups, prompts. threads; progress=True
shows the steps done on stderr. Returns the `train` document as a dict (gates, trajectory,
loss curve and the trained layer's NIAH table).)");
  const stats::PeriodOptions p;
  m.def(
      "_diagnose",
      [](std::string table, std::optional<std::string> csv, std::optional<int> window,
         std::optional<int> stride, std::optional<std::int64_t> context, std::optional<int> heads,
         int replicates, const py::int_& seed, int threads) {
        DiagnoseArguments a{
            std::move(table), std::move(csv), {window, stride, context, heads, {}}, threads};
        a.spec.period.replicates = replicates;
        a.spec.period.seed = seed_value(seed, "diagnose");
        return diagnose_table(a);
      },
      "table"_a, "csv"_a, py::kw_only(), "window"_a = py::none(), "stride"_a = py::none(),
      "context"_a = py::none(), "heads"_a = py::none(), "replicates"_a = p.replicates,
      "seed"_a = p.seed, "threads"_a = 0,
      "diagnose on a table file, or on CSV text named `table` (phasesim.diagnose calls it)");
}

}  // namespace phasesim::python
