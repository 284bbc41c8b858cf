// The browser's phasesim: the library's command objects (phasesim/commands), run on the page's
// options object as the Python module runs them on keyword arguments, returning the exit
// status the CLI would give and the command's JSON document; and what the page draws besides:
// the geometry, the presets and their fits, the demo's tour, the tidy CSV of a document.
#include <emscripten/bind.h>

#include <string>

#include "cli/demo_tour.hpp"
#include "phasesim/commands/command.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/tidy.hpp"
#include "phasesim/model/coverage.hpp"
#include "phasesim/niah/architecture.hpp"

namespace {

using phasesim::Json;
namespace commands = phasesim::commands;

struct Outcome {
  int status = 0;
  std::string out;  ///< the JSON document, as the CLI writes it to a file
  std::string err;  ///< the line saying why the command stopped
};

// The page's values as the options' typed values: a string for an option that is not text
// comes from a text field, and is read as the CLI reads its words.
Json given_options(const commands::Command& command, const Json& options) {
  Json given = Json::object();
  for (const auto& [key, value] : options.items()) {
    if (value.is_null()) continue;
    const auto& option = commands::find_option(command.options(), key);
    const bool words = value.is_string() && option.item_kind() != commands::Kind::text;
    given[option.name] = words ? commands::read_text(option, value.get<std::string>()) : value;
  }
  return given;
}

// `options`: the command's options as a JSON object ({"window": 8, "gates": "last"}).
Outcome run(const std::string& name, const std::string& options) {
  const auto registry = commands::builtin_commands(commands::default_environment());
  try {
    const auto& command = registry.find(name);
    const auto prepared = command.prepare(given_options(command, Json::parse(options)));
    return {0, commands::run_prepared(*prepared, {}).dump(2) + "\n", ""};
  } catch (const phasesim::InputError& e) {
    return {2, "", "phasesim " + name + ": " + e.what()};
  } catch (const std::exception& e) {
    return {1, "", "phasesim " + name + ": internal error: " + e.what()};
  }
}

// The first `entries` entries of a geometry over the tokens (model/coverage.hpp).
Outcome geometry(int window, int stride, int offset, int entries) {
  try {
    return {0, phasesim::entries_document({window, stride, offset}, entries).dump(), ""};
  } catch (const phasesim::InputError& e) {
    return {2, "", std::string("phasesim: ") + e.what()};
  }
}

// The presets: [{name, description, fit}] (fit null where the file has none).
std::string presets() {
  auto list = Json::array();
  for (const auto& name : phasesim::niah::architecture_presets()) {
    const auto arch = phasesim::niah::load_architecture(name);
    Json fit;
    if (arch.fit) {
      fit = {{"table", arch.fit->table},
             {"beta", arch.fit->beta},
             {"one_gate", arch.fit->one_gate},
             {"one_gate_beta", arch.fit->one_gate_beta}};
    }
    list.push_back({{"name", arch.name}, {"description", arch.description}, {"fit", fit}});
  }
  return list.dump();
}

// The tidy table of a document as CSV: what results.csv and Python's to_frame hold.
std::string tidy_csv(const std::string& document) {
  return phasesim::tidy_csv(phasesim::tidy_table(Json::parse(document)));
}

// The steps of `phasesim demo` as a JSON array of {title, look, command}: the page shows the
// demo's own words next to the panel that does what a step does.
std::string tour() {
  auto steps = Json::array();
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
  emscripten::function("run", &run);
  emscripten::function("geometry", &geometry);
  emscripten::function("presets", &presets);
  emscripten::function("tidyCsv", &tidy_csv);
  emscripten::function("tour", &tour);
}
