#include "call.hpp"

#include <exception>
#include <utility>

#include "phasesim/core/error.hpp"

namespace phasesim::python {

commands::Context Watch::context(const commands::Prepared& prepared) {
  progress_ = prepared.progress();
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
    if (PyErr_Occurred()) throw py::error_already_set();  // the KeyboardInterrupt of Ctrl-C
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
}

}  // namespace phasesim::python
