#include "cli/demo_tour.hpp"

#include <filesystem>
#include <ostream>

namespace phasesim::cli {

// The V4-like head and beta are the fit of experiments/v4-calibration (best 69.9, worst
// 29.7); 4.1483 is the beta at which 8 full-attention heads have the published mean 61.1
// (experiments/w8s8-heads); the gate random:3:0.1 starts on slot 7, of phase 3, so the
// re-weighting towards phase 0 removes all reward from it (experiments/t2-lockin).
const std::vector<DemoStep>& demo_steps() {
  static const std::vector<DemoStep> steps = {
      {"1. Where the phase comes from: V4 writes one cache entry every 4 tokens, each pooling "
       "the last 8 tokens through a gate, so every token has a phase, its position mod 4.",
       "the 'slots' column puts each phase in two of the eight slots, and the 'coverage' column "
       "shows that a gate with all its weight on the newest slot serves phase 3 only.",
       "coverage --window 8 --stride 4 --gate last", "coverage.json"},
      {"2a. Retrieval by needle position in a V4-like model: one head leaning slightly (0.35) "
       "towards the newest slot, and a signal strength beta = 9.51 fitted to V4's published "
       "best (69.9%) and worst (29.7%) groups; 256 test prompts per group, as in the paper.",
       "groups 3 and 7 (needles of phase 3) are found about 70% of the time and the others "
       "about 30%, so accuracy repeats every 4 positions; '± se' is the sampling error.",
       "niah --window 8 --stride 4 --gates logits:0,0,0,0,0,0,0,0.3465 --beta 9.5135 --seed 4",
       "niah_v4.json"},
      {"2b. The same model computed exactly instead of sampled.",
       "0.699 for groups 3 and 7 and 0.297 for the others: the values of step 2a without the "
       "sampling error.",
       "niah --window 8 --stride 4 --gates logits:0,0,0,0,0,0,0,0.3465 --beta 9.5135 "
       "--engine analytic",
       "niah_v4_exact.json"},
      {"2c. Full attention (one cache entry per token) with one head at the same beta, exactly.",
       "every group has the same accuracy: without compression there is no phase to favour.",
       "niah --window 1 --stride 1 --gates last --beta 9.5135 --engine analytic",
       "niah_full_1head.json"},
      {"3a. Theorem 1: when the signal is weak (here beta = 5), the best gate puts almost all "
       "of its weight on a single slot.",
       "the 'check' line: the best gate found has 'max weight' (its largest slot weight) 0.992 "
       "and 'k_effective 1' (one slot above 1%), as predicted, so the verdict is agree.",
       "theorem concentration --beta 5", "theorem_concentration.json"},
      {"3a'. The best gate for beta from 4 to 12 and for caches of 1024 and 32768 entries.",
       "below each cache's critical beta (the 'beta*' table at the end) the best gate puts "
       "most of its weight on one slot ('max_weight' above 0.9); above it, it splits its weight "
       "equally over 2, 3 or 4 slots ('k_optimal').",
       "phase-diagram --window 8 --stride 4 --beta 4,5,6,8,10,12 --entries 1024,32768",
       "phase_diagram.json"},
      {"3b. Theorem 2: a gate trained by gradient ascent keeps the slot it started with as its "
       "favourite, even after the reward moves to a phase that slot does not hold.",
       "the 'check' line counts the runs that end on the slot they started on (4 of 4); "
       "'condition (M)' is the theory's requirement that the favourite slot also gains the "
       "most from each step, and it held in every run.",
       "theorem lockin", "theorem_lockin.json"},
      {"3b'. One such run: the reward moves entirely to phase 0 at step 1000.",
       "the last rows: slot 7 (phase 3), the favourite from the start, still holds 0.987 of the "
       "weight at step 2000, although phase 3 no longer earns anything.",
       "dynamics --beta 4.5 --init random:3:0.1 --steps 2000 --reweight-at 1000 --weights "
       "1,0,0,0 --record-every 50",
       "dynamics.json"},
      {"3c. Theorem 3: N heads that each pick a phase at random lose little on average against "
       "heads spread evenly (a gap that shrinks like C/N), but few heads often leave a phase "
       "with no head at all.",
       "'N*gap' (heads times the average loss gap) approaches the predicted constant C, and "
       "'slope' (how the gap falls with N on log-log axes) approaches -1.",
       "theorem diversity", "theorem_diversity.json"},
      {"3c'. The gap for 4 to 1024 heads.",
       "from 16 heads on, the 'gap' column roughly halves each time the heads double, while "
       "'E[blind]', the expected number of phases no head holds, is 1.27 for 4 heads.",
       "diversity --stride 4 --heads 4,8,16,32,64,128,256,512,1024", "diversity.json"},
      {"4a. A cache with window 8 and stride 8 and 8 heads whose gates each settle on one "
       "random slot, at the beta where full attention with 8 heads has the published mean 61.1%.",
       "group 4 is at 0.000 because no head holds phase 4, although the mean, 0.635, looks "
       "as good as full attention's in step 4b.",
       "niah --window 8 --stride 8 --heads 8 --gates random:1:10 --beta 4.1483 --seed 88",
       "niah_w8s8.json"},
      {"4b. Full attention with 8 heads at the same beta.",
       "every group is near the mean, about 0.61: nothing is blind.",
       "niah --window 1 --stride 1 --heads 8 --gates last --beta 4.1483 --seed 88",
       "niah_full.json"},
  };
  return steps;
}

const std::vector<DemoFigure>& demo_figures() {
  static const std::vector<DemoFigure> figures = {
      {"niah_bars.py",
       {"niah_v4_exact.json", "niah_v4.json", "--label", "exact", "--label",
        "Monte Carlo, 256 prompts per group (95% interval)", "--title",
        "V4-like model, one head, beta 9.51: exact best 69.9, worst 29.7 (dashed: means)"},
       "v4_bars",
       "steps 2a and 2b: the exact accuracy per group next to the sampled one"},
      {"phase_clock.py",
       {"niah_v4_exact.json", "niah_full_1head.json", "--label", "V4-like (window 8, stride 4)",
        "--label", "full attention", "--title",
        "one head at beta 9.51, exact: accuracy (%) by needle position mod 8"},
       "phase_clock",
       "steps 2b and 2c around a circle: two lobes (groups 3 and 7, the favoured phase "
       "once in each period of 4 groups) against a flat circle"},
      {"niah_bars.py",
       {"niah_w8s8.json", "niah_full.json", "--label", "window 8, stride 8, 8 heads", "--label",
        "full attention, 8 heads"},
       "w8s8_vs_full",
       "steps 4a and 4b: similar means, one group at zero"},
      {"gate_heatmap.py",
       {"niah_w8s8.json"},
       "w8s8_gates",
       "step 4a's heads: the hatched slot's phase has no head (the blind phase)"},
      {"phase_diagram.py",
       {"phase_diagram.json"},
       "t1_phase_diagram",
       "theorem 1: one slot below the dotted critical beta, an equal split above it"},
      {"dynamics_trajectories.py",
       {"dynamics.json"},
       "t2_trajectories",
       "theorem 2: the starting favourite keeps its weight after the red re-weighting line"},
      {"diversity_loglog.py",
       {"diversity.json"},
       "t3_loglog",
       "theorem 3: the gap falls along C/N, slope -1 on log-log axes"},
  };
  return figures;
}

// Whether scripts/build-web.sh has built the teaching page (web/).
bool web_page_built() {
  return std::filesystem::is_regular_file(std::filesystem::path(PHASESIM_WEB_BUILD_DIR) /
                                          "phasesim-wasm.js");
}

// The teaching page, when built: its files into DIR/web/.
void copy_web_page(const std::filesystem::path& dir, std::ostream& out) {
  const std::filesystem::path built = PHASESIM_WEB_BUILD_DIR;
  if (!web_page_built()) {
    out << "\nthe model live in a browser: run scripts/build-web.sh (it needs emscripten), then "
           "phasesim demo again\n";
    return;
  }
  std::filesystem::create_directories(dir / "web");
  for (const auto& file : std::filesystem::directory_iterator(built)) {
    const auto type = file.path().extension();
    if (file.is_regular_file() && (type == ".html" || type == ".css" || type == ".js"))
      std::filesystem::copy_file(file, dir / "web" / file.path().filename(),
                                 std::filesystem::copy_options::overwrite_existing);
  }
  out << "\nthe model live in a browser, offline: open " << (dir / "web" / "index.html").string()
      << "\n";
}

}  // namespace phasesim::cli
