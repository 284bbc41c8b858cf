// Fuzzes the reader of diagnose's per-group tables (read_table: CSV or a niah JSON;
// include/phasesim/diagnose/table.hpp): any text gives a table of groups 0..G-1 with
// 0 <= successes <= trials <= kMaxTrials and 2 <= G <= kMaxGroups, or one InputError.
#include "fuzz_input.hpp"
#include "phasesim/diagnose/table.hpp"

namespace {

void check_table(const phasesim::diagnose::CountTable& table) {
  using phasesim::fuzz::check;
  check(table.size() >= 2 && table.size() <= phasesim::diagnose::kMaxGroups,
        "2 to kMaxGroups groups");
  for (int r = 0; r < table.size(); ++r) {
    const auto& g = table.groups[r];
    check(g.group == r, "group r at index r");
    check(g.trials > 0 && g.trials <= phasesim::diagnose::kMaxTrials, "trials in 1..kMaxTrials");
    check(g.successes >= 0 && g.successes <= g.trials, "successes in 0..trials");
  }
  for (int period = 1; period <= table.size(); ++period) {
    if (table.size() % period != 0) continue;
    const auto pooled = phasesim::stats::pool_by_residue(table.groups, period);
    check(static_cast<int>(pooled.size()) == period, "one pooled count per residue");
  }
}

}  // namespace

// Through the file reader, as `diagnose TABLE` reads: a niah JSON or CSV by its first character.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const phasesim::fuzz::InputFile file(phasesim::fuzz::as_text(data, size), ".table");
  phasesim::fuzz::expect_value_or_input_error(
      [&] { check_table(phasesim::diagnose::read_table(file.path())); });
  return 0;
}
