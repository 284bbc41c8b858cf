#pragma once
// How every binding runs a command: with the GIL released (other Python threads go on), on
// the parallel policy of threads= (Parallel), with Ctrl-C and the kernel's stop button
// honored between the items of a loop (Parallel::stop), progress on sys.stderr when asked,
// and the library's errors raised as Python's: InputError as ValueError with the CLI's line
// "phasesim COMMAND: what is wrong", a stopped run as KeyboardInterrupt.
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "phasesim/core/document.hpp"
#include "phasesim/core/parallel.hpp"

namespace phasesim::python {

namespace py = pybind11;

/// What a run needs from Python while the GIL is released: whether Ctrl-C was pressed (Python
/// learns it only from PyErr_CheckSignals, on the thread that called us, the one thread that
/// may handle signals) and where to show progress. Polled at most every 0.1 s.
class Watch {
 public:
  Watch(std::string label, bool progress) : label_(std::move(label)), progress_(progress) {}

  /// `base` with this watch as its stop hook and, when progress was asked and
  /// `count_items`, the loop's items as the progress shown.
  Parallel parallel(Parallel base = {}, bool count_items = true);

  /// Shows `done` as the progress (from any thread), for runs whose unit is not a loop's item
  /// (the steps of train).
  void report(std::int64_t done) { done_.store(done); }

  /// True once Ctrl-C was seen; the KeyboardInterrupt is then pending on the calling thread.
  bool stopped();

  /// Ends the progress line (with the GIL held).
  void finish() const;

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  bool progress_;
  std::thread::id caller_ = std::this_thread::get_id();
  std::atomic<bool> stopped_{false};
  std::atomic<std::int64_t> done_{0};
  std::atomic<std::int64_t> shown_{-1};
  Clock::time_point last_poll_ = Clock::now();  // read and written by the caller's thread only
};

/// Runs `compute` (which builds a command's document, given the watch) with the GIL released
/// and returns the document as Python objects (to_python). `command` names the command in
/// error messages, as the CLI does: "niah", "theorem lockin".
py::object run_command(const std::string& command, bool progress,
                       const std::function<Json(Watch&)>& compute);

/// A JSON document as Python objects: objects as dicts (keys in order), arrays of numbers as
/// NumPy arrays (int64 when every number is an integer, float64 otherwise), arrays of
/// equally long arrays of numbers as 2-D arrays, other arrays as lists.
py::object to_python(const Json& json);

/// A seed given as any Python int, as the CLI reads --seed: ValueError "phasesim COMMAND:
/// invalid OPTION '-1' (must be an integer in [0, 2^64 - 1])" outside that range (pybind11
/// alone would say TypeError).
std::uint64_t seed_value(const py::int_& seed, const std::string& command,
                         const std::string& option = "--seed");

/// Throws InputError("phasesim COMMAND: ..." is added by run_command) naming `shorthand` when
/// it was given with --arch, as the CLI refuses it.
void check_excludes(bool arch_given, bool given, const std::string& shorthand);

}  // namespace phasesim::python
