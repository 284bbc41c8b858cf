// phasesim niah from the command line: JSON layout, determinism, errors.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "support/cli_runner.hpp"
#include "support/threads.hpp"

using phasesim::test::json_on_threads;
using phasesim::test::run_cli;
using phasesim::test::run_json;

TEST_CASE("niah JSON: parameters, per-group results and summary") {
  const auto doc = run_json("niah --context 8192 --groups 4 --prompts 100");
  CHECK(doc["schema"] == "phasesim/1");
  CHECK(doc["command"] == "niah");
  CHECK(doc["window"] == 8);
  CHECK(doc["stride"] == 4);
  CHECK(doc["heads"] == 1);
  CHECK(doc["gates"] == nlohmann::json::array({"last"}));
  CHECK(doc["beta"] == 4.5);
  CHECK(doc["dim"].is_null());
  CHECK(doc["context"] == 8192);
  CHECK(doc["entries"] == 2048);
  CHECK(doc["group_count"] == 4);
  CHECK(doc["prompts"] == 100);
  CHECK(doc["combine"] == "any");
  CHECK(doc["knockout"].is_null());
  CHECK(doc["engine"] == "fast");
  CHECK(doc["seed"] == 1);
  CHECK(doc["engine_paths"] == nlohmann::json::array({"channel"}));
  REQUIRE(doc["groups"].size() == 4);
  const auto& g3 = doc["groups"][3];
  CHECK(g3["group"] == 3);
  CHECK(g3["trials"] == 100);
  CHECK(g3["accuracy"].get<double>() == g3["successes"].get<double>() / 100);
  CHECK(g3["ci_low"].get<double>() < g3["accuracy"].get<double>());
  CHECK(g3["ci_high"].get<double>() > g3["accuracy"].get<double>());
  CHECK(g3["std_error"].get<double>() > 0);
  const auto& summary = doc["summary"];
  CHECK(summary["trials"] == 400);
  CHECK(summary["best_group"] == 3);
  CHECK(summary["gap"].get<double>() ==
        summary["best"].get<double>() - summary["worst"].get<double>());
  CHECK(!doc.contains("knockout_result"));
}

TEST_CASE("niah JSON: --rms-norm with shared tokens runs on the fast engine's streaming-rms path") {
  const auto doc = run_json(
      "niah --dim 16 --gates 'uniform;last' --rms-norm --context 1024 --groups 4 --prompts 20");
  CHECK(doc["engine"] == "fast");
  CHECK(doc["engine_paths"] == nlohmann::json::array({"streaming-rms", "conditional-rms"}));
  CHECK(doc["summary"]["trials"] == 80);
}

TEST_CASE("niah JSON, analytic: exact probabilities, no trial counts, zero-width intervals") {
  const auto doc = run_json("niah --engine analytic --dim 64 --query-noise 1 --knockout 0");
  CHECK(doc["beta_effective"].get<double>() == doctest::Approx(std::sqrt(32.0)));
  CHECK(doc["engine_paths"] == nlohmann::json::array({"quadrature"}));
  for (const auto& g : doc["groups"]) {
    CHECK(g["trials"].is_null());
    CHECK(g["successes"].is_null());
    CHECK(g["ci_low"] == g["accuracy"]);
    CHECK(g["ci_high"] == g["accuracy"]);
  }
  CHECK(doc["summary"]["trials"].is_null());
  const auto& knockout = doc["knockout_result"];
  CHECK(knockout["head"] == 0);
  for (const auto& g : knockout["groups"]) CHECK(g["accuracy"] == 0.0);  // no head left
}

TEST_CASE("niah table: one row per group with a bar, and the summary says how many trials") {
  const auto result = run_cli("niah --context 8192 --groups 4 --prompts 50 --knockout 0");
  CHECK(result.status == 0);
  CHECK(result.out.find("\u2588\u2588\u2588") != std::string::npos);
  CHECK(result.out.find("200 trials (4 groups x 50 prompts)") != std::string::npos);
  CHECK(result.out.find("knockout of head 0") != std::string::npos);
}

TEST_CASE("niah: any --threads writes the same JSON" * doctest::test_suite("bitexact")) {
  for (const auto* run :
       {"niah --gates 'random:3;uniform' --content-noise 0.5 --context 4096 --prompts 64 "
        "--knockout 1",
        "niah --engine full --dim 8 --gates uniform --rms-norm --context 512 --prompts 32"}) {
    CAPTURE(run);
    const auto json = phasesim::test::check_thread_invariance(
        [&](const phasesim::Parallel& p) { return json_on_threads(run, p.threads); });
    CHECK(json.find("\"successes\"") != std::string::npos);
  }
}

TEST_CASE("niah: --heads replicates one gate, independently for random gates") {
  const auto doc = run_json("niah --gates random:5 --heads 3 --context 4096 --prompts 10");
  CHECK(doc["gates"] == nlohmann::json::array({"random:5", "random:6", "random:7"}));
  CHECK(doc["gate_weights"][0] != doc["gate_weights"][1]);
}

