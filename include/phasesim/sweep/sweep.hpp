#pragma once
// Parameter sweeps: a TOML file names a command and values for its options; the grid
// is the Cartesian product of every option given as a list.
//
//   command = "niah"          # a phasesim command (words separated by spaces)
//   seed = 7                  # sweep seed (default 1)
//   [options]
//   window = 8                # a scalar: the same value in every cell
//   stride = [2, 4, 8]        # a list: one axis of the grid
//   rms_norm = true           # option names: dashes or underscores
//   architectures = [["v4-csa", "nsa"]]   # a list inside the list: one value that is a list
//                                         # (compare's architectures, diversity's heads)
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace phasesim::sweep {

/// Between the items of a value that is a list (a TOML list inside the axis' list): a byte no
/// text option takes (a sweep file's string cannot hold it).
inline constexpr char kItemSeparator = '\x1f';

/// The items of a value: one for a scalar, several for a list.
std::vector<std::string> value_items(const std::string& value);

/// One option of a sweep: its CLI name (without dashes) and the values it takes, as the
/// text passed on the command line ("4", "0.5", "true", "uniform"), a list's items joined by
/// kItemSeparator.
struct SweepAxis {
  std::string name;
  std::vector<std::string> values;
};

struct SweepSpec {
  std::vector<std::string> command;  ///< e.g. {"theorem", "concentration"}
  std::uint64_t seed = 1;
  std::vector<SweepAxis> options;  ///< sorted by name; scalars are one-value axes
};

/// One point of the grid. Its id and seed depend only on the sweep seed and the cell's
/// own option values, so adding values to an axis leaves existing cells unchanged.
struct SweepCell {
  std::vector<std::pair<std::string, std::string>> options;  ///< (name, value) by name
  std::string id;      ///< 16 hex digits naming the cell's files
  std::uint64_t seed;  ///< the seed the cell runs with unless the sweep fixes --seed
};

/// The most cells one sweep may have: planning checks every cell's command line (about
/// 0.1 ms each) and the manifest lists them all, so a million-cell grid would spend
/// minutes and hundreds of MB before the first cell runs.
inline constexpr std::size_t kMaxSweepCells = 100000;

/// Reads and validates a sweep file; throws InputError with the file name on bad input.
SweepSpec read_sweep_file(const std::filesystem::path& path);

/// Every cell of the grid, the last option varying fastest.
std::vector<SweepCell> expand_grid(const SweepSpec& spec);

}  // namespace phasesim::sweep
