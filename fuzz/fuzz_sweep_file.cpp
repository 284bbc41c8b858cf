// Fuzzes sweep TOML files (read_sweep_file, expand_grid;
// include/phasesim/sweep/sweep.hpp): any file gives a sweep whose grid has one cell per
// combination of values and one option per axis in every cell, or one InputError.
#include <string>

#include "fuzz_input.hpp"
#include "phasesim/sweep/sweep.hpp"

namespace {

// Grids larger than this are skipped: how big a sweep may be is the sweep's own check.
constexpr std::size_t kMaxCells = 4096;

void check_sweep(const phasesim::sweep::SweepSpec& spec) {
  using phasesim::fuzz::check;
  check(!spec.command.empty(), "a command");
  std::size_t cells = 1;
  for (const auto& axis : spec.options) {
    check(!axis.values.empty(), "every axis has a value");
    cells *= axis.values.size();
    if (cells > kMaxCells) return;
  }
  const auto grid = phasesim::sweep::expand_grid(spec);
  check(grid.size() == cells, "one cell per combination of values");
  for (const auto& cell : grid) {
    check(cell.options.size() == spec.options.size(), "one option per axis in every cell");
    check(cell.id.size() == 16, "a 16-digit id");
    for (std::size_t a = 0; a < spec.options.size(); ++a)
      check(cell.options[a].first == spec.options[a].name, "the axes' options, in order");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const phasesim::fuzz::InputFile file(phasesim::fuzz::as_text(data, size), ".toml");
  phasesim::fuzz::expect_value_or_input_error(
      [&] { check_sweep(phasesim::sweep::read_sweep_file(file.path())); });
  return 0;
}
