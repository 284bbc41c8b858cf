// phasesim demo: the main job, a guided tour of the model a class can follow in a minute.
//
// Each step (cli/demo_tour.hpp) is an ordinary phasesim command line, run in-process
// through the same parser a user's command goes through, printing what it shows and what
// to look at, then its table, and writing its JSON into the demo folder; the figures come
// from the scripts in plots/ when a Python with matplotlib was found at configure time.
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/demo_tour.hpp"
#include "cli/interrupt.hpp"
#include "cli/output.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/files.hpp"
#include "phasesim/core/job.hpp"

namespace phasesim::cli {
namespace {

namespace fs = std::filesystem;

struct DemoOptions {
  std::string out = "phasesim-demo";
  bool figures = true;
};

// `text` wrapped at 90 columns, every line after the first indented by `indent` spaces.
std::string wrapped(const std::string& text, std::size_t indent) {
  std::istringstream words(text);
  std::string result, line;
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > 90) {
      result += line + "\n";
      line = std::string(indent, ' ');
    }
    line += (line.empty() || line.back() == ' ' ? "" : " ") + word;
  }
  return result + line + "\n";
}

std::string quoted(const std::string& text) {
  std::string result = "'";
  for (char c : text) result += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return result + "'";
}

void run_step(const DemoStep& step, const fs::path& dir, std::ostream& out) {
  out << "\n" << wrapped(step.title, 4) << wrapped(std::string("Look at: ") + step.look, 4);
  out << "\n$ phasesim " << step.command << "\n";
  std::istringstream words(step.command);
  std::vector<std::string> arguments(std::istream_iterator<std::string>{words}, {});
  arguments.push_back("--json=" + (dir / step.json).string());
  if (parse_arguments(arguments)(out) == kPredictionFailed)
    out << "(the check disagrees with the prediction here)\n";
}

// Renders the figures with plots/ and says how many were written and what each shows.
void render_figures(const fs::path& dir, std::ostream& out) {
  if (std::string(PHASESIM_PLOT_PYTHON).empty()) {
    out << "\nfigures skipped: no python3 with matplotlib was found when phasesim was built\n"
           "(scripts/install-deps.sh installs it)\n";
    return;
  }
  int written = 0;
  std::string list;
  for (const auto& figure : demo_figures()) {
    std::string command = quoted(PHASESIM_PLOT_PYTHON) + " " +
                          quoted((fs::path(PHASESIM_PLOTS_DIR) / figure.script).string());
    for (const auto& a : figure.arguments)
      command += " " + quoted(a.ends_with(".json") ? (dir / a).string() : a);
    command += " --out " + quoted((dir / "figures" / figure.name).string()) + " >/dev/null";
    if (std::system(command.c_str()) != 0) continue;
    ++written;
    list += "  " + wrapped(std::string(figure.name) + ".png: " + figure.shows, 6);
  }
  out << "\nfigures: " << written << " of " << demo_figures().size() << " written to "
      << (dir / "figures").string() << " (PNG and SVG)\n"
      << list;
}

// Makes the folders the tour writes into and checks every file of it, before the first step:
// a file where the figures folder goes would otherwise fail after the whole tour.
void prepare_folders(const DemoOptions& options) {
  const fs::path dir = options.out;
  check_output_folder(dir, "--out");
  std::vector<fs::path> folders{dir};
  if (options.figures) folders.push_back(dir / "figures");
  if (web_page_built()) folders.push_back(dir / "web");
  for (const auto& folder : folders) {
    std::error_code error;
    fs::create_directories(folder, error);
    require(fs::is_directory(folder, error),
            "invalid --out " + options.out + " (" + folder.string() +
                (fs::exists(folder, error) ? " exists and is not a folder)"
                                           : " cannot be created: " + error.message() + ")"));
  }
  for (const auto& step : demo_steps()) check_output_file(dir / step.json);
}

int run_demo(const DemoOptions& options, std::ostream& out) {
  const fs::path dir = options.out;
  prepare_folders(options);
  // From here on the folder fills step by step: Ctrl-C says where, not "nothing was written".
  on_interrupt("phasesim demo: interrupted; the JSON of the steps finished so far is in " +
               dir.string() + "/ (run the demo again for the rest)");
  out << "phasesim demo: how compressing a KV cache makes retrieval depend on a token's\n"
         "position, in four steps: the geometry, one model, the three theorems, many heads.\n";
  for (const auto& step : demo_steps()) run_step(step, dir, out);
  if (options.figures) on_root([&] { render_figures(dir, out); });  // in a job, once
  on_root([&] { copy_web_page(dir, out); });
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
      "A guided tour: geometry, per-group retrieval, the three theorems with a figure "
      "each, heads vs full attention");
  refuse_empty(
      *cmd->add_option("--out", options->out, "Folder for the JSON of every step and the figures")
           ->capture_default_str());
  cmd->add_flag("!--no-figures", options->figures, "Skip the figures (they need matplotlib)");
  cmd->callback([options, &action] {
    require(!options->out.empty(), "invalid --out '' (must name a folder)");
    action = [options](std::ostream& out) { return run_demo(*options, out); };
  });
}

}  // namespace phasesim::cli
