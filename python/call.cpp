#include "call.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <exception>
#include <utility>

#include "phasesim/core/error.hpp"

namespace phasesim::python {
namespace {

// signal.set_wakeup_fd (the C API's PySignal_SetWakeupFd is not exported by every Python):
// the previous fd, -1 for none.
int set_wakeup_fd(int fd) {
  return py::module_::import("signal").attr("set_wakeup_fd")(fd).cast<int>();
}

}  // namespace

Watch::Watch(std::string label) : label_(std::move(label)) {
  const auto threading = py::module_::import("threading");
  main_ = threading.attr("current_thread")().is(threading.attr("main_thread")());
}

void Watch::listen_for_sigint() {
  if (!main_ || ::pipe2(wakeup_, O_NONBLOCK | O_CLOEXEC) != 0) return;  // the caller's polls
  const py::gil_scoped_acquire gil;
  try {
    previous_wakeup_ = set_wakeup_fd(wakeup_[1]);
  } catch (const py::error_already_set&) {  // refused (an embedding's own rules): polls alone
    ::close(wakeup_[0]);
    ::close(wakeup_[1]);
    wakeup_[0] = wakeup_[1] = -1;
    return;
  }
  listener_ = std::thread([this] { listen(); });
}

Watch::~Watch() {
  if (wakeup_[0] < 0) return;
  try {
    set_wakeup_fd(previous_wakeup_);
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("phasesim: restoring signal.set_wakeup_fd");
  }
  closing_.store(true);
  const char wake = 0;  // no signal's number: the listener wakes, sees closing_ and returns
  (void)!::write(wakeup_[1], &wake, 1);
  listener_.join();
  drain();
  ::close(wakeup_[0]);
  ::close(wakeup_[1]);
}

void Watch::listen() {
  pollfd pipe{wakeup_[0], POLLIN, 0};
  while (!closing_.load()) {
    if (::poll(&pipe, 1, -1) < 0 && errno != EINTR) return;
    if (drain()) stopped_.store(true);
  }
}

bool Watch::drain() {
  unsigned char bytes[64];
  bool sigint = false;
  for (ssize_t n; (n = ::read(wakeup_[0], bytes, sizeof bytes)) > 0;) {
    for (ssize_t i = 0; i < n; ++i) {
      sigint = sigint || bytes[i] == SIGINT;
      // The previous reader (asyncio's loop) gets the signals' bytes, not the listener's 0.
      if (previous_wakeup_ >= 0 && bytes[i] != 0) (void)!::write(previous_wakeup_, bytes + i, 1);
    }
  }
  return sigint;
}

commands::Context Watch::context(const commands::Prepared& prepared) {
  progress_ = prepared.progress();
  // A thread per call costs about 0.2 ms: only for runs that may outlast a poll.
  if (prepared.work().estimate.seconds >= 0.05) listen_for_sigint();
  commands::Context context{Parallel{prepared.threads()}};
  context.parallel.stop = [this] { return stopped(); };
  if (progress_ && prepared.work().items > 0) {
    context.parallel.progress = [this](std::int64_t done) { report(done); };
  }
  if (progress_) context.training_log = [this](const training::LabProgress& p) { report(p.step); };
  return context;
}

bool Watch::stopped() {
  if (stopped_.load(std::memory_order_relaxed)) return true;
  if (std::this_thread::get_id() != caller_) return false;
  const auto now = Clock::now();
  if (now - last_poll_ < std::chrono::milliseconds(100)) return stopped_.load();
  last_poll_ = now;
  const py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) stopped_.store(true);
  const auto done = done_.load();
  if (progress_ && done != shown_.exchange(done)) {
    py::module_::import("sys").attr("stderr").attr("write")("\r" + label_ + ": " +
                                                            std::to_string(done) + " done");
  }
  return stopped_.load();
}

void Watch::finish() const {
  if (progress_ && shown_.load() >= 0) {
    py::module_::import("sys").attr("stderr").attr("write")(
        "\r" + label_ + ": " + std::to_string(done_.load()) + " done\n");
  }
}

py::object run_command(const commands::Command& command, const Json& given) {
  const auto& name = command.info().name;
  Watch watch(name);
  Json document;
  std::exception_ptr error;
  {
    const py::gil_scoped_release release;
    try {
      const auto prepared = command.prepare(given);
      document = prepared->run(watch.context(*prepared));
    } catch (...) {
      error = std::current_exception();
    }
  }
  watch.finish();
  if (!error) return to_python(document);
  try {
    std::rethrow_exception(error);
  } catch (const InputError& e) {
    throw py::value_error("phasesim " + name + ": " + e.what());
  } catch (const Cancelled&) {
    // The KeyboardInterrupt of Ctrl-C, raised by Python's handler now if no poll ran it yet.
    if (PyErr_Occurred() || PyErr_CheckSignals() != 0) throw py::error_already_set();
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
}

}  // namespace phasesim::python
