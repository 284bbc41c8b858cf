// phasesim train from the command line: the JSON keys, the gate file that niah reads, the
// log, and bad input for every option (exit 2, one line, no file).
#include <doctest/doctest.h>

#include <filesystem>

#include "support/cli_runner.hpp"

using phasesim::test::run_cli;
using phasesim::test::run_json;

namespace {

// A layer small enough to train in well under a second.
const std::string kTiny =
    "train --heads 2 --dim 8 --context 128 --steps 30 --batch 4 --groups 4 --prompts 8 "
    "--record-every 10 --log-every 10";

}  // namespace

TEST_CASE("train --help") {
  const auto result = run_cli("train --help");
  CHECK(result.status == 0);
  CHECK(result.out.find("--save-gates") != std::string::npos);
}

TEST_CASE("train JSON: parameters, trajectories, argmaxes, blind phases, the NIAH table") {
  const auto doc = run_json(kTiny);
  CHECK(doc["schema"] == "phasesim/1");
  CHECK(doc["command"] == "train");
  for (const char* key : {"window",
                          "stride",
                          "heads",
                          "dim",
                          "context",
                          "entries",
                          "query_noise",
                          "rms_norm",
                          "content",
                          "beta_out",
                          "answers",
                          "steps",
                          "batch",
                          "lr",
                          "init_scale",
                          "init_lambda",
                          "seed",
                          "record_every",
                          "group_count",
                          "prompts",
                          "blind_phase_count",
                          "blind_expected",
                          "kept_slot",
                          "kept_phase",
                          "slots_note"}) {
    CAPTURE(key);
    CHECK(doc.contains(key));
  }
  CHECK(doc["entries"] == 32);
  CHECK(doc["init_lambda"].get<double>() == doctest::Approx(std::sqrt(8.0)));
  CHECK(doc["trajectory_steps"] == nlohmann::json({0, 10, 20, 30}));
  REQUIRE(doc["loss_curve"].size() == 3);
  CHECK(doc["loss_curve"][2]["step"] == 30);
  REQUIRE(doc["per_head"].size() == 2);
  const auto& head = doc["per_head"][1];
  CHECK(head["head"] == 1);
  for (const char* key : {"initial_argmax", "final_argmax"}) {
    CHECK(head[key]["slot"].get<int>() >= 0);
    CHECK(head[key]["phase"] == (head[key]["slot"].get<int>() + 4 - 8 + 8) % 4);
  }
  CHECK(head["covers_phase"] == head["final_argmax"]["phase"]);
  CHECK(head["gate_trajectory"].size() == 4);
  CHECK(head["gate_trajectory"][3] == head["final_gate"]);
  CHECK(doc["final_gates"][1] == head["final_gate"]);
  CHECK(doc["covers_phase"].size() == 2);
  CHECK(doc["heads_per_phase"].size() == 4);
  CHECK(doc["blind_phases"].size() == doc["blind_phase_count"].get<std::size_t>());
  CHECK(doc["blind_law"].size() == 5);
  // The NIAH table in the layout of niah's JSON, and the analytic prediction beside it.
  REQUIRE(doc["groups"].size() == 4);
  CHECK(doc["groups"][0]["trials"] == 8);
  CHECK(doc["groups"][0].contains("ci_low"));
  CHECK(doc["summary"].contains("worst_over_mean"));
  CHECK(doc["analytic"]["groups"].size() == 4);
  // The shared period test (stats/period.hpp), as diagnose reports it, at train's level.
  CHECK(doc["estimated_period"]["candidates"].size() == 2);  // 2 and 4
  CHECK(doc["estimated_period"].contains("verdict"));
  CHECK(doc["estimated_period"]["alpha"] == 0.01);
}

namespace {

// niah's gate weights read from a train --save-gates file are the layer's final gates (2 heads,
// W 8: kTiny's layer).
void check_final_gates(const nlohmann::json& niah, const nlohmann::json& train) {
  for (int h = 0; h < 2; ++h) {
    for (int s = 0; s < 8; ++s) {
      CHECK(niah["gate_weights"][h][s].get<double>() ==
            doctest::Approx(train["final_gates"][h][s].get<double>()).epsilon(1e-12));
    }
  }
}

}  // namespace

TEST_CASE("train --save-gates writes a gate file that niah (and its --knockout) reads") {
  const phasesim::test::TempDir dir("train-gates");
  const auto gates = (dir / "gates.json").string();
  const auto doc = run_json(kTiny + " --save-gates " + gates);
  const auto niah = run_json("niah --gates @" + gates + " --dim 8 --context 128 --prompts 4");
  CHECK(niah["heads"] == 2);
  check_final_gates(niah, doc);
  const auto knockout =
      run_json("niah --gates @" + gates + " --dim 8 --context 128 --prompts 4 --knockout 1");
  CHECK(knockout["knockout_result"]["head"] == 1);
}

