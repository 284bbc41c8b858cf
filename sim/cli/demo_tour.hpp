#pragma once
// The tour `phasesim demo` takes (MODEL.md sections 2-5, theory/THEORY.md T1-T3): steps
// that are ordinary phasesim command lines, each with one plain sentence of what it shows
// and one of what to look at in its output, and the figures drawn from their JSON.
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace phasesim::cli {

struct DemoStep {
  const char* title;    ///< what the step shows, in plain words, numbered
  const char* look;     ///< one sentence: what to look at in its output
  const char* command;  ///< the phasesim command line, words separated by spaces
  const char* json;     ///< its JSON, a file name in the demo folder
};

struct DemoFigure {
  const char* script;                  ///< in plots/
  std::vector<std::string> arguments;  ///< the steps' JSON files (*.json) and options
  const char* name;                    ///< NAME.png and NAME.svg in the figures folder
  const char* shows;                   ///< one line: what to see in it
};

const std::vector<DemoStep>& demo_steps();
const std::vector<DemoFigure>& demo_figures();

/// Whether scripts/build-web.sh has built the teaching page (web/) into build-web/.
bool web_page_built();

/// The teaching page, when built, copied into DIR/web/ (and a line saying where to open it);
/// otherwise a line saying how to build it.
void copy_web_page(const std::filesystem::path& dir, std::ostream& out);

}  // namespace phasesim::cli
