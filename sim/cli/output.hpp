#pragma once
// What every command writes: a JSON document (schema, command, parameters, results)
// and a human-readable table on stdout.
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/document.hpp"

namespace phasesim::cli {

/// Declares --json PATH on a command ("-" writes the JSON to stdout instead of a table).
void add_json_option(CLI::App& command, std::string& path);

/// Refuses an empty value of one of the CLI's own options ('' in the shell would read as no
/// file), as the commands' tables refuse theirs: "invalid --json '' (an empty value: ...)".
void refuse_empty(CLI::Option& option);

/// Writes the document to `path` atomically, or to stdout for "-" (commands::write_document);
/// no-op when empty.
void write_json(const std::string& path, const Json& document);

/// Prints "phasesim COMMAND: warning: W" on stderr for each warning, except when `out` is a
/// sweep cell's null sink (its JSON carries them).
void warn(const std::string& command, const std::vector<std::string>& warnings,
          const std::ostream& out);

/// Prints "phasesim COMMAND: note: this run is estimated to take about ..." on stderr when
/// the estimate is over a minute (not for a sweep cell's null sink).
void announce_long_run(const std::string& command, const WorkEstimate& estimate, int threads,
                       const std::ostream& out);

/// True when the table should be printed (the JSON does not go to stdout).
inline bool wants_table(const std::string& json_path) { return json_path != "-"; }

/// A plain text table with right-aligned columns.
class Table {
 public:
  explicit Table(std::vector<std::string> header);
  void add_row(std::vector<std::string> cells);
  void print(std::ostream& out) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

/// The items separated by `separator`: join({"a", "b"}, ", ") is "a, b".
std::string join(const std::vector<std::string>& items, const std::string& separator);

/// Fixed-point text with `digits` decimals.
std::string fixed(double value, int digits = 6);

/// "0.6990" when exact, "0.6990 ± 0.0123" (the standard error) when sampled.
std::string with_error(double value, double se, bool exact);

/// "3 heads", or "1 head read by 64 query heads" when query heads share the caches: a model's
/// `caches` compressors read by `query_heads` query heads in all.
std::string heads_text(int caches, int query_heads);

}  // namespace phasesim::cli
