#pragma once
// What `train` prints: the progress log while it trains, then each head's gate, the covered
// and blind phases, and the trained layer's NIAH table beside the analytic prediction.
#include <chrono>
#include <iosfwd>

#include "phasesim/training/train.hpp"

namespace phasesim::cli {

/// One log line per call: step, loss, each head's max gate weight and slot, and with `eta`
/// the time left at the rate so far.
class TrainingLog {
 public:
  TrainingLog(std::ostream& out, bool eta) : out_(out), eta_(eta) {}
  void operator()(const training::LabProgress& progress);

 private:
  std::ostream& out_;
  bool eta_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void print_lab_header(const training::LabSpec& spec, std::ostream& out);
void print_lab_result(const training::LabSpec& spec, const training::LabResult& result,
                      double seconds, std::ostream& out);

}  // namespace phasesim::cli
