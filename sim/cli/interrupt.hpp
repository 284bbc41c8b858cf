#pragma once
// Ctrl-C (SIGINT) during a run: say where the results are (or that none were written, or
// how to resume a sweep) instead of vanishing without a word.
#include <string>

namespace phasesim::cli {

/// From now on, SIGINT prints `message` (one line) on stderr and ends the process with
/// exit status 130 (kInterrupted). A later call replaces the message.
void on_interrupt(const std::string& message);

}  // namespace phasesim::cli
