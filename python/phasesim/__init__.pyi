# Type stubs of the phasesim package, generated from the built module by python/gen_stubs.py
# (scripts/regen-references.sh): do not edit. ctest references fails when they differ.
import os
from typing import Any, Mapping, Optional, Sequence, Union

Document = dict[str, Any]

__version__: str

def channel(
    *,
    beta: float = 5.0,
    entries: int = 32768,
    u: Sequence[float] = [1.0],
) -> Document:
    """P(needle retrieved) in the standardized channel, by adaptive quadrature (`phasesim channel`).

    Arguments, as the CLI's options (dashes as underscores):
      beta: Signal strength beta >= 0 (default 5.0)
      entries: Entries in all, needle entries included (N - m distractors) (default 32768)
      u: Normalized weights U1,U2,... of the needle's entries (default [1.0])

    Returns the `channel` JSON document as a dict. Bad input raises ValueError with the CLI's
    line; Ctrl-C raises KeyboardInterrupt.
    """

def compare(
    architectures: Sequence[str],
    *,
    beta: Optional[float] = None,
    dim: Optional[int] = None,
    query_noise: float = 0.0,
    content_noise: float = 0.0,
    rms_norm: bool = False,
    context: int = 131072,
    groups: int = 8,
    prompts: int = 256,
    combine: str = 'any',
    engine: str = 'fast',
    seed: int = 1,
    threads: int = 0,
) -> Document:
    """Architectures on the same needles: KV cost, mean, worst, gap, paired difference (`phasesim compare`).

    Arguments, as the CLI's options (dashes as underscores):
      architectures: Architecture files or presets (moba, nsa, nsa-compression, v4-csa,
          v4-flash, v4-hca, v4-pro, v41-csa, v41-flash); differences are against the first
          (required)
      beta: Standardized channel: signal strength beta (4.5 when neither --beta nor --dim is
          given) (not given)
      dim: Full-vector model: key dimension d (instead of --beta) (not given)
      query_noise: Full-vector model: query noise sigma_q (default 0.0)
      content_noise: Content noise tau of the gate (default 0.0)
      rms_norm: RMS-normalize every pooled entry (default False)
      context: Context length L in tokens (default 131072)
      groups: Groups G (group = needle position mod G) (default 8)
      prompts: Prompts (trials) per group (default 256)
      combine: Combine heads: any or vote:K (default 'any')
      engine: analytic, fast, full, full-double, gpu (default 'fast')
      seed: Random seed (default 1)
      threads: OpenMP threads (0: the OpenMP default) (default 0)

    Returns the `compare` JSON document as a dict. Bad input raises ValueError with the CLI's
    line; Ctrl-C raises KeyboardInterrupt.
    """

def coverage(
    *,
    window: int = 8,
    stride: int = 4,
    gates: str = 'last',
    index_gates: Optional[str] = None,
    arch: Union[str, os.PathLike, None] = None,
) -> Document:
    """Per-phase slots, multiplicity and coverage of a gate (`phasesim coverage`).

    Arguments, as the CLI's options (dashes as underscores):
      window: Window W (tokens per entry) (default 8)
      stride: Stride S (tokens between entries) (default 4)
      gates: Gate: uniform, last, onehot:K, weights:a,b,..., logits:a,b,..., random:SEED[:SCALE]
          or channels:SPEC=SHARE|SPEC=SHARE|... (per-channel groups) (default 'last')
      index_gates: The read path's index gate (stage 1, selection), in the forms of --gates (not
          given)
      arch: Architecture: a TOML file of layers of heads (window, stride, offset, gate per head)
          or a preset (moba, nsa, nsa-compression, v4-csa, v4-flash, v4-hca, v4-pro, v41-csa,
          v41-flash); replaces --window, --stride, --gates, --index-gates (not given)

    Returns the `coverage` JSON document as a dict. Bad input raises ValueError with the CLI's
    line; Ctrl-C raises KeyboardInterrupt.
    """

