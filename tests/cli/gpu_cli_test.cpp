// `niah --engine gpu` and `gpu-check` where the gpu engine cannot run: one line saying why,
// exit status 2, nothing written. Which line depends on the build (PHASESIM_HAVE_CUDA) and
// on the machine; where a device is present, tests/engines/gpu_test.cpp runs the real thing.
#include <doctest/doctest.h>

#include <filesystem>

#include "phasesim/engines/gpu.hpp"
#include "support/cli_runner.hpp"

using phasesim::test::run_cli;
using phasesim::test::TempDir;

TEST_CASE("without a usable GPU, --engine gpu and gpu-check say why in one line and exit 2") {
  const auto reason = phasesim::engines::gpu_unavailable_reason();
  if (reason.empty()) {
    MESSAGE("a CUDA device is present: the no-GPU messages are not checked on this machine");
    return;
  }
#if PHASESIM_HAVE_CUDA
  CHECK(reason.starts_with("no CUDA device was found"));
#else
  CHECK(reason ==
        "this build has no CUDA support (configure where nvcc is found, with "
        "-DPHASESIM_CUDA=AUTO or ON)");
#endif
  const TempDir dir("gpu-none");
  const auto out = dir / "out.json";
  const auto niah = run_cli("niah --engine gpu --dim 16 --context 1024 --json " + out.string());
  CHECK(niah.status == 2);
  CHECK(niah.err == "phasesim niah: invalid --engine gpu: " + reason + "\n");
  CHECK(niah.out.empty());
  const auto check = run_cli("gpu-check --json " + out.string());
  CHECK(check.status == 2);
  CHECK(check.err == "phasesim gpu-check: " + reason + "\n");
  CHECK(check.out.empty());
  CHECK(!std::filesystem::exists(out));
}

TEST_CASE("gpu-check bad input: exact message, exit status 2, no output file") {
  const std::vector<phasesim::test::BadInput> cases = {
      {"--heads 0", "invalid --heads 0 (must be in [1, 4096])"},
      {"--dim 1", "invalid --dim 1 (must be in [2, 65536])"},
      {"--window 0", "invalid --window 0 (must be at least 1)"},
      {"--gate weights:1,2", "invalid gate 'weights:1,2' (has 2 values, the window needs 8)"},
      {"--content-noise -1", "invalid --content-noise -1 (must be finite and >= 0)"},
      {"--prompts 0", "invalid --prompts 0 (must be at least 1)"},
      {"--context 4",
       "invalid --context 4 (must be at least 24 for --window 8, --stride 4 and --groups 8)"},
      {"--threads -1", "invalid --threads -1 (must be in [0, 1024]; 0 uses the OpenMP default)"},
  };
  phasesim::test::check_refused(cases, "gpu-check");
}
