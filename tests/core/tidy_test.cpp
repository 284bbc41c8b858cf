// The tidy table of documents (core/tidy.hpp): results.csv, to_frame and the page's CSV.
#include "phasesim/core/tidy.hpp"

#include <doctest/doctest.h>

using namespace phasesim;

TEST_CASE("tidy: one row per item of the row list, the document's scalars on each") {
  // Bookkeeping is no column: schema, command, and a sweep cell's record of itself.
  const auto doc = Json::parse(R"({"schema": "phasesim/1", "command": "niah", "window": 8,
    "gates": ["last"], "summary": {"mean": 0.5, "by": {"x": 1}}, "dim": null,
    "groups": [{"group": 0, "accuracy": 0.25, "window": 3}, {"group": 1, "accuracy": 0.75}],
    "sweep_cell": {"id": "0123456789abcdef", "options": {"window": "8"}}})");
  const auto table = tidy_table(doc);
  // A row's own "window" says more than the document's, which the other row keeps.
  CHECK(table.columns ==
        std::vector<std::string>{"window", "gates", "summary_mean", "dim", "group", "accuracy"});
  REQUIRE(table.rows.size() == 2);
  CHECK(table.rows[0][0] == 3);
  CHECK(table.rows[1][0] == 8);
  CHECK(tidy_csv(table) ==
        "window,gates,summary_mean,dim,group,accuracy\n"
        "3,\"[\"\"last\"\"]\",0.5,,0,0.25\n8,\"[\"\"last\"\"]\",0.5,,1,0.75\n");
}

TEST_CASE("tidy: rows one level down are labelled with their parent's columns") {
  // compare: architectures[i].groups; coverage --arch: architecture.heads[i].phases, where a
  // query head of a shared cache has no phases of its own.
  const auto compare = Json::parse(R"({"beta": 5, "architectures": [
    {"label": "a", "summary": {"mean": 0.1}, "groups": [{"group": 0}, {"group": 1}]},
    {"label": "b", "summary": {"mean": 0.2}, "groups": [{"group": 0}, {"group": 1}]}]})");
  const auto c = tidy_table(compare);
  CHECK(c.columns == std::vector<std::string>{"beta", "label", "summary_mean", "group"});
  REQUIRE(c.rows.size() == 4);
  CHECK(c.rows[2] == std::vector<Json>{5, "b", 0.2, 0});
  const auto coverage = Json::parse(R"({"architecture": {"name": "x", "heads": [
    {"layer": 1, "phases": [{"phase": 0}, {"phase": 1}]}, {"layer": 1, "query_head": 2}]}})");
  const auto v = tidy_table(coverage);
  CHECK(v.columns == std::vector<std::string>{"architecture_name", "layer", "phase"});
  CHECK(v.rows.size() == 2);
}

TEST_CASE("tidy: a document without a row list is one row; several documents share columns") {
  const auto one = tidy_table(Json::parse(R"({"beta": 5, "p_success": 0.5})"));
  CHECK(one.rows.size() == 1);
  const auto both =
      tidy_table({{"c1", Json::parse(R"({"a": 1})")}, {"c2", Json::parse(R"({"b": 2})")}}, "cell");
  CHECK(both.columns == std::vector<std::string>{"cell", "a", "b"});
  CHECK(tidy_csv(both) == "cell,a,b\nc1,1,\nc2,,2\n");
}