def diagnose(
    table: Union[str, os.PathLike, Mapping[str, Sequence[float]], Any],
    *,
    window: Optional[int] = None,
    stride: Optional[int] = None,
    context: Optional[int] = None,
    heads: Optional[int] = None,
    top_k: Optional[int] = None,
    sliding_window: Optional[int] = None,
    needle_tokens: Optional[int] = None,
    replicates: int = 9999,
    seed: int = 1,
    threads: int = 0,
) -> Document:
    """From a per-group NIAH table back to the model: period, covered phases, beta and gates, prompts needed (`phasesim diagnose`).

    Arguments, as the CLI's options (dashes as underscores):
      table: CSV with columns group,successes,trials or group,accuracy,trials, or a `phasesim
          niah --json` result (required)
      window: Window W, when known (not given)
      stride: Stride S, when known (not given)
      context: Context length L in tokens, when known (default 131072) (not given)
      heads: KV heads H, when known (default 1); H > 1 fits one-hot heads (not given)
      top_k: The read path's top-k, when the table was made with one: the fits' success is its
          two stages (docs/DIAGNOSE.md) (not given)
      sliding_window: The read path's raw sliding window in tokens, when the table was made with
          one (not given)
      needle_tokens: Tokens of the needle: 1 or 2 (2: one head, one weight per phase, or with
          --heads one-hot heads, fitted through the analytic engine's 2-token read) (not given)
      replicates: Monte Carlo draws of each exact test's null distribution (default 9999)
      seed: Random seed of the exact tests (default 1)
      threads: OpenMP threads (0: the OpenMP default) (default 0)

    Returns the `diagnose` JSON document as a dict. Bad input raises ValueError with the CLI's
    line; Ctrl-C raises KeyboardInterrupt.
    """

def diversity(
    *,
    stride: int = 4,
    heads: Sequence[int] = [4, 8, 16, 32, 64, 128, 256, 512, 1024],
    beta_out: float = 12.0,
    success: float = 0.9,
    answers: float = 1000.0,
    samples: int = 0,
    seed: int = 1,
    train_heads: Sequence[int] = [],
    train_runs: int = 12,
    train_steps: int = 300,
    train_seed: int = 1,
    lr: float = 20.0,
    init_scale: float = 0.1,
    window: int = 8,
    beta: float = 4.5,
    entries: int = 32768,
) -> Document:
    """The 1/N diversification gain and blind phases of N heads (T3) (`phasesim diversity`).

    Arguments, as the CLI's options (dashes as underscores):
      stride: Stride S (phases) (default 4)
      heads: Head counts N1,N2,... (default [4, 8, 16, 32, 64, 128, 256, 512, 1024])
      beta_out: Output signal scale beta_o (default 12.0)
      success: p, per-head success on a covered phase (default 0.9)
      answers: M competing answers in l(z) (default 1000.0)
      samples: Also sample K head assignments (Monte Carlo check; 0: exact only) (default 0)
      seed: Seed of the sampled assignments (default 1)
      train_heads: Also train H1,H2,... heads jointly on the output loss (T3) (default [])
      train_runs: Training runs per head count (default 12)
      train_steps: Training steps (default 300)
      train_seed: Run r, head h starts from random:TRAIN_SEED+1000r+h:SCALE (default 1)
      lr: Training learning rate (as in dynamics) (default 20.0)
      init_scale: SCALE of the head inits (default 0.1)
      window: Window W of the heads' channel (default 8)
      beta: beta of the heads' channel (default 4.5)
      entries: Entries N of the heads' channel (default 32768)

    Returns the `diversity` JSON document as a dict. Bad input raises ValueError with the CLI's
    line; Ctrl-C raises KeyboardInterrupt.
    """

