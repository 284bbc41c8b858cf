#pragma once
// The parallel policy: the one loop over independent items (trials, cells, restarts, runs)
// that every parallel computation in phasesim goes through, with the thread count, the
// chunking and the split over the ranks of an MPI job decided here and nowhere else.
//
// Items must be independent: item i reads shared inputs and writes only its own results
// (slot i of an output array), and every random number it draws is keyed by i. Results are
// then the same whatever the thread count or the split of items over threads and ranks.
//
// In an MPI job (core/job.hpp), parallel_map and parallel_rows split their items over the
// ranks: every thread of every rank takes the next items from a counter the job shares, and
// once all are done every rank has every result, so the code after the loop runs alike on
// every rank. A loop inside an item runs on the item's rank alone. parallel_for keeps its
// items in this process (its results are writes to memory that no other rank sees): in a
// job, every rank runs all of them.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "phasesim/core/bytes.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/job.hpp"

namespace phasesim {

/// The most threads a loop may ask for. Each OpenMP thread reserves its own stack, so
/// --threads 100000 exhausts memory and crashes; no machine phasesim targets has more cores.
inline constexpr int kMaxThreads = 1024;

/// How a loop over independent items runs.
struct Parallel {
  int threads = 0;  ///< OpenMP threads; 0: the OpenMP default (OMP_NUM_THREADS, else all cores)
  /// Called after each item with the number of items of the loop finished so far, in the whole
  /// job: one call at a time, on the rank that ran the item, with counts that only grow there.
  /// Empty: no calls.
  std::function<void(std::int64_t finished)> progress = {};
  /// Asked between items, on any thread (so it must be cheap and thread-safe): true stops the
  /// loop, which skips the items not yet started and throws Cancelled once the running ones
  /// finish. How an embedding program (the Python module) lets Ctrl-C end a run. Empty: never.
  std::function<bool()> stop = {};

  /// The number of threads a loop runs on, never above kMaxThreads (the CLI rejects more).
  int team() const { return std::min(threads > 0 ? threads : omp_get_max_threads(), kMaxThreads); }
};

/// A loop stopped by Parallel::stop: its results are incomplete, so none are returned.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

/// A stop point inside a long item (the steps of one dynamics run, one exact row of many
/// heads): throws Cancelled when Parallel::stop says so, so that Ctrl-C in Python ends the
/// run within a second, not when the item ends. Cheap enough to call every step.
inline void check_stop(const Parallel& parallel) {
  if (parallel.stop && parallel.stop()) throw Cancelled();
}

/// Throws InputError unless 0 <= threads <= kMaxThreads (what --threads and threads= take).
inline void check_threads(int threads) {
  require(threads >= 0 && threads <= kMaxThreads,
          "invalid --threads " + std::to_string(threads) + " (must be in [0, " +
              std::to_string(kMaxThreads) + "]; 0 uses the OpenMP default)");
}

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
  /// The lowest failing index (the largest int64 when none failed) and its exception.
  std::int64_t index() const { return index_.load(); }
  const std::exception_ptr& error() const { return error_; }

 private:
  std::atomic<std::int64_t> index_{std::numeric_limits<std::int64_t>::max()};
  std::exception_ptr error_;
  std::mutex mutex_;
};

// Runs item i unless a lower item already failed or the loop was stopped, and records its
// failure. A stop is recorded as the failure of item -1, below every item, so the loop skips
// all that remain and rethrows Cancelled.
template <typename State, typename Body>
void run_item(const Parallel& parallel, std::int64_t i, State& state, Body& body,
              FirstFailure& failure) {
  if (failure.skip(i)) return;
  if (parallel.stop && parallel.stop()) {
    failure.record(-1, std::make_exception_ptr(Cancelled()));
    return;
  }
  try {
    body(i, state);
  } catch (...) {
    failure.record(i, std::current_exception());
  }
}

// Hands Parallel::progress the finished count, one call at a time, in increasing order.
class ProgressCalls {
 public:
  explicit ProgressCalls(const Parallel& parallel) : callback_(parallel.progress) {}
  bool wanted() const { return static_cast<bool>(callback_); }
  /// Counts one more item finished (count() returns the new total) and reports it.
  template <typename Count>
  void report(Count count) {
    const std::lock_guard lock(mutex_);
    callback_(count());
  }

 private:
  const std::function<void(std::int64_t)>& callback_;
  std::mutex mutex_;
};

}  // namespace detail

