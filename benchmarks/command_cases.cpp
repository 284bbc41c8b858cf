#include "command_cases.hpp"

#include <cstdint>
#include <memory>
#include <utility>

#include "phasesim/commands/lab.hpp"
#include "phasesim/engines/plan.hpp"
#include "phasesim/frontier/frontier.hpp"
#include "phasesim/niah/architecture.hpp"
#include "phasesim/theorems/commands.hpp"

namespace phasesim::bench {
namespace {

using Sizes = std::vector<std::pair<std::string, std::int64_t>>;

std::string name_of(const std::string& command, const Sizes& sizes) {
  std::string name = "BM_" + command;
  for (const auto& [key, value] : sizes) name += "/" + key + ":" + std::to_string(value);
  return name;
}

// A command object, validated once, shared by its estimate and its runs.
template <typename Command, typename Estimate>
CommandCase command_case(const std::string& name, Command command, Estimate estimate) {
  command.validate();
  auto shared = std::make_shared<const Command>(std::move(command));
  return {name, [shared, estimate] { return estimate(*shared); },
          [shared] { return shared->document(shared->run(Parallel{1})).size(); }};
}

theorems::ObjectiveOptions objective(int window, int stride, double beta) {
  theorems::ObjectiveOptions o;
  o.window = window;
  o.stride = stride;
  o.beta = beta;
  return o;
}

constexpr std::pair<int, int> kWindows[] = {{8, 4}, {16, 8}, {32, 16}, {64, 32}, {128, 128}};
// Four slots a phase (W = 4S): beyond the success tables' two coordinates, the success rule's.
constexpr std::pair<int, int> kFourSlots[] = {{16, 4}, {32, 8}, {64, 16}};

// optimize (beta 6, N 32768) and dynamics (2000 steps from random:1:0.1, beta 4.5, N 32768) at
// four slots a phase.
void four_slot_cases(std::vector<CommandCase>& cases) {
  for (auto [w, s] : kFourSlots) {
    theorems::OptimizeCommand c;
    c.objective = objective(w, s, 6);
    c.objective.entries = 32768;
    cases.push_back(command_case(name_of("Optimize", {{"W", w}, {"S", s}, {"N", 32768}}), c,
                                 [](const auto& command) { return command.work().estimate; }));
  }
  for (auto [w, s] : kFourSlots) {
    theorems::DynamicsCommand c;
    c.objective = objective(w, s, 4.5);
    cases.push_back(command_case(name_of("Dynamics", {{"W", w}, {"S", s}, {"tau10", 0}}), c,
                                 [](const auto& command) { return command.estimate(); }));
  }
}

// optimize --window W --stride S --beta 6 --entries N (the command); phase-diagram
// --beta 2:12:2 --entries 1024,32768 --restarts 1 (notebooks/2-three-theorems.ipynb's grid);
// dynamics (2000 steps from random:1:0.1, beta 4.5, N 32768; content noise tau at two sizes).
void theory_cases(std::vector<CommandCase>& cases) {
  for (auto [w, s] : kWindows) {
    for (std::int64_t n : {32768, 1024}) {
      if (n == 1024 && w != 128) continue;  // the W = S = 128 figure was at N 1024
      theorems::OptimizeCommand c;
      c.objective = objective(w, s, 6);
      c.objective.entries = n;
      cases.push_back(command_case(name_of("Optimize", {{"W", w}, {"S", s}, {"N", n}}), c,
                                   [](const auto& command) { return command.work().estimate; }));
    }
  }
  for (auto [w, s] : kWindows) {
    theorems::PhaseDiagramCommand c;
    c.objective = objective(w, s, 6);
    c.betas = "2:12:2";
    c.entries = {1024, 32768};
    c.search.restarts = 1;
    cases.push_back(command_case(name_of("PhaseDiagram", {{"W", w}, {"S", s}}), c,
                                 [](const auto& command) { return command.work().estimate; }));
  }
  for (auto [w, s] : kWindows) {
    for (int tau10 : {0, 5}) {
      if (tau10 > 0 && w > 32) continue;
      theorems::DynamicsCommand c;
      c.objective = objective(w, s, 4.5);
      c.dynamics.content_noise = tau10 / 10.0;
      cases.push_back(command_case(name_of("Dynamics", {{"W", w}, {"S", s}, {"tau10", tau10}}), c,
                                   [](const auto& command) { return command.estimate(); }));
    }
  }
}

// theorem concentration and lockin (their defaults) and diversity --train-heads H
// --train-runs 2 --train-steps 200, at W = 8 and 32.
void check_cases(std::vector<CommandCase>& cases) {
  for (auto [w, s] : {std::pair{8, 4}, std::pair{32, 16}}) {
    theorems::ConcentrationCommand t1;
    t1.objective = objective(w, s, 5);
    cases.push_back(command_case(name_of("TheoremConcentration", {{"W", w}, {"S", s}}), t1,
                                 [](const auto& command) { return command.work().estimate; }));
    theorems::LockinCommand t2;
    t2.objective = objective(w, s, 6);
    cases.push_back(command_case(name_of("TheoremLockin", {{"W", w}, {"S", s}}), t2,
                                 [](const auto& command) { return command.estimate(); }));
    for (int heads : {4, 16}) {
      if (heads == 16 && w != 8) continue;
      theorems::DiversityCommand t3;
      t3.t3.model.stride = s;
      t3.t3.heads = {4, 8};
      t3.channel.window = w;
      t3.train_heads = {heads};
      t3.train_runs = 2;
      t3.training.steps = 200;
      cases.push_back(
          command_case(name_of("DiversityTraining", {{"W", w}, {"S", s}, {"heads", heads}}), t3,
                       [](const auto& command) { return command.estimate(); }));
    }
  }
}

CommandCase niah_case(const std::string& name, const std::string& engine,
                      const niah::NiahSpec& spec) {
  auto engines = std::make_shared<const engines::EngineRegistry>(engines::builtin_engines());
  auto plan =
      std::make_shared<const engines::NiahPlan>(engines::prepare(spec, engines->find(engine), 1));
  return {name, [plan] { return plan->estimate(); },
          [engines, plan] { return engines::run_niah(*plan, Parallel{1}).groups.size(); }};
}

// niah --engine analytic on `caches` layers' caches of W = S = 128, each with its own gate and
// read by `query` query heads (HCA, v4-hca, is 1 cache of 64), L = 131072, 128 groups of 1.
void analytic_cases(std::vector<CommandCase>& cases) {
  for (std::int64_t count : {1, 4}) {
    for (std::int64_t query : {1, 64}) {
      std::string toml = "name = \"bench\"\n";
      for (std::int64_t c = 0; c < count; ++c) {
        toml += "[[layer]]\nwindow = 128\nstride = 128\nquery_heads = " + std::to_string(query) +
                "\ngate = \"random:" + std::to_string(c + 1) + "\"\n";
      }
      niah::NiahSpec spec;
      spec.architecture = niah::parse_architecture(toml, "benchmark");
      spec.groups = 128;
      spec.prompts = 1;
      cases.push_back(niah_case(name_of("NiahAnalytic", {{"caches", count}, {"query", query}}),
                                "analytic", spec));
    }
  }
}

// niah --engine E, uniform gates, 16 prompts x 8 groups, from L 16384, W 8 (S = W / 2), d 16
// (none for fast: the standardized channel) and one head, each size times 4 in turn.
void engine_cases(std::vector<CommandCase>& cases) {
  for (const auto& [engine, command, dim] : {std::tuple{"fast", "NiahFast", 0},
                                             {"full", "NiahFull", 16},
                                             {"full-double", "NiahFullDouble", 16}}) {
    const Sizes base{{"L", 16384}, {"W", 8}, {"d", dim}, {"heads", 1}};
    std::vector<Sizes> grid{base};
    for (std::size_t k = 0; k < base.size(); ++k) {
      if (base[k].first == "d" && dim == 0) continue;
      auto sizes = base;
      sizes[k].second *= 4;
      grid.push_back(sizes);
    }
    for (const auto& sizes : grid) {
      niah::NiahSpec spec;
      spec.context = sizes[0].second;
      spec.geometry = {static_cast<int>(sizes[1].second), static_cast<int>(sizes[1].second / 2)};
      if (sizes[2].second > 0) {
        spec.dim = static_cast<int>(sizes[2].second);
        spec.query_noise = 1;
      }
      spec.heads = static_cast<int>(sizes[3].second);
      spec.gates = "uniform";
      spec.prompts = 16;
      cases.push_back(niah_case(name_of(command, sizes), engine, spec));
    }
  }
}

// The README's space (ratios 4, 16, 128; overlaps 1, 2; gates uniform, last, spread; top-k 0,
// 512; no sliding window: 36 designs) at each context without the presets (whose set changes
// as presets are added) and, at 128k, with them: what `frontier --context 131072` waits for.
void frontier_cases(std::vector<CommandCase>& cases) {
  auto engines = std::make_shared<const engines::EngineRegistry>(engines::builtin_engines());
  for (const auto& [context, presets] : {std::pair<std::int64_t, bool>{32768, false},
                                         {131072, false},
                                         {1048576, false},
                                         {131072, true}}) {
    frontier::FrontierSpec spec;
    spec.model.context = context;
    spec.space.sliding_windows = {0};
    spec.presets = presets;
    auto plan = std::make_shared<const frontier::FrontierPlan>(
        frontier::prepare_frontier(spec, *engines, 1));
    cases.push_back({name_of("Frontier", {{"L", context}, {"presets", presets ? 1 : 0}}),
                     [plan] { return plan->estimate; },
                     [engines, plan] {
                       return frontier::frontier_document(
                                  *plan, frontier::run_frontier(*plan, Parallel{1}))
                           .size();
                     }});
  }
}

// diagnose --threads 1 of tables niah --engine analytic made, as counts of 10^5 trials a group:
// the period tests and both one-head fits of a V4-like table (-W 8 -S 4 --gates
// weights:1,2,3,4,1,2,3,4 --beta 5, 8 groups at L 131072), a one-token fit under the read path
// (-W 4 -S 4 --gates weights:1,2,3,4 --beta 6 -L 8192 --top-k 16 --sliding-window 64) and the
// 2-token fit by the argmax (-W 2 -S 2 --needle-tokens 2 --gates weights:0.8,0.6 --beta 4
// -L 2048).
void diagnose_cases(std::vector<CommandCase>& cases) {
  struct Table {
    int window;
    std::int64_t context, top_k, sliding_window;
    int tokens;
    const char* csv;
  };
  const Table tables[] = {
      {8, 131072, 0, 0, 1,
       "group,successes,trials\n0,66,100000\n1,448,100000\n2,2180,100000\n3,8159,100000\n"
       "4,66,100000\n5,448,100000\n6,2180,100000\n7,8159,100000\n"},
      {4, 8192, 16, 64, 1,
       "group,successes,trials\n0,1685,100000\n1,17175,100000\n2,69676,100000\n"
       "3,98783,100000\n"},
      {2, 2048, 0, 0, 2, "group,successes,trials\n0,95623,100000\n1,18569,100000\n"}};
  const auto environment = commands::default_environment();
  for (const auto& t : tables) {
    commands::Diagnose::Options o;
    o.table = {"table.csv", t.csv};
    o.spec.window = t.window;
    o.spec.stride = t.window == 8 ? 4 : t.window;
    o.spec.context = t.context;
    if (t.top_k > 0) o.spec.top_k = t.top_k;
    if (t.sliding_window > 0) o.spec.sliding_window = t.sliding_window;
    o.spec.needle_tokens = t.tokens;
    auto command = std::make_shared<const commands::Diagnose>(o, environment);
    cases.push_back({name_of("Diagnose", {{"W", t.window}, {"k", t.top_k}, {"n", t.tokens}}),
                     [command] { return command->work().estimate; },
                     [command] { return command->document(command->run({Parallel{1}})).size(); }});
  }
}

}  // namespace

std::vector<CommandCase> command_cases() {
  std::vector<CommandCase> cases;
  theory_cases(cases);
  four_slot_cases(cases);
  check_cases(cases);
  analytic_cases(cases);
  engine_cases(cases);
  frontier_cases(cases);
  diagnose_cases(cases);
  return cases;
}

}  // namespace phasesim::bench