def dynamics(
    *,
    window: int = 8,
    stride: int = 4,
    beta: float = 4.5,
    entries: int = 32768,
    model: str = 'normalized',
    steps: int = 2000,
    lr: float = 20.0,
    max_logit_step: float = 0.1,
    update: str = 'gradient',
    content_noise: float = 0.0,
    content_seed: Sequence[int] = [1],
    content_samples: int = 16,
    init: str = 'random:1:0.1',
    inits: int = 1,
    reweight_at: int = -1,
    weights: Sequence[float] = [],
    record_every: int = 200,
    progress: bool = False,
) -> Document:
    """Gradient ascent on the gate logits from random inits: lock-in (T2) (`phasesim dynamics`).

    Arguments, as the CLI's options (dashes as underscores):
      window: Window W (tokens per entry) (default 8)
      stride: Stride S (tokens between entries) (default 4)
      beta: Signal strength beta >= 0 (default 4.5)
      entries: Entries N in all (the needle's included) (default 32768)
      model: normalized (u = g/||g||, the physical model), linear (A_lin(c), T1a) or channels
          (the weights are shares of one-hot channel groups) (default 'normalized')
      steps: Ascent steps (default 2000)
      lr: Learning rate (step size per unit gradient) (default 20.0)
      max_logit_step: Split a step that would move a logit by more than this (follow the flow)
          (default 0.1)
      update: gradient (b += lr dJ/db) or replicator (b += lr dJ/dg, mirror ascent) (default
          'gradient')
      content_noise: tau: gate logits b + tau xi per token in the needle's entries (0: none)
          (default 0.0)
      content_seed: Seed(s) of the content draws, comma-separated: one run per seed (default
          [1])
      content_samples: Needle contexts per phase and step (antithetic pairs) (default 16)
      init: Initial gate: uniform, last, onehot:K, weights:a,b,..., logits:a,b,...,
          random:SEED[:SCALE] or channels:SPEC=SHARE|SPEC=SHARE|... (per-channel groups)
          (default 'random:1:0.1')
      inits: Runs from K inits (random:SEED+i:SCALE for a random --init): batch mode (default 1)
      reweight_at: After this many steps switch J's phase weights to --weights (-1: never)
          (default -1)
      weights: Phase weights w0,w1,... from --reweight-at on (default [])
      record_every: Trajectory points every K steps (default 200)
      progress: Show progress and the time left on stderr (default: only on a terminal) (default
          False)

    Returns the `dynamics` JSON document as a dict. Bad input raises ValueError with the CLI's
    line; Ctrl-C raises KeyboardInterrupt.
    """

def frontier(
    *,
    context: int = 131072,
    needle_tokens: int = 1,
    beta: float = 9.5135,
    floor: Optional[float] = None,
    weight: Optional[float] = None,
    ratios: Sequence[int] = [4, 16, 128],
    overlaps: Sequence[int] = [1, 2],
    gate_families: Sequence[str] = ['uniform', 'last', 'spread'],
    caches: Sequence[int] = [1],
    top_k: Sequence[int] = [0, 512],
    sliding_windows: Sequence[int] = [0, 128],
    index_beta: Optional[float] = None,
    index_rho: Optional[float] = None,
    sink: Optional[float] = None,
    presets: bool = True,
    prompts: int = 256,
    out: Optional[str] = None,
    seed: int = 1,
    threads: int = 0,
    progress: bool = False,
) -> Document:
    """The Pareto frontier of KV cost and read cost against the worst phase and mean (`phasesim frontier`).

    Arguments, as the CLI's options (dashes as underscores):
      context: Context length L in tokens (default 131072)
      needle_tokens: Tokens n of the needle (n > 1 runs on the fast engine) (default 1)
      beta: Signal strength beta of the standardized channel (default: where one gate gives
          V4-Flash-Base's table, presets/v4-csa.toml's one_gate_beta) (default 9.5135)
      floor: Drop designs whose worst phase is below this accuracy, in [0, 1] (not given)
      weight: One quality score, weight x mean + (1 - weight) x worst, in [0, 1] (default: worst
          and mean are separate objectives) (not given)
      ratios: Compress ratios: the strides S (default [4, 16, 128])
      overlaps: Windows as multiples of the stride: W = overlap x S (default [1, 2])
      gate_families: Gates: uniform, last (one-hot on the newest slot), spread (channels one-hot
          on every phase, equal shares), or a gate spec in --gates' forms; words, not commas:
          --gate-families uniform last (default ['uniform', 'last', 'spread'])
      caches: Caches per layer (independent compressors, entry boundaries spread over the
          stride) (default [1])
      top_k: Entries kept by the selection (0: every entry) (default [0, 512])
      sliding_windows: Raw tokens of the sliding window read beside the entries (default [0,
          128])
      index_beta: The selection score's signal strength (default: beta) (not given)
      index_rho: Correlation of an entry's selection score and attention logit (not 0: the fast
          engine) (not given)
      sink: A stage-2 competitor with this standardized logit (not given)
      presets: Also run the presets (presets/*.toml) and mark them (default True)
      prompts: Prompts per group of the rows the fast engine runs (default 256)
      out: Folder to write the frontier's architecture files into (NAME.toml) (not given)
      seed: Random seed (default 1)
      threads: OpenMP threads (0: the OpenMP default) (default 0)
      progress: Show progress and the time left on stderr (default: only on a terminal) (default
          False)

    Returns the `frontier` JSON document as a dict. Bad input raises ValueError with the CLI's
    line; Ctrl-C raises KeyboardInterrupt.
    """

