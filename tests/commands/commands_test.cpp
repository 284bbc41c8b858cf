// The command objects (phasesim/commands): the option tables every front door reads, the one
// reader of text and of typed values, and the registry.
#include <doctest/doctest.h>

#include <set>

#include "phasesim/commands/command.hpp"
#include "phasesim/commands/model.hpp"
#include "phasesim/commands/niah.hpp"
#include "phasesim/core/error.hpp"

using namespace phasesim;
using namespace phasesim::commands;

namespace {

struct Example {
  int count = 3;
  std::uint64_t seed = 1;
  double beta = 4.5;
  std::string name = "x";
  bool flag = false;
  std::vector<double> weights{1, 2};
  std::optional<int> heads;
  std::optional<std::string> arch;
};

OptionTable<Example> example_table() {
  OptionTable<Example> t;
  t.add("count", &Example::count, "A count", {.short_name = "c"});
  t.add("seed", &Example::seed, "A seed");
  t.add("beta", &Example::beta, "A number");
  t.add("name", &Example::name, "A name", {.aliases = {"nom"}, .excludes = {"arch"}});
  t.add("flag", &Example::flag, "A flag");
  t.add("weights", &Example::weights, "Numbers");
  t.add("heads", &Example::heads, "No default");
  t.add("arch", &Example::arch, "Excludes name");
  return t;
}

const Option& option(const std::string& name) {
  static const auto table = example_table();  // read-only here
  return find_option(table.options(), name);
}

}  // namespace

TEST_CASE("a table reads its kinds and defaults from the struct") {
  const auto t = example_table();
  const auto& o = t.options();
  CHECK(o[0].kind == Kind::integer);
  CHECK(o[0].default_value == 3);
  CHECK(o[1].kind == Kind::seed);
  CHECK(o[2].default_value == 4.5);
  CHECK(o[4].kind == Kind::flag);
  CHECK(o[5].kind == Kind::numbers);
  CHECK(o[5].default_value == Json::array({1.0, 2.0}));
  CHECK(o[6].default_value.is_null());
  CHECK(o[7].python_name() == "arch");
}

TEST_CASE("given values: typed, by name or alias, with dashes or underscores") {
  const auto t = example_table();
  const auto e = t.parse(Json{{"count", 7}, {"nom", "y"}, {"weights", 0.5}, {"heads", 2}});
  CHECK(e.count == 7);
  CHECK(e.name == "y");
  CHECK(e.weights == std::vector<double>{0.5});  // a single value is a list of one
  CHECK(e.heads == 2);
  CHECK(e.beta == 4.5);
  const auto refused = [&](const Json& given, const std::string& line) {
    CHECK_THROWS_WITH_AS(t.parse(given), line.c_str(), InputError);
  };
  refused({{"count", "7"}}, "invalid --count '7' (must be an integer)");
  refused({{"count", 2.5}}, "invalid --count '2.5' (must be an integer)");
  refused({{"count", 99999999999}}, "invalid --count '99999999999' (out of range for this option)");
  refused({{"seed", -1}}, "invalid --seed '-1' (must be an integer in [0, 2^64 - 1])");
  refused({{"beta", "x"}}, "invalid --beta 'x' (must be a number)");
  refused({{"flag", 1}}, "invalid --flag '1' (must be true or false)");
  refused({{"name", 5}}, "invalid --name '5' (must be text)");
  refused({{"bogus", 5}}, "unknown option --bogus");
  refused({{"arch", "a"}, {"name", "b"}}, "--name excludes --arch");
}

TEST_CASE("text is read one way for every front door that gives text (the CLI, sweep files)") {
  CHECK(read_text(option("count"), "10") == 10);
  CHECK(read_text(option("count"), "0") == 0);
  CHECK(read_text(option("beta"), "1e3") == 1000.0);
  CHECK(read_text(option("weights"), "1,2.5") == Json::array({1.0, 2.5}));
  CHECK(read_text(option("flag"), "true") == true);
  const auto refused = [](const std::string& name, const std::string& text,
                          const std::string& line) {
    CHECK_THROWS_WITH_AS(read_text(option(name), text), line.c_str(), InputError);
  };
  refused("count", "", "invalid --count '' (an empty value: give one, or leave --count out)");
  refused("count", " 5", "invalid --count ' 5' (must be an integer)");
  refused("count", "0x10", "invalid --count '0x10' (must be an integer)");
  refused("count", "99999999999999999999",
          "invalid --count '99999999999999999999' (out of range for this option)");
  refused("seed", "-1", "invalid --seed '-1' (must be an integer in [0, 2^64 - 1])");
  refused("beta", "+5", "invalid --beta '+5' (must be a number)");
  // Decimal, and a leading zero refused rather than read as 10 or octal 8 (issue 40).
  refused("count", "010", "invalid --count '010' (a leading zero: numbers are decimal, write 10)");
  refused("seed", "007", "invalid --seed '007' (a leading zero: numbers are decimal, write 7)");
  refused("beta", "-00.5",
          "invalid --beta '-00.5' (a leading zero: numbers are decimal, write -0.5)");
  refused("weights", "1,,2",
          "invalid --weights '1,,2' (item 2 is empty: separate the values by single commas)");
  refused("flag", "yes", "invalid --flag 'yes' (a flag takes true or false)");
}

TEST_CASE("every command's table: unique names, existing exclusions, defaults that validate") {
  const auto registry = builtin_commands(default_environment());
  std::set<std::string> commands;
  for (const auto& command : registry.all()) {
    CAPTURE(command->info().name);
    CHECK(commands.insert(command->info().name).second);
    std::set<std::string> names;
    for (const auto& o : command->options()) {
      CHECK(names.insert(o.name).second);
      for (const auto& a : o.aliases) CHECK(names.insert(a).second);
      if (!o.short_name.empty()) CHECK(names.insert(o.short_name).second);
      for (const auto& e : o.excludes) {
        CHECK_NOTHROW(find_option(command->options(), e));
      }
      CHECK(!o.help.empty());
    }
  }
  CHECK(commands.size() == 18);
  CHECK_THROWS_WITH_AS(registry.find("demo"),
                       doctest::Contains("unknown command 'demo' (commands: coverage, channel"),
                       InputError);
}

TEST_CASE("a command run through the registry gives the typed command's document") {
  const auto environment = default_environment();
  const auto registry = builtin_commands(environment);
  const Json given{
      {"window", 8}, {"stride", 4}, {"beta", 5.0}, {"engine", "analytic"}, {"context", 4096}};
  const auto document = run_prepared(*registry.find("niah").prepare(given), {});
  const CommandOf<Niah> niah(environment);
  const auto typed = niah.make(given);
  CHECK(document == typed->document(typed->run({})));
  CHECK(document["summary"]["mean"].get<double>() > 0);
  CHECK_THROWS_WITH_AS(registry.find("niah").prepare(Json{{"arch", "v4-csa"}, {"window", 8}}),
                       "--window excludes --arch", InputError);
  CHECK_THROWS_WITH_AS(registry.find("niah").prepare(Json{{"threads", 100000}}),
                       doctest::Contains("invalid --threads 100000"), InputError);
}
