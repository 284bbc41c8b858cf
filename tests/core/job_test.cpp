// Results that cross the ranks of an MPI job (core/bytes.hpp) and the loops that hand them
// over (core/parallel.hpp), in one process. tests/cli/mpi_check.sh runs the binary under mpirun.
#include "phasesim/core/job.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "phasesim/core/bytes.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/niah/argmax.hpp"
#include "phasesim/theorems/dynamics_batch.hpp"
#include "phasesim/theorems/lockin.hpp"
#include "phasesim/theorems/optimize.hpp"
#include "support/cli_runner.hpp"

using namespace phasesim;
using namespace phasesim::niah;
using namespace phasesim::theorems;

namespace {

// What `value` looks like on another rank: written to bytes and read back.
template <typename T>
T across(const T& value) {
  ByteWriter out;
  out.put(value);
  ByteReader in(out.bytes());
  T copy = in.get<T>();
  CHECK(in.done());
  return copy;
}

// Equal when every field came across: the bytes of the copy are the bytes of the original.
template <typename T>
void check_across(const T& value) {
  ByteWriter original, copy;
  original.put(value);
  copy.put(across(value));
  CHECK(copy.bytes() == original.bytes());
}

DynamicsRun dynamics_run() {
  DynamicsRun r;
  r.init_gate = {0.25, 0.75};
  r.final_gate = {0, 1};
  r.initial = {1, 0.75, 0.56, 2};
  r.final = {1, 1, 0, 1};
  r.final_objective = 0.625;
  r.trajectory = {{0, 0.5, {0.25, 0.75}}, {50, 0.625, {0, 1}}};
  r.at_reweight = {0, 0.5, 0.69, 2};
  r.order_condition = false;
  r.evaluations = 77;
  return r;
}

}  // namespace

TEST_CASE("numbers, strings, vectors and structs come back from bytes as they left") {
  CHECK(across(std::int64_t{-5}) == -5);
  CHECK(across(std::string("random:1:2")) == "random:1:2");
  CHECK(across(std::string()).empty());
  const std::vector<std::vector<double>> nested{{1.5, -2}, {}, {3}};
  CHECK(across(nested) == nested);
  const Argmax argmax{42, -0.125};
  CHECK(across(argmax).entry == 42);
  CHECK(across(argmax).logit == -0.125);

  const auto run = dynamics_run();
  const auto copy = across(run);
  CHECK(copy.final_gate == run.final_gate);
  CHECK(copy.trajectory.back().gate == run.trajectory.back().gate);
  CHECK(copy.at_reweight.entropy == run.at_reweight.entropy);
  CHECK(copy.evaluations == 77);
  CHECK_FALSE(copy.order_condition);
  check_across(run);
  BatchRun batch;
  batch.spec.init = "random:3:2";
  batch.spec.content_seed = 9;
  batch.result = run;
  check_across(batch);
  LockinRun lockin;
  lockin.spec = batch.spec;
  lockin.reweighted_to = 1;
  lockin.result = run;
  check_across(lockin);
  check_across(Ascent{{0.5, -1}, {0.75, {0.5, 1}, {1e-12, -2e-12}}, 12});
  check_across(PhaseGradients{{0.5, 0.25}, {0, 1, 0, 1}, {1, 2, 3, 4}, {0.1, 0.2, 0.3, 0.4}});
}

TEST_CASE("bytes that run out are an error, not garbage") {
  ByteWriter out;
  out.put(std::vector<double>{1, 2, 3});
  const std::string cut = out.bytes().substr(0, out.bytes().size() - 1);
  ByteReader in(cut);
  CHECK_THROWS_WITH(in.get<std::vector<double>>(), "truncated result bytes");
}

TEST_CASE("outside an MPI job the process is rank 0 of 1 and on_root runs here") {
  CHECK(job_rank().rank == 0);
  CHECK(job_rank().size == 1);
  CHECK_FALSE(on_every_rank());
  CHECK(on_root([] { return std::string("here"); }) == "here");
  int calls = 0;
  on_root([&] { ++calls; });
  CHECK(calls == 1);
  CHECK(gather_status(3) == std::vector<int>{3});
}

TEST_CASE("parallel_map and parallel_rows give every item's result, with any thread count" *
          doctest::test_suite("bitexact")) {
  for (int threads : {1, 2, 3}) {
    const auto squares =
        parallel_map(Parallel{threads}, 1000, [](std::int64_t i) { return i * i; });
    REQUIRE(squares.size() == 1000);
    CHECK(squares[999] == 999 * 999);
    // Per-thread state is scratch: the result must not depend on which thread ran the item.
    const auto rows = parallel_rows<double>(
        Parallel{threads}, 100, 3, [] { return std::vector<double>(3); },
        [](std::int64_t i, std::vector<double>& scratch, std::span<double> row) {
          for (std::size_t k = 0; k < 3; ++k)
            scratch[k] = static_cast<double>(i * 3) + static_cast<double>(k);
          std::copy(scratch.begin(), scratch.end(), row.begin());
        });
    REQUIRE(rows.size() == 300);
    for (std::size_t k = 0; k < rows.size(); ++k) CHECK(rows[k] == static_cast<double>(k));
  }
}

TEST_CASE("Parallel::progress counts every finished item, one call at a time") {
  std::int64_t calls = 0, highest = 0;  // unguarded: the policy calls one at a time
  const Parallel parallel{2, [&](std::int64_t finished) {
                            ++calls;
                            highest = std::max(highest, finished);
                          }};
  parallel_map(parallel, 50, [](std::int64_t i) { return i; });
  CHECK(calls == 50);
  CHECK(highest == 50);
}

#if !PHASESIM_WITH_MPI
TEST_CASE("a build without MPI refuses to run as one of several ranks, and writes nothing") {
  const test::TempDir dir("alone");
  ::setenv("OMPI_COMM_WORLD_SIZE", "3", 1);  // what mpirun -np 3 sets in every rank
  const auto r = test::run_cli("niah --json " + (dir / "out.json").string());
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "phasesim: started as one of 3 MPI ranks, but this build has no MPI support (install "
        "libopenmpi-dev and rebuild, or run phasesim without mpirun or srun)\n");
  CHECK_FALSE(std::filesystem::exists(dir / "out.json"));
}
#endif
