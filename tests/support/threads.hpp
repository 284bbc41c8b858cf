#pragma once
// Thread invariance (docs/ARCHITECTURE.md, "The parallel policy"): a result keyed by its
// items' indices is the same on any number of threads. check_thread_invariance is the one way
// the tests check it: `run(parallel)` on one thread and on several, compared through `key`,
// which picks what must agree bit for bit (a JSON document, an outcome table, ...).
#include <doctest/doctest.h>

#include "phasesim/core/parallel.hpp"

namespace phasesim::test {

/// Thread counts the result is compared across: one, and more than the machine's 2 cores.
inline constexpr int kThreadCounts[] = {2, 3};

/// Returns the one-thread result, for further checks.
template <typename Run, typename Key>
auto check_thread_invariance(Run run, Key key) {
  auto one = run(Parallel{1});
  const auto reference = key(one);
  for (int threads : kThreadCounts) {
    CAPTURE(threads);
    CHECK(key(run(Parallel{threads})) == reference);
  }
  return one;
}

/// The same where the result compares itself (==).
template <typename Run>
auto check_thread_invariance(Run run) {
  return check_thread_invariance(run, [](const auto& result) { return result; });
}

}  // namespace phasesim::test
