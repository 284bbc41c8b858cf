// The compiled part of the `phasesim` Python package: the command objects of the library
// (phasesim/commands), described for the package's functions (_commands), run from their
// keyword arguments (_run), and the tidy table of a document (_tidy).
#include <pybind11/stl.h>

#include "call.hpp"
#include "phasesim/commands/command.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/tidy.hpp"
#include "phasesim/version.hpp"

namespace phasesim::python {
namespace {

commands::CommandRegistry registry() {
  return commands::builtin_commands(commands::default_environment());
}

// JSON as plain Python objects (lists, not NumPy arrays): a default as a signature shows it.
py::object plain(const Json& json) {
  return py::module_::import("json").attr("loads")(json.dump());
}

py::dict describe(const commands::Option& option) {
  py::dict d;
  d["name"] = option.name;
  d["keyword"] = option.python_name();
  d["kind"] = std::string(commands::kind_name(option.kind));
  d["default"] = plain(option.default_value);
  d["help"] = option.help;
  d["positional"] = option.positional;
  d["required"] = option.required;
  d["input_file"] = option.role == commands::Role::input_file;
  return d;
}

// Every command of the module: its name, function, summary and options.
py::list describe_commands() {
  py::list list;
  const auto commands = registry();
  for (const auto& command : commands.all()) {
    const auto& info = command->info();
    if (!info.in_python) continue;
    py::dict d;
    d["name"] = info.name;
    d["function"] = info.python_name();
    d["summary"] = info.summary;
    py::list options;
    for (const auto& option : command->options()) options.append(describe(option));
    d["options"] = options;
    list.append(d);
  }
  return list;
}

// The keyword arguments given (None: not given) as the options' typed values.
Json given_options(const commands::Command& command, const py::dict& kwargs) {
  Json given = Json::object();
  for (const auto& [key, value] : kwargs) {
    if (value.is_none()) continue;
    const auto& option = commands::find_option(command.options(), py::str(key).cast<std::string>());
    given[option.name] = from_python(option, value);
  }
  return given;
}

py::object run(const std::string& name, const py::dict& kwargs) {
  const auto commands = registry();
  const auto& command = commands.find(name);
  Json given;
  try {
    given = given_options(command, kwargs);
  } catch (const InputError& e) {
    throw py::value_error("phasesim " + name + ": " + e.what());
  }
  return run_command(command, given);
}

// The tidy table of a document (phasesim/core/tidy.hpp): columns and rows, a list of scalars
// as its JSON text (as results.csv writes it).
py::dict tidy(const std::string& document) {
  const auto table = tidy_table(Json::parse(document));
  py::list rows;
  for (const auto& row : table.rows) {
    py::list cells;
    for (const auto& cell : row)
      cells.append(cell.is_array() ? py::object(py::str(cell.dump())) : plain(cell));
    rows.append(cells);
  }
  py::dict d;
  d["columns"] = table.columns;
  d["rows"] = rows;
  return d;
}

}  // namespace
}  // namespace phasesim::python

PYBIND11_MODULE(_phasesim, m) {
  using namespace phasesim::python;
  m.doc() = "phasesim's library core: the command objects the phasesim package wraps";
  m.attr("__version__") = phasesim::kVersion;
  m.def("_commands", &describe_commands, "The commands and their options, for the package");
  m.def("_run", &run, py::arg("name"), py::arg("kwargs"),
        "Runs a command on its keyword arguments; returns its document");
  m.def("_tidy", &tidy, py::arg("document"), "The tidy table of a document given as JSON text");
}
