#pragma once
// The parallel policy: the one loop over independent items (trials, cells, restarts, runs)
// that every parallel computation in phasesim goes through, with the thread count and the
// chunking decided here and nowhere else.
//
// Items must be independent: item i reads shared inputs and writes only its own results
// (slot i of an output array), and every random number it draws is keyed by i. Results are
// then the same whatever the thread count or the split of items over threads, which is
// what lets a later policy spread the same items over processes.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <type_traits>
#include <vector>

namespace phasesim {

/// The most threads a loop may ask for. Each OpenMP thread reserves its own stack, so
/// --threads 100000 exhausts memory and crashes; no machine phasesim targets has more cores.
inline constexpr int kMaxThreads = 1024;

/// How a loop over independent items runs.
struct Parallel {
  int threads = 0;  ///< OpenMP threads; 0: the OpenMP default (OMP_NUM_THREADS, else all cores)
  /// Called after each item by the thread that ran it, so it must be thread-safe: how a
  /// long run shows its progress (cli/progress.hpp). Empty: nothing is called.
  std::function<void()> item_done = {};

  /// The number of threads a loop runs on, never above kMaxThreads (the CLI rejects more).
  int team() const { return std::min(threads > 0 ? threads : omp_get_max_threads(), kMaxThreads); }
};

namespace detail {

// Dynamic scheduling in chunks of about 1/16 of a thread's share: slow items do not idle
// the other threads, and cheap items (trials) do not pay for scheduling one by one.
inline int chunk_size(std::int64_t count, int team) {
  const std::int64_t chunk = count / (16 * static_cast<std::int64_t>(team));
  return static_cast<int>(std::clamp<std::int64_t>(chunk, 1, 64));
}

// The exception of the failing item with the lowest index, so that which error a run
// reports does not depend on the thread count either.
class FirstFailure {
 public:
  /// True when item i can no longer change the outcome (a lower item already failed).
  bool skip(std::int64_t i) const { return i > index_.load(std::memory_order_relaxed); }
  void record(std::int64_t i, std::exception_ptr error) {
    const std::lock_guard lock(mutex_);
    if (i < index_.load()) {
      index_.store(i);
      error_ = std::move(error);
    }
  }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::atomic<std::int64_t> index_{std::numeric_limits<std::int64_t>::max()};
  std::exception_ptr error_;
  std::mutex mutex_;
};

}  // namespace detail

/// Calls body(i, state) for every i in [0, count), each thread with its own
/// state = make_state() (scratch memory, a workspace). If items throw, the exception of the
/// lowest failing index is rethrown once the loop is done.
template <typename MakeState, typename Body>
void parallel_for(const Parallel& parallel, std::int64_t count, MakeState make_state, Body body) {
  const int team = parallel.team();
  const int chunk = detail::chunk_size(count, team);
  detail::FirstFailure failure;
#pragma omp parallel num_threads(team)
  {
    auto state = make_state();
#pragma omp for schedule(dynamic, chunk)
    for (std::int64_t i = 0; i < count; ++i) {
      if (failure.skip(i)) continue;
      try {
        body(i, state);
        if (parallel.item_done) parallel.item_done();
      } catch (...) {
        failure.record(i, std::current_exception());
      }
    }
  }
  failure.rethrow();
}

/// Calls body(i) for every i in [0, count); see above.
template <typename Body>
void parallel_for(const Parallel& parallel, std::int64_t count, Body body) {
  parallel_for(
      parallel, count, [] { return 0; }, [&](std::int64_t i, int) { body(i); });
}

/// The vector of f(0), ..., f(count - 1), computed in parallel.
template <typename F>
auto parallel_map(const Parallel& parallel, std::int64_t count, F f) {
  using Result = decltype(f(std::int64_t{0}));
  static_assert(!std::is_same_v<Result, bool>, "std::vector<bool> packs bits: threads would race");
  std::vector<Result> results(static_cast<std::size_t>(count));
  parallel_for(parallel, count,
               [&](std::int64_t i) { results[static_cast<std::size_t>(i)] = f(i); });
  return results;
}

}  // namespace phasesim
