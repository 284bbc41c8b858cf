#include "phasesim/commands/model.hpp"

#include "commands/common_options.hpp"
#include "phasesim/channel/channel.hpp"
#include "phasesim/model/coverage.hpp"

namespace phasesim::commands {

CommandInfo Channel::info() {
  CommandInfo info{"channel",
                   "P(needle retrieved) in the standardized channel, by adaptive quadrature"};
  info.details =
      "The success probability of a needle held by entries with normalized weights U among N "
      "entries (adaptive quadrature, absolute error below 1e-9).";
  return info;
}

OptionTable<Channel::Options> Channel::table(const Environment&) {
  OptionTable<Options> t;
  t.add("beta", &Options::beta, "Signal strength beta >= 0");
  t.add("entries", &Options::entries, "Entries in all, needle entries included (N - m distractors)",
        {.short_name = "N"});
  t.add("u", &Options::u, "Normalized weights U1,U2,... of the needle's entries");
  return t;
}

Channel::Channel(Options options, const Environment&) : options_(std::move(options)) {
  channel::validate_channel_inputs(options_.beta, options_.u, options_.entries);
}

Json Channel::run(const Context&) const {
  return channel::channel_document(options_.beta, options_.u, options_.entries);
}

CommandInfo Coverage::info() {
  CommandInfo info{"coverage", "Per-phase slots, multiplicity and coverage of a gate"};
  info.details =
      "Slots, multiplicity and coverage of each phase under one gate; with --arch, of every cache "
      "of an architecture (a cache read by K query heads once), with its KV cost. With an index "
      "gate (--index-gates, or index_gate in the architecture file), the coverage stage 1 "
      "(selection) sees beside stage 2's (attention), MODEL.md section 10.";
  return info;
}

OptionTable<Coverage::Options> Coverage::table(const Environment&) {
  OptionTable<Options> t;
  add_geometry(t, &Options::window, &Options::stride);
  t.add("gates", &Options::gates, std::string("Gate: ") + kGateFormsHelp, {.aliases = {"gate"}});
  t.add("index-gates", &Options::index_gates,
        "The read path's index gate (stage 1, selection), in the forms of --gates");
  add_arch(t, &Options::arch, {"window", "stride", "gates", "index-gates"});
  return t;
}

Coverage::Coverage(Options options, const Environment&) : options_(std::move(options)) {
  if (options_.arch) {
    architecture_ = niah::load_architecture(*options_.arch);
    niah::check_coverage_work(*options_.arch, *architecture_);
  } else {
    gate_ = coverage_gate(geometry(), options_.gates);
    if (options_.index_gates) index_gate_ = coverage_gate(geometry(), *options_.index_gates);
  }
}

Work Coverage::work() const {
  Work work{architecture_ ? niah::architecture_coverage_work(*architecture_) : WorkEstimate{}};
  work.serial = true;
  return work;
}

Json Coverage::run(const Context&) const {
  if (architecture_) return niah::architecture_coverage_document(*options_.arch, *architecture_);
  auto doc = coverage_document(geometry(), *gate_);
  if (index_gate_) add_index_coverage(doc, geometry(), *index_gate_);
  return doc;
}

}  // namespace phasesim::commands