def inspect(
    path: Union[str, os.PathLike],
    *,
    beta: float = 4.5,
    context: int = 131072,
    groups: int = 8,
    content_columns: int = 256,
    save_arch: Optional[str] = None,
) -> Document:
    """A real checkpoint's phase profile predicted from its compressor weights (`phasesim inspect`).

    Arguments, as the CLI's options (dashes as underscores):
      path: Checkpoint: a folder (config.json, model.safetensors or its index and shards) or one
          .safetensors file with config.json beside it (required)
      beta: Standardized channel: signal strength beta of the predicted tables (not in the
          weights) (default 4.5)
      context: Context length L in tokens (default 131072)
      groups: Groups G (group = needle position mod G) (default 8)
      content_columns: Columns of each gate projection row read for its content noise (0: all)
          (default 256)
      save_arch: Write the stack as an architecture file (niah --arch FILE.toml --engine
          analytic) (not given)

    Returns the `inspect` JSON document as a dict. Bad input raises ValueError with the CLI's
    line; Ctrl-C raises KeyboardInterrupt.
    """

def niah(
    *,
    window: int = 8,
    stride: int = 4,
    heads: Optional[int] = None,
    gates: str = 'last',
    offset: int = 0,
    split_rho: float = 1.0,
    arch: Union[str, os.PathLike, None] = None,
    top_k: Optional[int] = None,
    index_gates: Optional[str] = None,
    index_beta: Optional[float] = None,
    index_rho: Optional[float] = None,
    sliding_window: Optional[int] = None,
    sink: Optional[float] = None,
    raw_blocks: bool = False,
    needle_tokens: int = 1,
    beta: Optional[float] = None,
    dim: Optional[int] = None,
    query_noise: float = 0.0,
    content_noise: float = 0.0,
    rms_norm: bool = False,
    context: int = 131072,
    groups: int = 8,
    prompts: int = 256,
    combine: str = 'any',
    engine: str = 'fast',
    seed: int = 1,
    threads: int = 0,
    knockout: Optional[int] = None,
    progress: bool = False,
) -> Document:
    """Per-phase needle-in-a-haystack accuracy of a compressed cache (`phasesim niah`).

    Arguments, as the CLI's options (dashes as underscores):
      window: Window W (tokens per entry) (default 8)
      stride: Stride S (tokens between entries) (default 4)
      heads: Heads H (replicates a single --gates spec; default: one per gate) (not given)
      gates: Gate per head, ';'-separated, or @file.json: uniform, last, onehot:K,
          weights:a,b,..., logits:a,b,..., random:SEED[:SCALE] or
          channels:SPEC=SHARE|SPEC=SHARE|... (per-channel groups) (default 'last')
      offset: Entry boundaries shifted by O tokens (0 <= O < S), for every head (default 0)
      split_rho: Correlation of a token's keys in its entries' newer and older slots (split
          projections, MODEL.md section 9; 1: one projection; an architecture file gives
          split_rho per layer or head) (default 1.0)
      arch: Architecture: a TOML file of layers of heads (window, stride, offset, gate per head)
          or a preset (moba, nsa, nsa-compression, v4-csa, v4-flash, v4-hca, v4-pro, v41-csa,
          v41-flash); replaces --window, --stride, --heads, --gates, --offset, --split-rho (not
          given)
      top_k: Stage 1 keeps the K entries with the best selection scores (default: every entry,
          the argmax over all; a K at least the entries selects nothing) (not given)
      index_gates: The selection score's gate: one for every head or one per head,
          ';'-separated, in the forms of --gates (default: the head's own gate) (not given)
      index_beta: The selection score's signal strength (default: the model's beta) (not given)
      index_rho: Correlation of an entry's selection score and attention logit, in [-1, 1]
          (default 0) (not given)
      sliding_window: The last N tokens are also read raw in stage 2, one entry each (default 0)
          (not given)
      sink: A stage-2 competitor with this standardized logit: when it wins, nothing is read
          (not given)
      raw_blocks: Stage 2 reads the raw tokens of the kept entries (NSA's selection branch,
          MoBA), the needle's at u = 1, not their pooled keys (needs --window = --stride)
          (default False)
      needle_tokens: Tokens n of the needle (p..p+n-1); the query matches the normalized sum of
          their keys (default 1)
      beta: Standardized channel: signal strength beta (4.5 when neither --beta nor --dim is
          given) (not given)
      dim: Full-vector model: key dimension d (instead of --beta) (not given)
      query_noise: Full-vector model: query noise sigma_q (default 0.0)
      content_noise: Content noise tau of the gate (default 0.0)
      rms_norm: RMS-normalize every pooled entry (default False)
      context: Context length L in tokens (default 131072)
      groups: Groups G (group = needle position mod G) (default 8)
      prompts: Prompts (trials) per group (default 256)
      combine: Combine heads: any or vote:K (default 'any')
      engine: analytic, fast, full, full-double, gpu (default 'fast')
      seed: Random seed (default 1)
      threads: OpenMP threads (0: the OpenMP default) (default 0)
      knockout: Also report each group without head H (0-based, over all layers) (not given)
      progress: Show progress and the time left on stderr (default: only on a terminal) (default
          False)

    Returns the `niah` JSON document as a dict. Bad input raises ValueError with the CLI's line;
    Ctrl-C raises KeyboardInterrupt.
    """