TEST_CASE("niah bad input: exact message, exit status 2, no output file") {
  const std::vector<phasesim::test::BadInput> cases = {
      {"--groups 0", "invalid --groups 0 (must be at least 1)"},
      {"--prompts 0", "invalid --prompts 0 (must be at least 1)"},
      {"--context 4",
       "invalid --context 4 (must be at least 24 for --window 8, --stride 4 and --groups 8)"},
      {"--window 16 --context 20",
       "invalid --context 20 (must be at least 40 for --window 16, --stride 4 and --groups 8)"},
      {"--combine vote:2", "invalid --combine vote:2 (K must be at most the number of heads, 1)"},
      {"--combine most", "invalid --combine most (use any or vote:K)"},
      {"--gates 'last;uniform' --knockout 2",
       "invalid --knockout 2 (must be a head index from 0 to 1)"},
      {"--knockout -1", "invalid --knockout -1 (must be a head index from 0 to 0)"},
      {"--beta 4 --dim 16",
       "invalid --beta with --dim (give --beta for the standardized channel, or --dim "
       "[--query-noise] for the full-vector model)"},
      {"--query-noise 1",
       "invalid --query-noise without --dim (the query noise belongs to the full-vector model)"},
      {"--dim 1", "invalid --dim 1 (must be in [2, 65536])"},
      {"--engine full",
       "invalid --engine full without --dim (the full-vector engine needs --dim D)"},
      {"--engine cpu", "invalid --engine cpu (use analytic, fast, full, full-double or gpu)"},
      {"--engine analytic --content-noise 0.5",
       "invalid --content-noise 0.5 with --engine analytic (the analytic channel has no content "
       "noise; use --engine fast)"},
      {"--gates 'last;uniform' --heads 3",
       "invalid --heads 3 (--gates gives 2 gates: give one gate to replicate over the heads, or "
       "one gate per head)"},
      {"--heads 0", "invalid --heads 0 (must be in [1, 4096])"},
      {"--content-noise -1", "invalid --content-noise -1 (must be finite and >= 0)"},
      {"--beta -2", "invalid --beta -2 (must be finite and >= 0)"},
      {"--split-rho 1.5",
       "invalid --split-rho 1.5 (the correlation of a token's two keys must be in [0, 1])"},
      {"--split-rho nan",
       "invalid --split-rho nan (the correlation of a token's two keys must be in [0, 1])"},
      {"--gates 'channels:last=0.001|uniform=0.999' --dim 64",
       "invalid gate 'channels:last=0.001|uniform=0.999' (channel group 1 has share 0.001, none "
       "of the d = 64 channels; every group needs a share of at least 1/d)"},
      {"--threads -1", "invalid --threads -1 (must be in [0, 1024]; 0 uses the OpenMP default)"},
  };
  phasesim::test::check_refused(cases, "niah");
}

TEST_CASE("niah --offset: the one-layer shorthand with shifted entries, as an architecture file") {
  const phasesim::test::TempDir dir("offset");
  const auto file = (dir / "shifted.toml").string();
  std::ofstream(file) << "[[layer]]\nwindow = 8\nstride = 4\nheads = [{ offset = 1, gate = "
                         "\"last\" }]\n";
  const auto shorthand = run_json(
      "niah --window 8 --stride 4 --offset 1 --gates last --beta 5 "
      "--engine analytic --context 8192");
  const auto arch = run_json("niah --arch " + file + " --beta 5 --engine analytic --context 8192");
  CHECK(shorthand["offset"] == 1);
  CHECK(shorthand["groups"] == arch["groups"]);
  // The phase moves with the offset: the newest slot holds phase (S - W + o + W - 1) mod S.
  const auto plain = run_json(
      "niah --window 8 --stride 4 --gates last --beta 5 --engine analytic "
      "--context 8192");
  CHECK(!plain.contains("offset"));
  CHECK(plain["summary"]["best_group"].get<int>() == 3);
  CHECK(shorthand["summary"]["best_group"].get<int>() == 0);
  phasesim::test::check_refused(
      {{"--offset 4", "invalid --offset 4 (must be in [0, 4), below the stride)"},
       {"--offset 1 --arch v4-csa", "--offset excludes --arch (see 'phasesim niah --help')"}},
      "niah");
}

