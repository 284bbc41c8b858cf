// phasesim demo: the main job, a guided tour of the model in under a minute.
//
// Each step is an ordinary phasesim command line, run in-process through the same parser a
// user's command goes through, printing its table and writing its JSON into the demo folder;
// the figures come from plots/ when a Python with matplotlib was found at configure time.
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/job.hpp"

namespace phasesim::cli {
namespace {

namespace fs = std::filesystem;

struct DemoOptions {
  std::string out = "phasesim-demo";
  bool figures = true;
};

struct Step {
  const char* title;    ///< what the step shows, printed above its table
  const char* command;  ///< the phasesim command line, words separated by spaces
  const char* json;     ///< file name in the demo folder
};

// Step 2: the V4-like model fitted by experiments/v4-calibration (best 69.9, worst 29.7).
// 4.1483: the beta at which 8 full-attention heads have the published mean 61.1 (w8s8-heads).
constexpr Step kTour[] = {
    {"1. Geometry. V4 pools W = 8 tokens every S = 4: every token has a phase (position\n"
     "   mod 4), and each phase owns two of the eight slots. A gate that puts its weight\n"
     "   on the newest slot covers phase 3 only.",
     "coverage --window 8 --stride 4 --gate last", "coverage.json"},
    {"2. Per-group retrieval in a V4-like model (one head biased by 0.35 nats towards the\n"
     "   newest slot, beta 9.51, fitted to V4's best 69.9 / worst 29.7; 8 groups x 256\n"
     "   prompts, 131072 tokens). Groups r and r + 4 share a phase: the profile has period 4.",
     "niah --window 8 --stride 4 --gates logits:0,0,0,0,0,0,0,0.3465 --beta 9.5135 --seed 4",
     "niah_v4.json"},
    {"3a. T1 concentration: in the threshold regime the optimal gate puts (almost) all of\n"
     "    its weight on one slot.",
     "theorem concentration --beta 5", "theorem_concentration.json"},
    {"3b. T2 lock-in: training keeps the initial argmax slot, even when the objective\n"
     "    later moves all its weight to a phase that slot does not cover.",
     "theorem lockin", "theorem_lockin.json"},
    {"3c. T3 diversification: spreading heads over phases gains the training loss only\n"
     "    C/N, while with few heads some phase is likely left blind.",
     "theorem diversity", "theorem_diversity.json"},
    {"4a. W8/S8 with 8 heads (random concentrated gates): a respectable mean, but a phase\n"
     "    that no head covers sits at chance.",
     "niah --window 8 --stride 8 --heads 8 --gates random:1:10 --beta 4.1483 --seed 88",
     "niah_w8s8.json"},
    {"4b. Full attention with 8 heads at the same beta: about the same mean, and flat.",
     "niah --window 1 --stride 1 --heads 8 --gates last --beta 4.1483 --seed 88", "niah_full.json"},
};

struct Figure {
  std::string script;
  std::vector<std::string> arguments;  ///< input files (in the demo folder) and options
  std::string name;
};

std::vector<Figure> figures() {
  return {
      {"niah_bars.py", {"niah_v4.json", "--label", "V4-like model"}, "v4_bars"},
      {"phase_clock.py",
       {"niah_v4.json", "niah_full.json", "--label", "V4-like", "--label", "full attention"},
       "phase_clock"},
      {"niah_bars.py",
       {"niah_w8s8.json", "niah_full.json", "--label", "W8/S8, 8 heads", "--label",
        "full attention, 8 heads"},
       "w8s8_vs_full"},
      {"gate_heatmap.py", {"niah_w8s8.json"}, "w8s8_gates"},
  };
}

std::string quoted(const std::string& text) {
  std::string result = "'";
  for (char c : text) result += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return result + "'";
}

void run_step(const Step& step, const fs::path& dir, std::ostream& out) {
  out << "\n" << step.title << "\n\n$ phasesim " << step.command << "\n";
  std::istringstream words(step.command);
  std::vector<std::string> arguments(std::istream_iterator<std::string>{words}, {});
  arguments.push_back("--json=" + (dir / step.json).string());
  if (parse_arguments(arguments)(out) == kPredictionFailed)
    out << "(the check disagrees with the prediction here)\n";
}

// Renders the figures with plots/ and says how many were written.
void render_figures(const fs::path& dir, std::ostream& out) {
  if (std::string(PHASESIM_PLOT_PYTHON).empty()) {
    out << "\nfigures skipped: no python3 with matplotlib was found when phasesim was built\n"
           "(scripts/install-deps.sh installs it)\n";
    return;
  }
  int written = 0;
  for (const auto& figure : figures()) {
    std::string command = quoted(PHASESIM_PLOT_PYTHON) + " " +
                          quoted((fs::path(PHASESIM_PLOTS_DIR) / figure.script).string());
    for (const auto& a : figure.arguments)
      command += " " + quoted(a.ends_with(".json") ? (dir / a).string() : a);
    command += " --out " + quoted((dir / "figures" / figure.name).string()) + " >/dev/null";
    if (std::system(command.c_str()) == 0) ++written;
  }
  out << "\nfigures: " << written << " of " << figures().size() << " written to "
      << (dir / "figures").string() << " (PNG and SVG)\n";
}

int run_demo(const DemoOptions& options, std::ostream& out) {
  const fs::path dir = options.out;
  std::error_code error;
  fs::create_directories(dir, error);
  require(!error && fs::is_directory(dir),
          "invalid --out " + options.out + " (cannot create that directory)");
  out << "phasesim demo: phase-sensitive KV-cache compression in four steps.\n";
  for (const auto& step : kTour) run_step(step, dir, out);
  if (options.figures) on_root([&] { render_figures(dir, out); });  // in a job, once
  out << "\nEverything above is also data: the JSON of every step is in " << dir.string()
      << "/.\nNext: README.md (the tour and the commands), experiments/ (one folder per "
         "claim),\ntheory/THEORY.md (the statements and proofs).\n";
  return kSuccess;
}

}  // namespace

void add_demo_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<DemoOptions>();
  auto* cmd = app.add_subcommand(
      "demo",
      "A guided tour: geometry, per-group retrieval, the theorems, heads vs full attention");
  cmd->add_option("--out", options->out, "Folder for the JSON of every step and the figures")
      ->capture_default_str();
  cmd->add_flag("!--no-figures", options->figures, "Skip the figures (they need matplotlib)");
  cmd->callback([options, &action] {
    require(!options->out.empty(), "invalid --out '' (must name a folder)");
    action = [options](std::ostream& out) { return run_demo(*options, out); };
  });
}

}  // namespace phasesim::cli