def optimize(
    *,
    window: int = 8,
    stride: int = 4,
    beta: float = 4.5,
    entries: int = 32768,
    model: str = 'normalized',
    weights: Sequence[float] = [],
    top_k: Optional[int] = None,
    restarts: int = 8,
    seed: int = 1,
    init_scale: float = 2.0,
    max_iterations: int = 500,
    progress: bool = False,
) -> Document:
    """The gate that maximizes J (L-BFGS on the logits, exact gradients, restarts) (`phasesim optimize`).

    Arguments, as the CLI's options (dashes as underscores):
      window: Window W (tokens per entry) (default 8)
      stride: Stride S (tokens between entries) (default 4)
      beta: Signal strength beta >= 0 (default 4.5)
      entries: Entries N in all (the needle's included) (default 32768)
      model: normalized (u = g/||g||, the physical model), linear (A_lin(c), T1a) or channels
          (the weights are shares of one-hot channel groups) (default 'normalized')
      weights: Phase weights w0,w1,... of J (default uniform) (default [])
      top_k: T1 under selection (MODEL.md section 10): a phase succeeds when its best entry
          ranks in the top K (default: 1, the argmax) (not given)
      restarts: Random starts random:SEED+r:SCALE besides the equal splits (default 8)
      seed: SEED of the random starts random:SEED+r:SCALE (default 1)
      init_scale: SCALE of the random starts (default 2.0)
      max_iterations: L-BFGS iterations per start (default 500)
      progress: Show progress and the time left on stderr (default: only on a terminal) (default
          False)

    Returns the `optimize` JSON document as a dict. Bad input raises ValueError with the CLI's
    line; Ctrl-C raises KeyboardInterrupt.
    """

