// The gpu engine against the CPU full engine, draw for draw. Built only with CUDA, as its own
// program: without a device it says why and exits 77, which ctest reports as skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include "phasesim/engines/gpu.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <iostream>
#include <string>

#include "phasesim/engines/parity.hpp"
#include "support/cli_runner.hpp"
#include "support/niah_fixture.hpp"

using namespace phasesim;
using namespace phasesim::engines;
using namespace phasesim::niah;

namespace {

// Two random heads, W = 8, S = 4, d = 16, L = 1024, 4 groups x 32 prompts.
NiahSpec small() {
  NiahSpec s;
  s.gates = "random:1";
  s.heads = 2;
  s = test::full_vector(s, 16, 1.0);
  s.context = 1024;
  s.groups = 4;
  s.prompts = 32;
  s.seed = 5;
  return s;
}

// Every (trial, head) attends to the same entry on both but at near-ties; logits agree to
// rounding (both compute the same float operations in the same order, so they are bitwise
// equal but where content noise goes through CUDA's and glibc's exp and log), and two gpu
// runs give the same bits.
void check_parity(const NiahSpec& s) {
  const auto& engines = test::shipped_engines();
  const auto check = phasesim::engines::check_parity(
      test::plan(s, engines.find("full")), test::plan(s, engines.find("gpu")), Parallel{});
  const auto& c = check.comparison;
  MESSAGE(s.gates << " W=" << s.geometry.window << " S=" << s.geometry.stride << " d=" << *s.dim
                  << ": " << c.logits_bitwise_equal << " of " << c.pairs
                  << " logits bitwise equal, largest difference " << c.max_logit_difference);
  CHECK(c.not_near_ties() == 0);
  CHECK(c.max_logit_difference <= kParityLogitTolerance);
  if (s.content_noise == 0) CHECK(c.logits_bitwise_equal == c.pairs - c.entries_differing);
  CHECK(c.candidate_repeatable);
}

}  // namespace

TEST_CASE("gpu = full: random gate, W=8 S=4, two heads") { check_parity(small()); }

TEST_CASE("gpu = full: content noise and rms-norm, uniform gate") {
  auto s = small();
  s.gates = "uniform";
  s.content_noise = 0.7;
  s.rms_norm = true;
  check_parity(s);
}

TEST_CASE("gpu = full: per-channel gates, with and without content noise and rms-norm") {
  auto s = small();
  s.gates = "channels:uniform=0.25|onehot:7=0.5|random:3=0.25;channels:onehot:4|onehot:1";
  s.heads.reset();
  check_parity(s);
  s.content_noise = 0.7;
  s.rms_norm = true;
  s.dim = 19;  // groups of 5, 9 and 5 channels, padded to 32
  check_parity(s);
}

TEST_CASE("gpu = full: W < S, odd dimension, one head") {
  auto s = small();
  s.geometry = {3, 5};
  s.gates = "weights:1,2,3";
  s.heads = 1;
  s.dim = 7;
  check_parity(s);
}

TEST_CASE("gpu = full: entries that pool nothing score 0 (onehot:0, W=12 S=1)") {
  auto s = small();
  s.geometry = {12, 1};
  s.gates = "onehot:0";  // entries 0..10 hold only negative positions under slot 0
  s.rms_norm = true;
  s.context = 256;
  check_parity(s);
}

TEST_CASE("gpu = full: 128 threads a block (W=1 S=1, 4096 entries) and three heads") {
  auto s = small();
  s.geometry = {1, 1};
  s.gates = "last";
  s.heads = 3;
  s.context = 4096;
  s.prompts = 8;
  check_parity(s);
}

TEST_CASE("gpu = full: d = 2048 caps the blocks in flight, so blocks loop over (trial, head)") {
  auto s = small();
  s.geometry = {32, 8};
  s.dim = 2048;
  s.heads = 1;
  s.context = 512;
  s.prompts = 40;  // 160 (trial, head) pairs against about 60 blocks
  check_parity(s);
}

TEST_CASE("gpu = full: an architecture of mixed windows, strides and offsets") {
  auto s = small();  // workspaces carved for the largest window, gates of different lengths
  s.architecture = test::architecture(R"(
[[layer]]
window = 3
stride = 2
offset = 1
gate = "uniform"
[[layer]]
window = 12
stride = 5
offset = 3
gate = "random:4"
heads = 2
)");
  s.content_noise = 0.5;
  check_parity(s);
}

TEST_CASE("gpu = full: query heads of one cache, scanned once without query noise") {
  auto s = small();  // the gpu scans heads 0 and 3 and spreads them (spread_alike)
  s.architecture = test::architecture(R"(
[[layer]]
window = 8
stride = 4
gate = "random:2"
query_heads = 3
heads = 2
)");
  for (const double noise : {0.0, 1.0}) {
    s.query_noise = noise;
    check_parity(s);
  }
}

TEST_CASE("the agreement suite on the device: gpu, full and fast on independent seeds") {
  auto s = small();
  s.gates = "uniform";
  s.heads = 1;
  s.geometry = {8, 2};  // shared tokens: fast streams token projections
  s.context = 512;
  s.groups = 2;
  s.prompts = 2000;
  CHECK(test::check_engines_agree(s).size() == 3);
}

TEST_CASE("niah --engine gpu writes the full engine's JSON but for the engine's name") {
  const std::string run =
      "niah --dim 32 --query-noise 0.5 --gates 'random:2' --heads 2 "
      "--content-noise 0.4 --context 2048 --groups 4 --prompts 64";
  auto gpu = test::run_json(run + " --engine gpu");
  const auto full = test::run_json(run + " --engine full");
  CHECK(gpu["engine"] == "gpu");
  CHECK(gpu["groups"] == full["groups"]);
  gpu["engine"] = "full";
  CHECK(gpu == full);
}

TEST_CASE("gpu-check reports parity and exits 0") {
  const auto result = test::run_cli("gpu-check --prompts 16 --json -");
  REQUIRE(result.status == 0);
  const auto doc = nlohmann::json::parse(result.out);
  CHECK(doc["command"] == "gpu-check");
  CHECK(doc["parity"] == true);
  CHECK(doc["argmax_entries_differing_not_near_tie"] == 0);
  CHECK(doc["gpu_repeatable"] == true);
  CHECK(doc["gpu"]["trials_per_second"].get<double>() > 0);
}

int main(int argc, char** argv) {
  const auto reason = gpu_unavailable_reason();
  if (!reason.empty()) {
    std::cout << "phasesim_gpu_tests: SKIPPED, " << reason << "\n";
    return 77;  // ctest's SKIP_RETURN_CODE
  }
  std::cout << "phasesim_gpu_tests: running on " << gpu_device_name() << "\n";
  doctest::Context context(argc, argv);
  return context.run();
}
