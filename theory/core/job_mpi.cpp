// The MPI job (core/job.hpp), built when CMake found MPI (PHASESIM_MPI, cmake/Mpi.cmake).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "phasesim/core/error.hpp"
#include "phasesim/core/job.hpp"

namespace phasesim {
namespace {

// What mpirun (Open MPI) and srun or mpiexec (through PMI or PMIx) set in every rank. Plain
// runs never call MPI_Init, which would start a singleton job for nothing.
bool started_as_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

bool in_job() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

// Bytes from `root` to every rank, in pieces whose sizes fit MPI's int counts.
std::string broadcast_from(int root, const std::string& bytes) {
  std::uint64_t size = bytes.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  std::string result = job_rank().rank == root ? bytes : std::string(size, '\0');
  constexpr std::uint64_t kPiece = 1 << 30;
  for (std::uint64_t at = 0; at < size; at += kPiece) {
    const auto piece = static_cast<int>(std::min(kPiece, size - at));
    MPI_Bcast(result.data() + at, piece, MPI_BYTE, root, MPI_COMM_WORLD);
  }
  return result;
}

}  // namespace

JobRank job_rank() {
  JobRank rank;
  if (in_job()) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &rank.size);
  }
  return rank;
}

JobSession::JobSession(int& argc, char**& argv) {
  if (!started_as_rank()) return;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw InputError(
        "this MPI library cannot take calls from OpenMP threads (MPI_THREAD_SERIALIZED), "
        "which phasesim needs: use Open MPI or MPICH");
  }
  joined_ = true;
}

JobSession::~JobSession() {
  if (joined_) MPI_Finalize();
}

std::vector<int> gather_status(int status) {
  const auto rank = job_rank();
  std::vector<int> all(static_cast<std::size_t>(rank.size), status);
  if (rank.size > 1) MPI_Allgather(&status, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
  return all;
}

void abort_job(int status) {
  if (in_job()) MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status);
}

namespace detail {

std::string broadcast(const std::string& bytes) { return broadcast_from(0, bytes); }

std::vector<std::string> all_bytes(const std::string& mine) {
  const auto rank = job_rank();
  std::vector<std::string> all;
  for (int r = 0; r < rank.size; ++r) all.push_back(broadcast_from(r, r == rank.rank ? mine : ""));
  return all;
}

// Two counters in rank 0's memory: the next item to take and the items finished.
struct JobLoop::Window {
  MPI_Win handle;
  std::int64_t* counters;
};

JobLoop::JobLoop() : window_(new Window) {
  const bool root = job_rank().root();
  const MPI_Aint bytes = root ? 2 * sizeof(std::int64_t) : 0;
  MPI_Win_allocate(bytes, sizeof(std::int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &window_->counters,
                   &window_->handle);
  if (root) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, window_->handle);
    window_->counters[0] = window_->counters[1] = 0;
    MPI_Win_unlock(0, window_->handle);
  }
  MPI_Barrier(MPI_COMM_WORLD);  // nobody takes an item before the counters are zero
}

JobLoop::~JobLoop() {
  MPI_Win_free(&window_->handle);
  delete window_;
}

namespace {

// counter += add on rank 0, atomically for the whole job; returns the value before.
std::int64_t fetch_add(MPI_Win window, int counter, std::int64_t add) {
  std::int64_t before = 0;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, window);
  MPI_Fetch_and_op(&add, &before, MPI_INT64_T, 0, counter, MPI_SUM, window);
  MPI_Win_unlock(0, window);
  return before;
}

}  // namespace

std::int64_t JobLoop::take(std::int64_t chunk) {
  const std::lock_guard lock(mutex_);
  return fetch_add(window_->handle, 0, chunk);
}

std::int64_t JobLoop::finish_one() {
  const std::lock_guard lock(mutex_);
  return fetch_add(window_->handle, 1, 1) + 1;
}

}  // namespace detail
}  // namespace phasesim