def phase_diagram(
    *,
    window: int = 8,
    stride: int = 4,
    model: str = 'normalized',
    top_k: Optional[int] = None,
    beta: str = '4:12:1',
    entries: Sequence[int] = [1024, 32768, 1000000],
    restarts: int = 2,
    seed: int = 1,
    init_scale: float = 2.0,
    max_iterations: int = 500,
    progress: bool = False,
) -> Document:
    """Optimal k and max weight over (beta, N), and the critical beta*(N) (`phasesim phase-diagram`).

    Arguments, as the CLI's options (dashes as underscores):
      window: Window W (tokens per entry) (default 8)
      stride: Stride S (tokens between entries) (default 4)
      model: normalized (u = g/||g||, the physical model), linear (A_lin(c), T1a) or channels
          (the weights are shares of one-hot channel groups) (default 'normalized')
      top_k: T1 under selection (MODEL.md section 10): a phase succeeds when its best entry
          ranks in the top K (default: 1, the argmax) (not given)
      beta: Betas: a:b:step (inclusive) or a comma list (default '4:12:1')
      entries: Entry counts N1,N2,... (entries in all) (default [1024, 32768, 1000000])
      restarts: Random starts per cell besides the equal splits and the warm start (default 2)
      seed: SEED of the random starts random:SEED+r:SCALE (default 1)
      init_scale: SCALE of the random starts (default 2.0)
      max_iterations: L-BFGS iterations per start (default 500)
      progress: Show progress and the time left on stderr (default: only on a terminal) (default
          False)

    Returns the `phase-diagram` JSON document as a dict. Bad input raises ValueError with the
    CLI's line; Ctrl-C raises KeyboardInterrupt.
    """

def sweep(
    file: Union[str, os.PathLike],
    *,
    out: str,
    resume: bool = False,
    threads: int = 0,
    progress: bool = False,
) -> Document:
    """Run a command over a grid of options from a TOML file, in parallel, resumably (`phasesim sweep`).

    Arguments, as the CLI's options (dashes as underscores):
      file: Sweep file (TOML): command, seed, [options] (required)
      out: Directory for sweep.json, cells/ and results.csv (required)
      resume: Continue an interrupted sweep in --out (default False)
      threads: Cells run at once (0: all cores) (default 0)
      progress: Show the cells done and the time left (the CLI always shows them on stderr)
          (default False)

    Returns the `sweep` JSON document as a dict. Bad input raises ValueError with the CLI's
    line; Ctrl-C raises KeyboardInterrupt.
    """

def theorem_concentration(
    *,
    window: int = 8,
    stride: int = 4,
    beta: float = 4.5,
    entries: int = 32768,
    model: str = 'normalized',
    weights: Sequence[float] = [],
    top_k: Optional[int] = None,
    restarts: int = 8,
    seed: int = 1,
    init_scale: float = 2.0,
    max_iterations: int = 500,
    threshold: float = 0.99,
    progress: bool = False,
) -> Document:
    """T1: the optimal gate is concentrated (one-hot in the linear model) (`phasesim theorem concentration`).

    Arguments, as the CLI's options (dashes as underscores):
      window: Window W (tokens per entry) (default 8)
      stride: Stride S (tokens between entries) (default 4)
      beta: Signal strength beta >= 0 (default 4.5)
      entries: Entries N in all (the needle's included) (default 32768)
      model: normalized (u = g/||g||, the physical model) or linear (A_lin(c), T1a) (default
          'normalized')
      weights: Phase weights w0,w1,... of J (default uniform) (default [])
      top_k: T1 under selection (MODEL.md section 10): a phase succeeds when its best entry
          ranks in the top K (default: 1, the argmax) (not given)
      restarts: Random starts of the optimizer (default 8)
      seed: SEED of the random starts random:SEED+r:SCALE (default 1)
      init_scale: SCALE of the random starts (default 2.0)
      max_iterations: L-BFGS iterations per start (default 500)
      threshold: Max weight that counts as concentrated (default 0.99)
      progress: Show progress and the time left on stderr (default: only on a terminal) (default
          False)

    Returns the `theorem concentration` JSON document as a dict. Bad input raises ValueError
    with the CLI's line; Ctrl-C raises KeyboardInterrupt.
    """

