#include "call.hpp"

#include <exception>
#include <utility>

#include "phasesim/core/error.hpp"

namespace phasesim::python {

Parallel Watch::parallel(Parallel base, bool count_items) {
  base.stop = [this] { return stopped(); };
  if (progress_ && count_items) base.progress = [this](std::int64_t done) { report(done); };
  return base;
}

bool Watch::stopped() {
  if (stopped_.load(std::memory_order_relaxed)) return true;
  if (std::this_thread::get_id() != caller_) return false;
  const auto now = Clock::now();
  if (now - last_poll_ < std::chrono::milliseconds(100)) return false;
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

py::object run_command(const std::string& command, bool progress,
                       const std::function<Json(Watch&)>& compute) {
  Watch watch(command, progress);
  Json document;
  std::exception_ptr error;
  {
    const py::gil_scoped_release release;
    try {
      document = compute(watch);
    } catch (...) {
      error = std::current_exception();
    }
  }
  watch.finish();
  if (!error) return to_python(document);
  try {
    std::rethrow_exception(error);
  } catch (const InputError& e) {
    throw py::value_error("phasesim " + command + ": " + e.what());
  } catch (const Cancelled&) {
    if (PyErr_Occurred()) throw py::error_already_set();  // the KeyboardInterrupt of Ctrl-C
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
}

std::uint64_t seed_value(const py::int_& seed, const std::string& command,
                         const std::string& option) {
  const auto value = PyLong_AsUnsignedLongLong(seed.ptr());
  if (PyErr_Occurred()) {  // negative or above 2^64 - 1
    PyErr_Clear();
    throw py::value_error("phasesim " + command + ": invalid " + option + " '" +
                          seed.attr("__str__")().cast<std::string>() +
                          "' (must be an integer in [0, 2^64 - 1])");
  }
  return value;
}

void check_excludes(bool arch_given, bool given, const std::string& shorthand) {
  require(!(arch_given && given), "--arch excludes " + shorthand);
}

}  // namespace phasesim::python
