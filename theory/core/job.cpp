// What the MPI job and the single process share (core/job.hpp): where the replicated code
// runs, and how an exception crosses ranks.
#include "phasesim/core/job.hpp"

#include <omp.h>

#include "phasesim/core/error.hpp"

namespace phasesim {

// The level first: a thread inside an item must not call MPI (MPI_THREAD_SERIALIZED).
bool on_every_rank() { return omp_get_level() == 0 && job_rank().size > 1; }

namespace detail {

Failure describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const InputError& e) {
    return {true, e.what()};
  } catch (const std::exception& e) {
    return {false, e.what()};
  } catch (...) {
    return {false, "an exception that is not a std::exception"};
  }
}

}  // namespace detail
}  // namespace phasesim