def theorem_diversity(
    *,
    stride: int = 4,
    heads: Sequence[int] = [64, 128, 256, 512, 1024],
    beta_out: float = 12.0,
    success: float = 0.9,
    answers: float = 1000.0,
    tolerance: float = 0.05,
) -> Document:
    """T3: the diversification gain is C/N + O(1/N^2) (`phasesim theorem diversity`).

    Arguments, as the CLI's options (dashes as underscores):
      stride: Stride S (phases) (default 4)
      heads: Head counts N1,N2,... (default [64, 128, 256, 512, 1024])
      beta_out: Output signal scale beta_o (default 12.0)
      success: p, per-head success on a covered phase (default 0.9)
      answers: M competing answers in l(z) (default 1000.0)
      tolerance: Allowed relative error of N*gap against C, and of the slope against -1 (default
          0.05)

    Returns the `theorem diversity` JSON document as a dict. Bad input raises ValueError with
    the CLI's line; Ctrl-C raises KeyboardInterrupt.
    """

def theorem_lockin(
    *,
    window: int = 8,
    stride: int = 4,
    beta: float = 4.5,
    entries: int = 32768,
    model: str = 'normalized',
    steps: int = 2000,
    lr: float = 20.0,
    max_logit_step: float = 0.1,
    update: str = 'gradient',
    content_noise: float = 0.0,
    content_seed: Sequence[int] = [1],
    content_samples: int = 16,
    init: str = 'random:1:0.1',
    inits: int = 4,
    reweight_steps: int = 500,
    progress: bool = False,
) -> Document:
    """T2: the winner is the initial argmax and stays when the phases are re-weighted (`phasesim theorem lockin`).

    Arguments, as the CLI's options (dashes as underscores):
      window: Window W (tokens per entry) (default 8)
      stride: Stride S (tokens between entries) (default 4)
      beta: Signal strength beta >= 0 (default 4.5)
      entries: Entries N in all (the needle's included) (default 32768)
      model: normalized (u = g/||g||, the physical model), linear (A_lin(c), T1a) or channels
          (the weights are shares of one-hot channel groups) (default 'normalized')
      steps: Ascent steps (default 2000)
      lr: Learning rate (step size per unit gradient) (default 20.0)
      max_logit_step: Split a step that would move a logit by more than this (follow the flow)
          (default 0.1)
      update: gradient (b += lr dJ/db) or replicator (b += lr dJ/dg, mirror ascent) (default
          'gradient')
      content_noise: tau: gate logits b + tau xi per token in the needle's entries (0: none)
          (default 0.0)
      content_seed: Seed(s) of the content draws, comma-separated: one run per seed (default
          [1])
      content_samples: Needle contexts per phase and step (antithetic pairs) (default 16)
      init: Initial gate: uniform, last, onehot:K, weights:a,b,..., logits:a,b,...,
          random:SEED[:SCALE] or channels:SPEC=SHARE|SPEC=SHARE|... (per-channel groups)
          (default 'random:1:0.1')
      inits: Runs from K inits (random:SEED+i:SCALE) (default 4)
      reweight_steps: Steps after moving all phase weight to a phase the winner does not cover
          (default 500)
      progress: Show progress and the time left on stderr (default: only on a terminal) (default
          False)

    Returns the `theorem lockin` JSON document as a dict. Bad input raises ValueError with the
    CLI's line; Ctrl-C raises KeyboardInterrupt.
    """