TEST_CASE(
    "train on the real compressor: channels per phase, query heads, a per-channel gate file") {
  const phasesim::test::TempDir dir("train-channels");
  const auto gates = (dir / "gates.json").string();
  const auto doc = run_json(kTiny +
                            " --per-channel --query-heads 3 --query-projection --split-rho 0.5 "
                            "--save-gates " +
                            gates);
  CHECK(doc["per_channel"] == true);
  CHECK(doc["query_heads"] == 3);
  CHECK(doc["query_projection"] == true);
  CHECK(doc["split_rho"] == 0.5);
  CHECK(doc.contains("query_heads_note"));
  const auto& head = doc["per_head"][1];
  REQUIRE(head["query_heads"].size() == 3);
  CHECK(head["query_heads"][2]["lambda"].get<double>() > 0);
  CHECK(head["query_heads"][2].contains("projection_change"));
  for (const char* when : {"initial", "final"}) {
    const auto& channels = head["channels"][when];
    REQUIRE(channels["slot"].size() == 8);  // d channels
    for (int c = 0; c < 8; ++c) {
      CHECK(channels["phase"][c] == (channels["slot"][c].get<int>() + 4) % 4);
    }
    double total = 0;
    for (const auto& share : channels["phase_share"]) total += share.get<double>();
    CHECK(total == doctest::Approx(1));
    CHECK(channels["entropy"].get<double>() >= 0);
    CHECK(channels["entropy"].get<double>() <= std::log(4.0) + 1e-12);
  }
  CHECK(head["channels"]["phase_share_trajectory"].size() == 4);
  CHECK(head["channels"]["phase_share_trajectory"][0] ==
        head["channels"]["initial"]["phase_share"]);
  // Every channel's argmax at every recorded step, from the start to the end.
  const auto& slots = head["channels"]["slot_trajectory"];
  CHECK(slots.size() == 4);
  CHECK(slots.front() == head["channels"]["initial"]["slot"]);
  CHECK(slots.back() == head["channels"]["final"]["slot"]);
  // A gate file has no place for query heads or rho: its top level says them.
  const auto file = nlohmann::json::parse(phasesim::test::read_text(gates));
  CHECK(file["query_heads"] == 3);
  CHECK(file["split_rho"] == 0.5);
  REQUIRE(file["gates"][0]["channels"].size() >= 1);
  CHECK(file["gates"][0]["channels"][0]["gate"].get<std::string>().starts_with("logits:"));
  // niah reads the per-channel gates: their mean over channels is the head's final gate.
  const auto niah = run_json("niah --gates @" + gates + " --dim 8 --context 128 --prompts 4");
  CHECK(niah["heads"] == 2);
  check_final_gates(niah, doc);
  // --save-arch: the layer as an architecture file, query heads and rho included.
  const auto arch = (dir / "layer.toml").string();
  run_json(kTiny + " --per-channel --query-heads 3 --split-rho 0.5 --save-arch " + arch);
  const auto read = run_json("niah --arch " + arch + " --dim 8 --context 128 --prompts 4");
  CHECK(read["heads"] == 6);  // 2 caches x 3 query heads
  const auto& first = read["architecture"]["heads"][0];
  CHECK(first["query_heads"] == 3);
  CHECK(first["split_rho"] == 0.5);
  CHECK(first["channels"].size() == 8);
  // The one-gate layer's document has none of these keys.
  const auto plain = run_json(kTiny);
  for (const char* key : {"per_channel", "query_heads", "query_projection", "split_rho"}) {
    CHECK_FALSE(plain.contains(key));
  }
}

TEST_CASE("train --batches independent: recorded in the document and the header") {
  CHECK(run_json(kTiny + " --batches independent")["batches"] == "independent");
  CHECK(!run_json(kTiny + " --batches shared").contains("batches"));
  const auto table = run_cli(kTiny + " --batches independent");
  CHECK(table.status == 0);
  CHECK(table.out.find("of batch 4 per head (independent)") != std::string::npos);
}

TEST_CASE("train logs every K steps, and --progress adds the time left") {
  const auto plain = run_cli(kTiny);
  CHECK(plain.status == 0);
  CHECK(plain.out.find("step 10/30  loss ") != std::string::npos);
  CHECK(plain.out.find("eta") == std::string::npos);
  CHECK(run_cli(kTiny + " --progress").out.find("  eta 0:00:") != std::string::npos);
  // With the JSON on stdout the log goes to stderr.
  const auto json = run_cli(kTiny + " --json -");
  CHECK(json.err.find("step 30/30") != std::string::npos);
  CHECK(nlohmann::json::parse(json.out)["command"] == "train");
}

