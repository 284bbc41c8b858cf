#pragma once
// One add_* per group of commands; module.cpp calls them all.
#include <pybind11/pybind11.h>

namespace phasesim::python {

void add_model_commands(pybind11::module_& m);    // channel, coverage
void add_niah_commands(pybind11::module_& m);     // niah, compare
void add_lab_commands(pybind11::module_& m);      // train, diagnose
void add_theorem_commands(pybind11::module_& m);  // optimize ... theorem diversity
void add_sweep_command(pybind11::module_& m);     // sweep

}  // namespace phasesim::python
