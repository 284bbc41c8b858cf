// The job of a build without MPI (core/job.hpp): this process alone.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "phasesim/core/error.hpp"
#include "phasesim/core/job.hpp"

namespace phasesim {

JobRank job_rank() { return {}; }

// Several processes of a build without MPI would each run the whole command and write the
// same files: refuse, naming what mpirun or srun (with PMI) said.
JobSession::JobSession(int&, char**&) {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* size = std::getenv(name);
    if (size != nullptr && std::atoi(size) > 1) {
      throw InputError("started as one of " + std::string(size) +
                       " MPI ranks, but this build has no MPI support (install libopenmpi-dev "
                       "and rebuild, or run phasesim without mpirun or srun)");
    }
  }
}

JobSession::~JobSession() = default;

std::vector<int> gather_status(int status) { return {status}; }

void abort_job(int status) { std::exit(status); }

namespace detail {

std::string broadcast(const std::string& bytes) { return bytes; }

std::vector<std::string> all_bytes(const std::string& mine) { return {mine}; }

struct JobLoop::Window {
  std::atomic<std::int64_t> next{0}, finished{0};
};

JobLoop::JobLoop() : window_(new Window) {}

JobLoop::~JobLoop() { delete window_; }

std::int64_t JobLoop::take(std::int64_t chunk) { return window_->next.fetch_add(chunk); }

std::int64_t JobLoop::finish_one() { return window_->finished.fetch_add(1) + 1; }

}  // namespace detail
}  // namespace phasesim
