// The browser's phasesim: the CLI's own commands (phasesim::cli::run), run on a list of
// arguments, returning the exit status and what the command printed. The page (web/phasesim.js)
// turns an options object into those arguments with --json -, so every document it shows or
// exports is the one `phasesim` writes, and bad input gets the CLI's one line.
#include <emscripten/bind.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/demo_tour.hpp"
#include "phasesim/core/document.hpp"

namespace {

struct Outcome {
  int status = 0;
  std::string out;  ///< stdout: the JSON document with --json -
  std::string err;  ///< stderr: warnings, or the line saying why the command stopped
};

// Points std::cout and std::cerr at strings for as long as it lives.
class Capture {
 public:
  Capture() : out_(std::cout.rdbuf(out_text_.rdbuf())), err_(std::cerr.rdbuf(err_text_.rdbuf())) {}
  ~Capture() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  std::string out() const { return out_text_.str(); }
  std::string err() const { return err_text_.str(); }

 private:
  std::ostringstream out_text_, err_text_;
  std::streambuf* out_;
  std::streambuf* err_;
};

// `arguments`: a JSON array of strings, the command line after "phasesim".
Outcome run_command(const std::string& arguments) {
  std::vector<std::string> words{"phasesim"};
  for (const auto& word : phasesim::Json::parse(arguments))
    words.push_back(word.get<std::string>());
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  const Capture capture;
  const int status = phasesim::cli::run(static_cast<int>(argv.size()), argv.data());
  return {status, capture.out(), capture.err()};
}

// The steps of `phasesim demo` as a JSON array of {title, look, command}: the page shows the
// demo's own words next to the panel that does what a step does.
std::string tour() {
  auto steps = phasesim::Json::array();
  for (const auto& step : phasesim::cli::demo_steps()) {
    steps.push_back({{"title", step.title}, {"look", step.look}, {"command", step.command}});
  }
  return steps.dump();
}

}  // namespace

EMSCRIPTEN_BINDINGS(phasesim) {
  emscripten::value_object<Outcome>("Outcome")
      .field("status", &Outcome::status)
      .field("out", &Outcome::out)
      .field("err", &Outcome::err);
  emscripten::function("run", &run_command);
  emscripten::function("tour", &tour);
}
