#include "cli/output.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "phasesim/core/error.hpp"
#include "phasesim/core/files.hpp"
#include "phasesim/core/job.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/niah/architecture.hpp"

namespace phasesim::cli {

void add_json_option(CLI::App& command, std::string& path) {
  command.add_option("--json", path,
                     "Also write the results as JSON to PATH ('-': JSON on stdout, no table)");
}

void add_geometry_options(CLI::App& command, Geometry& geometry) {
  command.add_option("--window,-W", geometry.window, "Window W (tokens per entry)")
      ->capture_default_str();
  command.add_option("--stride,-S", geometry.stride, "Stride S (tokens between entries)")
      ->capture_default_str();
}

void add_arch_option(CLI::App& command, std::string& path,
                     const std::vector<std::string>& shorthand) {
  auto* option = command.add_option(
      "--arch", path,
      "Architecture: a TOML file of layers of heads (window, stride, offset, gate per head) or "
      "a preset (" +
          join(niah::architecture_presets(), ", ") + "); replaces " + join(shorthand, ", "));
  for (const auto& name : shorthand) option->excludes(name);
}

void add_threads_option(CLI::App& command, int& threads) {
  command.add_option("--threads", threads, "OpenMP threads (0: the OpenMP default)")
      ->capture_default_str();
}

void check_json_path(const std::string& path) {
  if (!path.empty() && path != "-") check_output_file(path);
}

void write_json(const std::string& path, const Json& document) {
  if (path.empty()) return;
  on_root([&] {  // in an MPI job every rank has the document; rank 0 writes it
    const std::string text = document.dump(2) + "\n";
    if (path == "-") {
      std::cout << text << std::flush;
    } else {
      write_file_atomically(path, text);
    }
  });
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

std::string heads_text(int caches, int query_heads) {
  const auto text = counted(caches, "head");
  return query_heads > caches ? text + " read by " + counted(query_heads, "query head") : text;
}

}  // namespace phasesim::cli
