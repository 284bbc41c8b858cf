// phasesim train: the log and the tables of training a tiny compressed-attention layer and
// reading it with the NIAH protocol.
#include <unistd.h>

#include <iostream>

#include "cli/door.hpp"
#include "cli/train_table.hpp"
#include "phasesim/commands/lab.hpp"
#include "phasesim/core/job.hpp"

namespace phasesim::cli {
namespace {

// The header, then a log line every --log-every steps: on stdout before the table, on stderr
// when stdout holds the JSON (--json -). In an MPI job every rank trains the same layer and
// rank 0 alone logs it, as it alone prints and writes.
void start_training(const commands::Train& train, commands::Context& context, bool table,
                    std::ostream& out) {
  auto& log = table ? out : std::cerr;
  const bool terminal = ::isatty(table ? STDOUT_FILENO : STDERR_FILENO) == 1;
  if (table) print_lab_header(train.spec(), out);
  if (job_rank().root())
    context.training_log = TrainingLog(log, train.options().progress || terminal);
}

void print_train(const commands::Train& train, const training::LabResult& result, double seconds,
                 std::ostream& out) {
  print_lab_result(train.spec(), result, seconds, out);
}

}  // namespace

void add_train_command(CLI::App& app, Action& action, const commands::Environment& environment) {
  Presenter<commands::Train> present{print_train};
  present.before = start_training;
  add_command<commands::Train>(app, action, environment, present);
}

}  // namespace phasesim::cli
