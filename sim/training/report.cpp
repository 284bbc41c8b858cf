#include "phasesim/training/report.hpp"

#include <cmath>

#include "phasesim/core/portable_math.hpp"

namespace phasesim::training {
namespace {

std::vector<double> row_of(const RowMatrix& matrix, Eigen::Index row) {
  return {matrix.row(row).begin(), matrix.row(row).end()};
}

Json slot_phase_json(const SlotPhase& a) { return {{"slot", a.slot}, {"phase", a.phase}}; }

void put_parameters(Json& doc, const LabSpec& spec) {
  const auto& m = spec.model;
  doc["window"] = m.geometry.window;
  doc["stride"] = m.geometry.stride;
  doc["offset"] = m.geometry.offset;
  doc["heads"] = m.heads;
  doc["dim"] = m.dim;
  doc["context"] = m.context;
  doc["entries"] = m.entries();
  doc["query_noise"] = m.query_noise;
  doc["rms_norm"] = m.rms_norm;
  doc["content"] = m.content;
  // The real compressor's options where they apply, as architecture_json writes them: a
  // document of the one-gate layer keeps the keys it always had.
  if (m.per_channel) doc["per_channel"] = true;
  if (m.query_heads > 1) doc["query_heads"] = m.query_heads;
  if (m.query_projection) doc["query_projection"] = true;
  if (m.split_rho < 1) doc["split_rho"] = m.split_rho;
  doc["beta_out"] = m.beta_out;
  doc["answers"] = m.loss.answers;
  doc["steps"] = spec.steps;
  doc["batch"] = spec.batch;
  // Like the real compressor's options: only where it applies, so older documents keep their bits.
  if (spec.batches != Batches::shared) doc["batches"] = to_string(spec.batches);
  doc["lr"] = spec.adam.lr;
  doc["adam"] = {
      {"beta1", spec.adam.beta1}, {"beta2", spec.adam.beta2}, {"epsilon", spec.adam.epsilon}};
  doc["init_scale"] = spec.init_scale;
  doc["init_lambda"] = spec.init_lambda.value_or(spec.default_lambda());
  doc["seed"] = spec.seed;
  doc["record_every"] = spec.record_every;
  doc["log_every"] = spec.log_every;
  doc["group_count"] = spec.groups;  // --groups; "groups" holds the per-group results
  doc["prompts"] = spec.prompts;
}

Json channel_phases_json(const ChannelPhases& c) {
  return {
      {"slot", c.slot}, {"phase", c.phase}, {"phase_share", c.phase_share}, {"entropy", c.entropy}};
}

// A head's channels (a gate per channel): where each points at the start and at the end, the
// share per phase and its entropy, and at every recorded step the shares and each channel's
// argmax slot (the per-channel heatmap over steps).
Json channels_json(const LabResult& result, int h) {
  const auto i = static_cast<std::size_t>(h);
  const auto& start = result.heads.initial_channels[i];
  const auto& end = result.heads.final_channels[i];
  int kept = 0;
  for (std::size_t c = 0; c < end.phase.size(); ++c) kept += start.phase[c] == end.phase[c] ? 1 : 0;
  Json shares = Json::array(), slots = Json::array();
  for (const auto& heads : result.training.channel_trajectory) {
    shares.push_back(heads[i].phase_share);
    slots.push_back(heads[i].slot);
  }
  return {{"initial", channel_phases_json(start)},
          {"final", channel_phases_json(end)},
          {"kept_phase", kept},
          {"phase_share_trajectory", shares},
          {"slot_trajectory", slots}};
}

// The query heads of head h's cache: each its lambda and how far its projection moved from
// the identity (Frobenius norm).
Json query_heads_json(const LabSpec& spec, const LayerParameters& theta, int h) {
  const auto& m = spec.model;
  Json readers = Json::array();
  for (int k = 0; k < m.query_heads; ++k) {
    const int r = h * m.query_heads + k;
    Json reader = {{"query_head", k}, {"lambda", portable::exp(theta.log_lambda()[r])}};
    if (m.query_projection) {
      reader["projection_change"] =
          (theta.projection(r) - Eigen::MatrixXd::Identity(m.dim, m.dim)).norm();
    }
    readers.push_back(reader);
  }
  return readers;
}

Json head_json(const LabSpec& spec, const LabResult& result, int h) {
  const auto& m = spec.model;
  const auto& t = result.training;
  const auto& heads = result.heads;
  const auto i = static_cast<std::size_t>(h);
  Json trajectory = Json::array();
  for (const auto& gates : t.trajectory) trajectory.push_back(row_of(gates, h));
  const double content_norm = t.final.content().row(h).norm();
  Json head = {
      {"head", h},
      {"initial_argmax", slot_phase_json(heads.initial[i])},
      {"final_argmax", slot_phase_json(heads.final[i])},
      {"covers_phase", heads.final[i].phase},
      {"kept_slot", heads.initial[i].slot == heads.final[i].slot},
      {"kept_phase", heads.initial[i].phase == heads.final[i].phase},
      {"final_max_weight", heads.final_max_weight[i]},
      {"final_phase_coverage", heads.final_phase_coverage[i]},
      {"lambda", portable::exp(t.final.log_lambda()[h * m.query_heads])},
      {"content_norm", content_norm},
      // a_h . x_t ~ N(0, |a_h|^2 / d): the content term acts as gate noise of this tau (per
      // channel, (A_h x_t)_c ~ N(0, |A_{h,c}|^2 / d): the rms over channels, |A_h| / d).
      {"content_noise", content_norm / std::sqrt(double(m.dim) * m.channels())},
      {"initial_gate", trajectory.front()},
      {"final_gate", trajectory.back()},
      {"gate_trajectory", trajectory}};
  if (m.per_channel) head["channels"] = channels_json(result, h);
  if (m.query_heads > 1 || m.query_projection) {
    head["query_heads"] = query_heads_json(spec, t.final, h);
  }
  return head;
}

void put_heads(Json& doc, const LabSpec& spec, const LabResult& result) {
  const auto& heads = result.heads;
  doc["per_head"] = Json::array();
  doc["final_gates"] = Json::array();
  doc["covers_phase"] = Json::array();
  for (int h = 0; h < spec.model.heads; ++h) {
    doc["per_head"].push_back(head_json(spec, result, h));
    doc["final_gates"].push_back(row_of(result.training.trajectory.back(), h));
    doc["covers_phase"].push_back(heads.final[static_cast<std::size_t>(h)].phase);
  }
  doc["slots_note"] =
      "a head covers the phase of its final argmax slot: slots of one phase hold the same "
      "tokens in neighbouring entries, so they are interchangeable for retrieval";
  doc["heads_per_phase"] = heads.heads_per_phase;
  doc["blind_phases"] = heads.blind_phases;
  doc["blind_phase_count"] = heads.blind_phases.size();
  doc["initial_blind_phases"] = heads.initial_blind_phases;
  doc["kept_slot"] = heads.kept_slot;
  doc["kept_phase"] = heads.kept_phase;
  const auto S = static_cast<double>(spec.model.geometry.stride);
  doc["blind_expected"] = S * portable::pow(1 - 1 / S, spec.model.heads);
  doc["blind_law"] = heads.blind_law;
}

}  // namespace

Json lab_document(const LabSpec& spec, const LabResult& result) {
  auto doc = new_document("train");
  put_parameters(doc, spec);
  doc["loss_curve"] = Json::array();
  for (const auto& p : result.training.loss_curve) {
    doc["loss_curve"].push_back({{"step", p.step}, {"loss", p.loss}});
  }
  doc["trajectory_steps"] = result.training.trajectory_steps;
  put_heads(doc, spec, result);
  const auto& evaluation = result.evaluation;
  doc["evaluation"] =
      "argmax retrieval of the trained layer on fresh contexts, heads combined by any";
  doc.update(niah::niah_result_json(evaluation.table));
  doc["analytic"] = niah::niah_result_json(evaluation.prediction);
  doc["analytic"]["model"] =
      "the analytic engine on the positional gates softmax(b_h) at beta = sqrt(d / (1 + "
      "sigma_q^2)): large d, no content term, heads independent";
  doc["analytic"]["phase_success"] = evaluation.head_success;
  if (spec.model.query_heads > 1 || spec.model.query_projection) {
    doc["query_heads_note"] =
        "the table counts every query head's argmax (any of them retrieves); the analytic "
        "columns read each head's cache by one query head without projection";
  }
  doc["analytic_shared"] = niah::niah_result_json(evaluation.prediction_shared);
  doc["analytic_shared"]["model"] =
      "as analytic, but the heads of one phase are one reader (they pool the same tokens and "
      "see the same query): each phase gets its best head's probability";
  doc["estimated_period"] = stats::period_json(evaluation.period);
  doc["estimated_period"]["alpha"] = evaluation.period.options.alpha;
  doc["estimated_period"]["replicates"] = evaluation.period.options.replicates;
  return doc;
}

Json gates_document(const LabSpec& spec, const LayerParameters& parameters) {
  auto doc = new_document("train");
  doc["window"] = spec.model.geometry.window;
  doc["stride"] = spec.model.geometry.stride;
  doc["offset"] = spec.model.geometry.offset;
  doc["seed"] = spec.seed;
  doc["gates"] = Json::array();
  if (spec.model.per_channel) {
    // niah's per-channel gate item: channel groups of equal logits, share = count / d.
    for (int h = 0; h < spec.model.heads; ++h) {
      Json groups = Json::array();
      for (const auto& group : channel_groups(parameters, h)) {
        groups.push_back(
            {{"gate", group.spec()}, {"share", double(group.count) / parameters.channels()}});
      }
      doc["gates"].push_back({{"channels", groups}});
    }
  } else {
    const auto gates = positional_gates(parameters);
    for (Eigen::Index h = 0; h < gates.rows(); ++h) doc["gates"].push_back(row_of(gates, h));
  }
  // What a gate file cannot say: niah takes these as --split-rho and as query_heads = K in an
  // architecture file (a gate file gives every head one query head).
  if (spec.model.split_rho < 1) doc["split_rho"] = spec.model.split_rho;
  if (spec.model.query_heads > 1) doc["query_heads"] = spec.model.query_heads;
  return doc;
}

std::string architecture_text(const LabSpec& spec, const LayerParameters& parameters) {
  const auto& m = spec.model;
  std::string text =
      "# written by phasesim train --save-arch (seed " + std::to_string(spec.seed) + ", " +
      std::to_string(spec.steps) + " steps): read it with niah --arch\n" +
      "name = \"trained layer\"\n[[layer]]\nwindow = " + std::to_string(m.geometry.window) +
      "\nstride = " + std::to_string(m.geometry.stride) +
      "\noffset = " + std::to_string(m.geometry.offset) + "\n";
  if (m.query_heads > 1) text += "query_heads = " + std::to_string(m.query_heads) + "\n";
  if (m.split_rho < 1) text += "split_rho = " + format_number(m.split_rho) + "\n";
  text += "heads = [\n";
  for (int h = 0; h < m.heads; ++h) {
    const auto groups = channel_groups(parameters, h);
    if (!m.per_channel) {
      text += "  { gate = \"" + groups.front().spec() + "\" },\n";
      continue;
    }
    text += "  { channels = [\n";
    for (const auto& group : groups) {
      text += "    { gate = \"" + group.spec() +
              "\", share = " + format_number(double(group.count) / m.dim) + " },\n";
    }
    text += "  ] },\n";
  }
  return text + "]\n";
}

}  // namespace phasesim::training
