#pragma once
// The tour `phasesim demo` takes (MODEL.md sections 2-5, theory/THEORY.md T1-T3): steps
// that are ordinary phasesim command lines, each with one plain sentence of what it shows
// and one of what to look at in its output, and the figures drawn from their JSON.
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

}  // namespace phasesim::cli
