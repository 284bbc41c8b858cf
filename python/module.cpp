// The compiled part of the `phasesim` Python package: one function per command, keyword
// arguments named as the CLI's options, results as the command's JSON document.
#include "bind.hpp"
#include "phasesim/version.hpp"

PYBIND11_MODULE(_phasesim, m) {
  m.doc() = "phasesim's library core: one function per CLI command (see the phasesim package)";
  m.attr("__version__") = phasesim::kVersion;
  phasesim::python::add_model_commands(m);
  phasesim::python::add_niah_commands(m);
  phasesim::python::add_lab_commands(m);
  phasesim::python::add_theorem_commands(m);
  phasesim::python::add_sweep_command(m);
}
