// The gpu engine against the CPU full engine, draw for draw. Built only with CUDA, as its own
// program: without a device it says why and exits 77, which ctest reports as skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>
#include <iostream>
#include <string>

#include "cli_runner.hpp"
#include "phasesim/engines/engine.hpp"

using namespace phasesim;

namespace {

struct Setup {
  Geometry geometry{8, 4};
  std::string gate = "random:1";
  int heads = 2;
  int dim = 16;
  double query_noise = 1;
  double content_noise = 0;
  bool rms_norm = false;
  std::int64_t context = 1024;
  int groups = 4;
  int prompts = 32;
};

struct Experiment {
  NiahModel model;
  NeedlePlan needles;
};

Experiment experiment(const Setup& s) {
  Experiment e;
  e.model.geometry = s.geometry;
  const auto gate = parse_gate(s.gate, s.geometry.window);
  for (int h = 0; h < s.heads; ++h) e.model.gates.push_back(replicate_gate(gate, h));
  e.model.context = s.context;
  e.model.beta.reset();
  e.model.dim = s.dim;
  e.model.query_noise = s.query_noise;
  e.model.content_noise = s.content_noise;
  e.model.rms_norm = s.rms_norm;
  e.model.seed = 5;
  e.needles = plan_needles(s.geometry, s.context, s.groups, s.prompts);
  return e;
}

// Every (trial, head) attends to the same entry on both; logits agree to rounding (CUDA's
// and glibc's sin, cos, log and exp may differ by an ulp, so bitwise equality is reported).
void check_parity(const Setup& s) {
  const auto e = experiment(s);
  const auto cpu = full_vector_argmaxes(EngineKind::full, e.model, e.needles, 0);
  const auto gpu = full_vector_argmaxes(EngineKind::gpu, e.model, e.needles, 0);
  REQUIRE(cpu.size() == gpu.size());
  std::size_t same_entry = 0;
  std::size_t bitwise = 0;
  double largest = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    same_entry += cpu[i].entry == gpu[i].entry ? 1 : 0;
    bitwise += cpu[i].logit == gpu[i].logit ? 1 : 0;
    largest = std::max(largest, std::abs(cpu[i].logit - gpu[i].logit));
  }
  MESSAGE(s.gate << " W=" << s.geometry.window << " S=" << s.geometry.stride << " d=" << s.dim
                 << ": " << bitwise << " of " << cpu.size()
                 << " logits bitwise equal, largest difference " << largest);
  CHECK(same_entry == cpu.size());
  CHECK(largest <= 1e-9);
}

}  // namespace

TEST_CASE("gpu = full: random gate, W=8 S=4, two heads") { check_parity({}); }

TEST_CASE("gpu = full: content noise and rms-norm, uniform gate") {
  Setup s;
  s.gate = "uniform";
  s.content_noise = 0.7;
  s.rms_norm = true;
  check_parity(s);
}

TEST_CASE("gpu = full: W < S, odd dimension, one head") {
  Setup s;
  s.geometry = {3, 5};
  s.gate = "weights:1,2,3";
  s.heads = 1;
  s.dim = 7;
  check_parity(s);
}

TEST_CASE("gpu = full: entries that pool nothing score 0 (onehot:0, W=12 S=1)") {
  Setup s;
  s.geometry = {12, 1};
  s.gate = "onehot:0";  // entries 0..10 hold only negative positions under slot 0
  s.rms_norm = true;
  s.context = 256;
  check_parity(s);
}

TEST_CASE("gpu = full: 128 threads a block (W=1 S=1, 4096 entries) and three heads") {
  Setup s;
  s.geometry = {1, 1};
  s.gate = "last";
  s.heads = 3;
  s.context = 4096;
  s.prompts = 8;
  check_parity(s);
}

TEST_CASE("gpu = full: d = 2048 caps the blocks in flight, so blocks loop over (trial, head)") {
  Setup s;
  s.geometry = {32, 8};
  s.dim = 2048;
  s.heads = 1;
  s.context = 512;
  s.prompts = 40;  // 160 (trial, head) pairs against about 60 blocks
  check_parity(s);
}

TEST_CASE("two gpu runs give the same bits") {
  Setup s;
  s.content_noise = 0.3;
  const auto e = experiment(s);
  const auto first = full_vector_argmaxes(EngineKind::gpu, e.model, e.needles, 0);
  const auto second = full_vector_argmaxes(EngineKind::gpu, e.model, e.needles, 0);
  for (std::size_t i = 0; i < first.size(); ++i) {
    CHECK(first[i].entry == second[i].entry);
    CHECK(first[i].logit == second[i].logit);
  }
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
  CHECK(doc["outcomes_differing"] == 0);
  CHECK(doc["argmax_entries_differing"] == 0);
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
