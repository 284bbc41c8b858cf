#pragma once
// The MPI job a phasesim process may be one rank of (docs/ARCHITECTURE.md, "The parallel
// policy"; no MODEL.md section). Every rank runs the same command line: code outside the
// items of parallel loops runs on every rank alike, the loops split their items over the
// ranks (core/parallel.hpp) and hand every rank all results, and rank 0 alone writes.
//
// Without MPI support built, or when the process was not started by mpirun or srun, the job
// is this process alone and nothing here communicates.
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "phasesim/core/bytes.hpp"

namespace phasesim {

/// This process's place in its job.
struct JobRank {
  int rank = 0;  ///< 0 .. size - 1
  int size = 1;
  bool root() const { return rank == 0; }
};

/// The rank of this process: rank 0 of 1 outside an MPI job.
JobRank job_rank();

/// True where every rank of a multi-rank job runs the same code at once: outside the items
/// of parallel loops. Loops there split their items over the ranks and output is written by
/// rank 0 alone; inside an item, which runs on one rank, everything is local.
bool on_every_rank();

/// Joins the MPI job when the process was started as one of its ranks (by mpirun, or srun
/// with PMI or PMIx), and leaves it when destroyed; does nothing otherwise. One per process.
class JobSession {
 public:
  /// Throws InputError when started as one of several ranks by a build without MPI support.
  JobSession(int& argc, char**& argv);
  ~JobSession();
  JobSession(const JobSession&) = delete;
  JobSession& operator=(const JobSession&) = delete;

 private:
  [[maybe_unused]] bool joined_ = false;  // read by MPI builds alone
};

/// What every rank of a job throws at once when a step that ran on one rank failed: an item
/// of a parallel loop, or rank 0's part of on_root. what() is the cause; rank() names the
/// rank that saw it, input() tells bad input (InputError) from any other failure.
class JobFailure : public std::runtime_error {
 public:
  JobFailure(int rank, bool input, const std::string& cause)
      : std::runtime_error(cause), rank_(rank), input_(input) {}
  int rank() const { return rank_; }
  bool input() const { return input_; }

 private:
  int rank_;
  bool input_;
};

/// Every rank's `status`, in rank order: each rank calls it once it has done a step on its
/// own (parsing the command line, which checks output paths against its own view of the
/// file system), so that no rank starts work that another one refused.
std::vector<int> gather_status(int status);

/// Ends every rank of the job now, with exit status `status`, after a failure that only this
/// rank saw. Outside a job it ends this process.
[[noreturn]] void abort_job(int status);

namespace detail {

/// An exception as it crosses ranks: whether it was bad input, and its message.
struct Failure {
  bool input = false;
  std::string message;
};
Failure describe(const std::exception_ptr& error);

}  // namespace detail

template <>
struct Fields<detail::Failure> {
  static auto of(auto& f) { return std::tie(f.input, f.message); }
};

namespace detail {

/// Rank 0's bytes, on every rank (collective).
std::string broadcast(const std::string& bytes);

/// Every rank's bytes, in rank order (collective).
std::vector<std::string> all_bytes(const std::string& mine);

/// The shared state of one loop over items split over the ranks: a counter on rank 0 from
/// which every thread of every rank takes the next items (MPI one-sided atomics), so a rank
/// busy with slow items does not hold back the others, and a count of finished items.
/// Collective: every rank constructs it for the same loop, and destroys it after the loop.
class JobLoop {
 public:
  JobLoop();
  ~JobLoop();
  JobLoop(const JobLoop&) = delete;
  JobLoop& operator=(const JobLoop&) = delete;

  /// The first of the next `chunk` items that no thread of any rank has taken yet (counting
  /// from 0, unbounded: the caller stops at its count). Thread-safe.
  std::int64_t take(std::int64_t chunk);

  /// One more item finished here: the number of items finished in the whole job so far,
  /// this one included. Thread-safe.
  std::int64_t finish_one();

 private:
  std::mutex mutex_;  // one thread at a time in MPI (MPI_THREAD_SERIALIZED)
  struct Window;
  Window* window_;
};

}  // namespace detail

/// f() on rank 0 alone, and its result on every rank, where every rank runs this line
/// (on_every_rank()); f() here otherwise. If f throws on rank 0, every rank throws
/// JobFailure. The result must travel (core/bytes.hpp); f may return void.
///
///   on_root([&] { write_file_atomically(path, text); });  // written once, by rank 0
template <typename F>
auto on_root(F f) {
  using Result = decltype(f());
  if (!on_every_rank()) return f();
  ByteWriter mine;
  if (job_rank().root()) {
    try {
      if constexpr (std::is_void_v<Result>) {
        f();
        mine.put(true);
      } else {
        const Result result = f();
        mine.put(true);
        mine.put(result);
      }
    } catch (...) {
      mine.put(false);
      mine.put(detail::describe(std::current_exception()));
    }
  }
  const auto bytes = detail::broadcast(mine.bytes());
  ByteReader reader(bytes);
  if (!reader.get<bool>()) {
    const auto failure = reader.get<detail::Failure>();
    throw JobFailure(0, failure.input, failure.message);
  }
  if constexpr (!std::is_void_v<Result>) return reader.get<Result>();
}

}  // namespace phasesim
