#pragma once
// How the module runs a command object (phasesim/commands): with the GIL released (other
// Python threads go on), on the parallel policy of threads= (Parallel), with Ctrl-C and the
// kernel's stop button honored between the items of a loop (Parallel::stop), progress on
// sys.stderr when asked, and the library's errors raised as Python's: InputError as ValueError
// with the CLI's line "phasesim COMMAND: what is wrong", a stopped run as KeyboardInterrupt.
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "phasesim/commands/command.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/core/parallel.hpp"

namespace phasesim::python {

namespace py = pybind11;

/// What a run needs from Python while the GIL is released: whether Ctrl-C was pressed and
/// where to show progress. Python learns of Ctrl-C only from PyErr_CheckSignals, on its main
/// thread, polled here at most every 0.1 s when that thread asks; but the calling thread may
/// wait inside a loop while another thread runs its one long item (a dynamics run), so in the
/// main thread, for a run estimated at 0.05 s or more, the watch also takes Python's wakeup fd
/// (signal.set_wakeup_fd) and a thread of its own waits on it: the byte Python's handler
/// writes there for SIGINT stops the run at once, while the loops' threads only read a flag.
/// Made and destroyed with the GIL held; the wakeup fd and its bytes go back to whoever had
/// them.
class Watch {
 public:
  explicit Watch(std::string label);
  ~Watch();
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;

  /// The context of a prepared command: its threads, this watch as the stop hook and, when
  /// the command's progress= asks for it, its items (or train's steps) as the progress shown.
  /// Called by the caller's thread with the GIL released.
  commands::Context context(const commands::Prepared& prepared);

  /// True once Ctrl-C was seen; the KeyboardInterrupt is then pending on the calling thread.
  bool stopped();

  /// Ends the progress line (with the GIL held).
  void finish() const;

 private:
  using Clock = std::chrono::steady_clock;
  void report(std::int64_t done) { done_.store(done); }
  std::string label_;
  bool progress_ = false;
  std::thread::id caller_ = std::this_thread::get_id();
  std::atomic<bool> stopped_{false};
  std::atomic<std::int64_t> done_{0};
  std::atomic<std::int64_t> shown_{-1};
  Clock::time_point last_poll_ = Clock::now();  // read and written by the caller's thread only
  int wakeup_[2] = {-1, -1};  // the pipe Python's signal handler writes to during the run
  int previous_wakeup_ = -1;  // the wakeup fd before it, restored and given the bytes after
  bool main_ = false;         // called from Python's main thread, the one that gets signals
  std::atomic<bool> closing_{false};
  std::thread listener_;     // waits on the pipe until the watch closes
  void listen_for_sigint();  // takes the wakeup fd and starts the listener (main thread)
  void listen();
  bool drain();  // reads the pipe, hands its bytes on; true when SIGINT's was among them
};

/// Runs the command `name` of `given` (option names to typed values, from_python) with the
/// GIL released and returns its document as Python objects (to_python).
py::object run_command(const commands::Command& command, const Json& given);

/// A JSON document as Python objects: objects as dicts (keys in order), arrays of numbers as
/// NumPy arrays (int64 when every number is an integer, float64 otherwise), arrays of
/// equally long arrays of numbers as 2-D arrays, other arrays as lists.
py::object to_python(const Json& json);

/// A keyword argument as the typed value the option reads (commands/option.hpp): bool, int
/// (NumPy's too), float, str, os.PathLike (its path), dict and sequences (lists, tuples, NumPy
/// arrays) as JSON. Throws InputError naming the option for an int beyond 64 bits.
Json from_python(const commands::Option& option, py::handle value);

}  // namespace phasesim::python