/// Calls body(i, state) for every i in [0, count) in this process, each thread with its own
/// state = make_state() (scratch memory, a workspace). If items throw, the exception of the
/// lowest failing index is rethrown once the loop is done.
template <typename MakeState, typename Body>
void parallel_for(const Parallel& parallel, std::int64_t count, MakeState make_state, Body body) {
  const int team = parallel.team();
  [[maybe_unused]] const int chunk = detail::chunk_size(count, team);  // OpenMP's schedule
  detail::FirstFailure failure;
  detail::ProgressCalls progress(parallel);
  std::int64_t finished = 0;  // guarded by progress
#pragma omp parallel num_threads(team)
  {
    auto state = make_state();
#pragma omp for schedule(dynamic, chunk)
    for (std::int64_t i = 0; i < count; ++i) {
      detail::run_item(parallel, i, state, body, failure);
      if (progress.wanted()) progress.report([&] { return ++finished; });
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

namespace detail {

/// Items [begin, end) that one rank ran.
struct Chunk {
  std::int64_t begin = 0, end = 0;
};

// Runs the items this rank takes from the job's shared counter, every thread taking chunks
// of about 1/16 of a worker's share; returns the chunks it ran.
template <typename MakeState, typename Body>
std::vector<Chunk> run_share(const Parallel& parallel, std::int64_t count, MakeState& make_state,
                             Body& body, FirstFailure& failure) {
  const int team = parallel.team();
  const std::int64_t workers = static_cast<std::int64_t>(team) * job_rank().size;
  const std::int64_t chunk = std::max<std::int64_t>(1, count / (16 * workers));
  JobLoop loop;
  ProgressCalls progress(parallel);
  std::vector<std::vector<Chunk>> taken(static_cast<std::size_t>(team));
#pragma omp parallel num_threads(team)
  {
    auto state = make_state();
    auto& mine = taken[static_cast<std::size_t>(omp_get_thread_num())];
    for (std::int64_t begin = loop.take(chunk); begin < count; begin = loop.take(chunk)) {
      mine.push_back({begin, std::min(begin + chunk, count)});
      for (std::int64_t i = begin; i < mine.back().end; ++i) {
        run_item(parallel, i, state, body, failure);
        if (progress.wanted()) progress.report([&] { return loop.finish_one(); });
      }
    }
  }
  std::vector<Chunk> chunks;
  for (const auto& t : taken) chunks.insert(chunks.end(), t.begin(), t.end());
  return chunks;
}

// The loop under parallel_map and parallel_rows: body(i, state) for every item, split over the
// ranks where every rank runs this line, then every rank's output to every other rank:
// put(writer, begin, end) writes the output of items [begin, end), get(reader, begin, end)
// reads it back. A failed item makes every rank throw JobFailure naming the rank that ran it.
template <typename MakeState, typename Body, typename Put, typename Get>
void run_over_job(const Parallel& parallel, std::int64_t count, MakeState make_state, Body body,
                  Put put, Get get) {
  if (!on_every_rank()) {
    parallel_for(parallel, count, make_state, body);
    return;
  }
  FirstFailure failure;
  const auto chunks = run_share(parallel, count, make_state, body, failure);
  ByteWriter mine;
  mine.put(failure.index());
  if (failure.error()) mine.put(describe(failure.error()));
  mine.put(chunks);
  for (const auto& c : chunks) put(mine, c.begin, c.end);
  const auto all = all_bytes(mine.bytes());
  std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
  int owner = -1;
  Failure cause;
  for (int rank = 0; rank < static_cast<int>(all.size()); ++rank) {
    ByteReader in(all[static_cast<std::size_t>(rank)]);
    const auto index = in.get<std::int64_t>();
    if (index < lowest) {
      lowest = index;
      owner = rank;
      in.get(cause);
    } else if (index != std::numeric_limits<std::int64_t>::max()) {
      in.get<Failure>();
    }
    if (rank == job_rank().rank) continue;
    for (const auto& c : in.get<std::vector<Chunk>>()) get(in, c.begin, c.end);
  }
  if (owner >= 0) throw JobFailure(owner, cause.input, cause.message);
}

}  // namespace detail

/// The vector of f(0, state), ..., f(count - 1, state), computed in parallel (and over the
/// ranks of a job), each thread with its own state = make_state(). Results must be able to
/// cross ranks (core/bytes.hpp); if items throw, see parallel_for (in a job: JobFailure).
template <typename MakeState, typename F>
auto parallel_map(const Parallel& parallel, std::int64_t count, MakeState make_state, F f) {
  using State = decltype(make_state());
  using Result = decltype(f(std::int64_t{0}, std::declval<State&>()));
  static_assert(!std::is_same_v<Result, bool>, "std::vector<bool> packs bits: threads would race");
  std::vector<Result> results(static_cast<std::size_t>(count));
  detail::run_over_job(
      parallel, count, make_state,
      [&](std::int64_t i, State& state) { results[static_cast<std::size_t>(i)] = f(i, state); },
      [&](ByteWriter& out, std::int64_t begin, std::int64_t end) {
        out.put_range(results.data() + begin, static_cast<std::size_t>(end - begin));
      },
      [&](ByteReader& in, std::int64_t begin, std::int64_t end) {
        in.get_range(results.data() + begin, static_cast<std::size_t>(end - begin));
      });
  return results;
}

/// The vector of f(0), ..., f(count - 1), computed in parallel (and over the ranks of a job).
template <typename F>
auto parallel_map(const Parallel& parallel, std::int64_t count, F f) {
  return parallel_map(
      parallel, count, [] { return 0; }, [&](std::int64_t i, int) { return f(i); });
}

/// parallel_map with `width` results of type T per item, item after item in one vector:
/// f(i, state, row) fills row, the std::span<T> of item i's `width` results.
template <typename T, typename MakeState, typename F>
std::vector<T> parallel_rows(const Parallel& parallel, std::int64_t count, std::int64_t width,
                             MakeState make_state, F f) {
  std::vector<T> rows(static_cast<std::size_t>(count * width));
  const auto row = [&](std::int64_t i) { return rows.data() + i * width; };
  const auto size = [&](std::int64_t items) { return static_cast<std::size_t>(items * width); };
  detail::run_over_job(
      parallel, count, make_state,
      [&](std::int64_t i, auto& state) { f(i, state, std::span<T>(row(i), size(1))); },
      [&](ByteWriter& out, std::int64_t begin, std::int64_t end) {
        out.put_range(row(begin), size(end - begin));
      },
      [&](ByteReader& in, std::int64_t begin, std::int64_t end) {
        in.get_range(row(begin), size(end - begin));
      });
  return rows;
}

}  // namespace phasesim
