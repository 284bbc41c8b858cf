#include "cli/interrupt.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

#include "cli/command.hpp"

namespace phasesim::cli {
namespace {

// A signal handler can reach only static storage and may call only async-signal-safe
// functions (write, _exit): the message waits here, complete, before the handler can run.
// The one piece of process-wide state in the program, and the reason it exists.
char interrupt_message[4096];
volatile std::sig_atomic_t interrupt_length = 0;

extern "C" void say_interrupted(int) {
  // A progress bar may be half drawn on the terminal: start a fresh line.
  const char newline = '\n';
  (void)!::write(STDERR_FILENO, &newline, 1);
  (void)!::write(STDERR_FILENO, interrupt_message, static_cast<std::size_t>(interrupt_length));
  ::_exit(kInterrupted);
}

}  // namespace

void on_interrupt(const std::string& message) {
  interrupt_length = 0;  // a signal now prints nothing rather than half a message
  const auto text = message + "\n";
  const auto length = std::min(text.size(), sizeof interrupt_message);
  std::memcpy(interrupt_message, text.data(), length);
  interrupt_length = static_cast<std::sig_atomic_t>(length);
  std::signal(SIGINT, say_interrupted);
}

}  // namespace phasesim::cli
