#pragma once
// A user's per-group needle-in-a-haystack table (MODEL.md section 5): successes out of
// trials for each group r = needle position mod G, read from CSV or from a `phasesim niah`
// JSON document, and validated row by row. `diagnose` goes from such a table back to the
// model (docs/DIAGNOSE.md).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "phasesim/stats/counts.hpp"

namespace phasesim::diagnose {

/// What a niah JSON says about the model that produced it (a CSV says nothing).
struct TableArchitecture {
  std::optional<int> window;
  std::optional<int> stride;
  std::optional<std::int64_t> context;
  std::optional<int> heads;
};

/// Input formats.
enum class TableFormat { csv_successes, csv_accuracy, niah_json };

/// The format as documents and tables name it: "csv-successes", "csv-accuracy", "niah-json".
const char* format_name(TableFormat format);

struct CountTable {
  std::vector<stats::GroupCount> groups;  ///< group r at index r, r = 0..G-1
  TableFormat format = TableFormat::csv_successes;
  TableArchitecture architecture;

  int size() const { return static_cast<int>(groups.size()); }
  std::int64_t successes() const;
  std::int64_t trials() const;
};

/// Groups and trials a table may have: the work of every test grows with both.
inline constexpr int kMaxGroups = 4096;
inline constexpr std::int64_t kMaxTrials = 1000000000;

/// Parses CSV with a header naming the columns group,successes,trials or
/// group,accuracy,trials (any order; blank lines and lines starting with '#' skipped).
/// Accuracies become successes = round(accuracy x trials). Throws InputError naming `name`,
/// the line and what is wrong: missing or duplicate groups, successes above trials,
/// negative or non-numeric values, accuracy outside [0, 1], fewer than two groups.
CountTable parse_csv_table(std::string_view text, const std::string& name);

/// Parses a `phasesim niah` JSON document from a Monte Carlo engine (an analytic one has
/// no trial counts): its groups, and its window, stride, context and heads.
CountTable parse_niah_table(std::string_view text, const std::string& name);

/// Reads a table file: a niah JSON when its first character is '{', CSV otherwise.
CountTable read_table(const std::filesystem::path& path);

}  // namespace phasesim::diagnose
