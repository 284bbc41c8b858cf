#include "cli/output.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "phasesim/commands/command.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/job.hpp"
#include "phasesim/core/parallel.hpp"

namespace phasesim::cli {

void add_json_option(CLI::App& command, std::string& path) {
  refuse_empty(*command.add_option(
      "--json", path, "Also write the results as JSON to PATH ('-': JSON on stdout, no table)"));
}

void refuse_empty(CLI::Option& option) {
  const auto name = option.get_name();
  const auto allowed = option.get_required() ? ")" : ", or leave " + name + " out)";
  option.check(CLI::Validator(
      [name, allowed](std::string& value) {
        require(!value.empty(), "invalid " + name + " '' (an empty value: give one" + allowed);
        return std::string();
      },
      ""));
}

void write_json(const std::string& path, const Json& document) {
  if (!path.empty()) commands::write_document(path, document);
}

void warn(const std::string& command, const std::vector<std::string>& warnings,
          const std::ostream& out) {
  if (out.rdbuf() != nullptr && job_rank().root()) {
    for (const auto& w : warnings)
      std::cerr << "phasesim " << command << ": warning: " << w << '\n';
  }
}

void announce_long_run(const std::string& command, const WorkEstimate& estimate, int threads,
                       const std::ostream& out) {
  const auto note = long_run_note(estimate, threads);
  if (!note.empty() && out.rdbuf() != nullptr && job_rank().root()) {
    std::cerr << "phasesim " << command << ": note: this run is " << note << '\n';
  }
}

Table::Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

void Table::add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> width;
  for (const auto& row : rows_) {
    width.resize(std::max(width.size(), row.size()));
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      out << (c ? "  " : "") << std::setw(static_cast<int>(width[c])) << row[c];
    }
    out << '\n';
  }
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? separator : "") + items[i];
  return text;
}

std::string fixed(double value, int digits) { return format_fixed(value, digits); }

std::string with_error(double value, double se, bool exact) {
  return fixed(value, 4) + (exact ? "" : " ± " + fixed(se, 4));
}

std::string heads_text(int caches, int query_heads) {
  const auto text = counted(caches, "head");
  return query_heads > caches ? text + " read by " + counted(query_heads, "query head") : text;
}

}  // namespace phasesim::cli