TEST_CASE("niah, the read path: bad input, one line, exit 2, no output") {
  phasesim::test::check_refused(
      {{"--top-k 0", "invalid --top-k 0 (must be at least 1)"},
       {"--index-rho 1.5",
        "invalid --index-rho 1.5 (the correlation of an entry's selection and attention logits "
        "must be in [-1, 1])"},
       {"--needle-tokens 300", "invalid --needle-tokens 300 (must be in [1, 256])"},
       {"--needle-tokens 256 --context 200",
        "invalid --needle-tokens 256 (must be at most the context, 200)"},
       {"--sliding-window 200000",
        "invalid --sliding-window 200000 (must be at most the context, 131072)"},
       {"--sink nan", "invalid --sink nan (must be a finite number)"},
       {"--index-gates 'last;last'",
        "invalid --index-gates (gives 2 gates for 1 head: give one gate for every head, or one "
        "per head)"},
       {"--dim 16 --index-beta 5",
        "invalid --index-beta 5 with --dim 16 (the indexer's beta is sqrt(d / (1 + sigma^2)), in "
        "(0, sqrt(d)] = (0, 4])"},
       {"--engine analytic --needle-tokens 3",
        "invalid --needle-tokens 3 with --engine analytic (it integrates needles of 1 or 2 "
        "tokens, whose tied places share one factor a stage; use --engine fast)"},
       {"--engine analytic --needle-tokens 2 --gates 'channels:onehot:0=0.5|uniform=0.5'",
        "invalid --engine analytic: a needle of 2 tokens under a per-channel gate ties its places "
        "by a factor per channel group, which the analytic read path does not integrate; use "
        "--engine fast"}},
      "niah");
}

TEST_CASE("niah, raw blocks: what they are defined for, one line, exit 2, no output") {
  const std::string raw = "--window 4 --stride 4 --raw-blocks --context 4096 ";
  phasesim::test::check_refused(
      {{"--raw-blocks",
        "invalid --raw-blocks for head 1 (window 8, stride 4: raw blocks need window = stride, "
        "blocks that do not overlap as NSA's selection blocks and MoBA's)"},
       {raw + "--needle-tokens 2",
        "invalid --raw-blocks for head 1 (raw blocks are read for a needle of one token, "
        "--needle-tokens 1)"},
       {raw + "--top-k 2 --index-rho 0.5",
        "invalid --raw-blocks for head 1 (raw blocks need --index-rho 0: a raw token's logit and "
        "its block's score are otherwise tied through the block's keys)"},
       {raw + "--dim 16",
        "invalid --raw-blocks for head 1 (raw blocks are read in the standardized channel: give "
        "--beta, not --dim)"},
       {raw + "--top-k 4 --engine full",
        "invalid --engine full with --raw-blocks (head 1 reads the raw tokens of its selected "
        "blocks, which the full-vector engines do not materialize; use --engine analytic or "
        "fast)"}},
      "niah");
}

TEST_CASE("niah, the read path: stage 1 in the document and the table; k >= entries said once") {
  const auto doc = run_json(
      "niah --gates last --beta 5 --context 4096 --groups 4 --prompts 200 --top-k 8 "
      "--index-gates uniform --sliding-window 32 --sink 1");
  CHECK(doc["top_k"] == 8);  // every head reads alike: the keys at the top, as window's
  CHECK(doc["index_gate"] == "uniform");
  CHECK(doc["sliding_window"] == 32);
  CHECK(!doc.contains("read_paths"));
  CHECK(doc["engine_paths"] == nlohmann::json::array({"two-stage"}));
  for (const auto& g : doc["groups"]) {
    CHECK(g["selected"].get<double>() >= g["accuracy"].get<double>());
  }
  const auto table =
      run_cli("niah --gates last --beta 5 --context 4096 --groups 4 --prompts 50 --top-k 8");
  CHECK(table.out.find("group  accuracy  selected") != std::string::npos);
  CHECK(table.out.find("stages: selection passes") != std::string::npos);
  const auto all = run_json("niah --context 4096 --groups 4 --prompts 50 --top-k 2000");
  CHECK(all["warnings"] ==
        nlohmann::json::array({"--top-k 2000 keeps all 1024 entries: no selection"}));
  const auto plain = run_json("niah --context 4096 --groups 4 --prompts 50");
  CHECK(all["groups"] == plain["groups"]);  // nothing dropped: section 4's bits
}

TEST_CASE("niah, the read path of an architecture: each head's where they differ") {
  const phasesim::test::TempDir dir("read-path");
  const auto file = (dir / "two.toml").string();
  std::ofstream(file) << "[[layer]]\nwindow = 8\nstride = 4\ngate = \"last\"\ntop_k = 8\n"
                         "[[layer]]\nwindow = 4\nstride = 4\ngate = \"uniform\"\n";
  const auto doc = run_json("niah --arch " + file +
                            " --beta 5 --context 4096 --groups 4 --prompts 20 "
                            "--sliding-window 16");
  REQUIRE(doc["read_paths"].size() == 2);
  CHECK(doc["read_paths"][0] == nlohmann::json({{"top_k", 8}, {"sliding_window", 16}}));
  CHECK(doc["read_paths"][1] == nlohmann::json({{"sliding_window", 16}}));
  CHECK(doc["architecture"]["heads"][0]["read_path"] == nlohmann::json({{"top_k", 8}}));
}