TEST_CASE("train --offset: every head's entries shifted, read back by niah with that offset") {
  const auto doc = run_json(kTiny + " --offset 3");
  CHECK(doc["offset"] == 3);
  CHECK(doc["entries"] == 31);  // floor((128 - 3) / 4)
  // Phases do not move with the offset: slot s of a W 8, S 4 head holds phase (s + 3 + 4) % 4.
  for (const auto& head : doc["per_head"]) {
    const int slot = head["final_argmax"]["slot"];
    CHECK(head["final_argmax"]["phase"] == (slot + 7) % 4);
  }
  // The evaluation is niah's protocol on the trained gates with the same offset: its needles
  // are interior for the shifted entries.
  CHECK(doc["groups"].size() == 4);
  CHECK(doc["analytic"]["groups"].size() == 4);
}

TEST_CASE("train bad input: exact message, exit status 2, no output file") {
  const std::vector<phasesim::test::BadInput> cases = {
      {"--window 0", "invalid --window 0 (must be at least 1)"},
      {"--stride 0", "invalid --stride 0 (must be at least 1)"},
      {"--heads 0", "invalid --heads 0 (must be in [1, 1024])"},
      {"--dim 1", "invalid --dim 1 (must be in [2, 4096])"},
      {"--context 12", "invalid --context 12 (must be at least 16 for --window 8 and --stride 4)"},
      {"--offset 4", "invalid --offset 4 (must be in [0, 4), below the stride)"},
      {"--offset 3 --context 18",
       "invalid --context 18 (must be at least 19 for --window 8 and --stride 4 and --offset 3)"},
      {"--context 1000000",
       "invalid --context 1000000 (--context x --dim must be at most 16777216: a context's "
       "embeddings are held in memory)"},
      {"--query-noise -1", "invalid --query-noise -1 (must be finite and >= 0)"},
      {"--beta-out 0", "invalid --beta-out 0 (must be finite and > 0)"},
      {"--answers 0", "invalid --answers 0 (must be finite and > 0)"},
      {"--steps 0", "invalid --steps 0 (must be in [1, 10000000])"},
      {"--batch 0", "invalid --batch 0 (must be in [1, 65536])"},
      {"--batches per-head", "invalid --batches per-head (must be shared or independent)"},
      {"--batches independent --heads 1024 --batch 65536",
       "invalid --batch 65536 (with --batches independent, --heads 1024 x --batch must be at "
       "most 16777216)"},
      {"--lr 0", "invalid --lr 0 (must be finite and > 0)"},
      {"--init-scale -1", "invalid --init-scale -1 (must be finite and >= 0)"},
      {"--init-lambda 0", "invalid --init-lambda 0 (must be finite and > 0)"},
      {"--record-every 0", "invalid --record-every 0 (must be in [1, 10000000])"},
      {"--log-every 0", "invalid --log-every 0 (must be in [1, 10000000])"},
      {"--groups 0", "invalid --groups 0 (must be at least 1)"},
      {"--prompts 0", "invalid --prompts 0 (must be at least 1)"},
      {"--threads -1", "invalid --threads -1 (must be in [0, 1024]; 0 uses the OpenMP default)"},
      {"--save-gates /nonexistent/gates.json",
       "cannot write '/nonexistent/gates.json' (No such file or directory)"},
      {"--save-gates /tmp", "cannot write '/tmp' (Is a directory)"},
      {"--save-arch /nonexistent/layer.toml",
       "cannot write '/nonexistent/layer.toml' (No such file or directory)"},
      {"--rms-norm=maybe", "invalid --rms-norm maybe (a flag takes =true or =false)"},
      {"--query-heads 0", "invalid --query-heads 0 (must be in [1, 1024])"},
      {"--query-heads 200",
       "invalid --query-heads 200 (--heads x --query-heads must be at most 1024)"},
      {"--split-rho 1.5",
       "invalid --split-rho 1.5 (the correlation of a token's two keys must be in [0, 1])"},
      {"--split-rho -0.1",
       "invalid --split-rho -0.1 (the correlation of a token's two keys must be in [0, 1])"},
      {"--per-channel --dim 2048 --context 2048",
       "invalid --dim 2048 (with --heads 8, --per-channel the layer has 33685512 parameters, at "
       "most 16777216)"},
  };
  phasesim::test::check_refused(cases, "train");
}

TEST_CASE("train checks --json before training") {
  const auto result = run_cli("train --json /nonexistent/out.json");
  CHECK(result.status == 2);
  CHECK(result.err ==
        "phasesim train: cannot write '/nonexistent/out.json' (No such file or directory)\n");
  CHECK(result.out.empty());
}