def to_frame(
    result: dict[str, Any],
) -> Any:
    """The tidy table of a result as a pandas DataFrame: the library's, which a sweep writes as
    results.csv and the page exports as CSV (phasesim/core/tidy.hpp). One row per item of its
    row list ("groups", "phases" or "rows"; for compare per architecture and group, for
    coverage of an architecture per cache and phase; one row when it has none), every scalar of
    the document a column, one-level objects flattened as summary_mean, lists of scalars as
    their JSON text. For a sweep's result, its results.csv.
    """

def train(
    *,
    window: int = 8,
    stride: int = 4,
    offset: int = 0,
    heads: int = 8,
    dim: int = 32,
    context: int = 2048,
    query_noise: float = 1.0,
    rms_norm: bool = False,
    content: bool = True,
    per_channel: bool = False,
    query_heads: int = 1,
    query_projection: bool = False,
    split_rho: float = 1.0,
    beta_out: float = 12.0,
    answers: float = 1000.0,
    steps: int = 2000,
    batch: int = 16,
    batches: str = 'shared',
    lr: float = 0.05,
    init_scale: float = 0.1,
    init_lambda: Optional[float] = None,
    seed: int = 1,
    record_every: int = 20,
    log_every: int = 200,
    progress: bool = False,
    groups: int = 8,
    prompts: int = 256,
    threads: int = 0,
    save_gates: Optional[str] = None,
    save_arch: Optional[str] = None,
) -> Document:
    """Train a tiny compressed-attention layer; read its gates and NIAH table (`phasesim train`).

    Arguments, as the CLI's options (dashes as underscores):
      window: Window W (tokens per entry) (default 8)
      stride: Stride S (tokens between entries) (default 4)
      offset: Entry boundaries shifted by O tokens (0 <= O < S), for every head (default 0)
      heads: Heads H (default 8)
      dim: Embedding dimension d (default 32)
      context: Context length L in tokens (default 2048)
      query_noise: Query noise sigma_q (default 1.0)
      rms_norm: RMS-normalize every pooled key (default False)
      content: Learn the gate's content term a_h . x_t (--no-content: a = 0) (default True)
      per_channel: A gate per channel: bias W x d and content matrix d x d per head (V4's ape)
          (default False)
      query_heads: K query heads read each head's cache, each its own query noise and lambda
          (default 1)
      query_projection: Each query head learns a d x d projection of its query (identity at step
          0) (default False)
      split_rho: Older slots read rho x_t + sqrt(1 - rho^2) x''_t (split projections) (default
          1.0)
      beta_out: Output loss scale beta_o in l(beta_o m) (default 12.0)
      answers: M competing answers in l(z) = log(1 + M e^-z) (default 1000.0)
      steps: Adam steps (default 2000)
      batch: Contexts per step (one needle each) (default 16)
      batches: shared: every head's gradient from one batch; independent: each head its own
          batch (H times the contexts) (default 'shared')
      lr: Adam learning rate (default 0.05)
      init_scale: Initial biases: head h starts at random:SEED+h:SCALE (default 0.1)
      init_lambda: Initial attention inverse temperature (default sqrt(d), 1 with --rms-norm)
          (not given)
      seed: Random seed (initial gates, contexts, evaluation) (default 1)
      record_every: Gate trajectory and loss curve every K steps (default 20)
      log_every: A log line every K steps (default 200)
      progress: Show the time left in the log (always on a terminal) (default False)
      groups: Evaluation: groups G (needle position mod G) (default 8)
      prompts: Evaluation: prompts (trials) per group (default 256)
      threads: OpenMP threads (0: the OpenMP default) (default 0)
      save_gates: Write the trained gates as a gate file (niah --gates @FILE.json) (not given)
      save_arch: Write the trained layer as an architecture file (niah --arch FILE.toml) (not
          given)

    Returns the `train` JSON document as a dict. Bad input raises ValueError with the CLI's
    line; Ctrl-C raises KeyboardInterrupt.
    """
