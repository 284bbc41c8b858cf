// The teaching page: six panels over window.phasesim (phasesim.js; the frontier's panel is in
// frontier.js). Every number shown comes from a phasesim document; this file only gathers the
// controls into command options, draws the documents, and keeps every control in the address
// (#key=value&...), so that a link reopens the page as it was.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const PHASE_COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2",
  "#edc948", "#ff9da7", "#9c755f", "#bab0ac"];
const phaseColour = (phase) => PHASE_COLOURS[phase % PHASE_COLOURS.length];
const $ = (id) => document.getElementById(id);
const fixed = (x, digits = 3) => (x === null || x === undefined ? "n/a" : Number(x).toFixed(digits));

// ---- the address: every control's value, under its element id ----------------------------

const state = new URLSearchParams(location.hash.slice(1));

function saveState() {
  history.replaceState(null, "", "#" + state.toString());
}

// A control whose value lives in the address: restored from it, written back on each change
// (on `event`: "input" while a slider moves, "change" once it is let go).
function bind(id, onChange, event = "input") {
  const input = $(id);
  if (state.has(id)) input.value = state.get(id);
  const output = input.parentElement.querySelector("output");
  const show = () => {
    if (output) output.textContent = input.value;
  };
  show();
  input.addEventListener("input", show);
  input.addEventListener(event, () => {
    state.set(id, input.value);
    saveState();
    show();
    onChange();
  });
  return input;
}

const numberOf = (id) => Number($(id).value);

// ---- drawing ------------------------------------------------------------------------------

function svgElement(name, attributes, parent, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== undefined) element.textContent = text;
  if (parent) parent.appendChild(element);
  return element;
}

function clear(svg, width, height) {
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  return svg;
}

// Bars of values in [0, 1] with optional 95% intervals [low, high] and labels under them.
function drawBars(svg, bars, { colour = () => "#4e79a7", yLabel = "" } = {}) {
  const width = 420, height = 220, left = 36, bottom = 24, top = 10;
  clear(svg, width, height);
  const plotHeight = height - bottom - top;
  const y = (v) => top + plotHeight * (1 - v);
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    svgElement("line", { x1: left, x2: width, y1: y(tick), y2: y(tick), class: "grid" }, svg);
    svgElement("text", { x: left - 4, y: y(tick) + 4, class: "axis", "text-anchor": "end" }, svg,
      tick.toFixed(2));
  }
  if (yLabel) svgElement("text", { x: 2, y: 8, class: "axis" }, svg, yLabel);
  const step = (width - left) / Math.max(bars.length, 1);
  bars.forEach((bar, i) => {
    const x = left + i * step;
    const w = Math.max(step * 0.38, 2);
    (bar.values || [bar.value]).forEach((value, k) => {
      const xk = x + step * 0.08 + k * (w + 2);
      svgElement("rect", {
        x: xk, y: y(value), width: w, height: Math.max(y(0) - y(value), 0),
        fill: k === 0 ? colour(bar) : "#bbb", class: "bar", "data-value": value,
      }, svg).appendChild(svgElement("title", {}, null, `${bar.label}: ${fixed(value, 4)}`));
      const interval = bar.intervals && bar.intervals[k];
      if (interval) {
        svgElement("line", { x1: xk + w / 2, x2: xk + w / 2, y1: y(interval[0]), y2: y(interval[1]),
          class: "interval" }, svg);
      }
    });
    svgElement("text", { x: x + step / 2, y: height - 8, class: "axis", "text-anchor": "middle" },
      svg, bar.label);
  });
}

// The phase clock: accuracy by needle position mod G around a circle (as plots/phase_clock.py).
function drawClock(svg, groups) {
  const size = 220, centre = size / 2, radius = 90;
  clear(svg, size, size);
  for (const r of [0.25, 0.5, 0.75, 1]) {
    svgElement("circle", { cx: centre, cy: centre, r: radius * r, class: "grid" }, svg);
  }
  const point = (i, value) => {
    const angle = (2 * Math.PI * i) / groups.length - Math.PI / 2;
    return [centre + radius * value * Math.cos(angle), centre + radius * value * Math.sin(angle)];
  };
  const points = groups.map((g, i) => point(i, g.accuracy).join(",")).join(" ");
  svgElement("polygon", { points, class: "clock-shape" }, svg);
  groups.forEach((g, i) => {
    const [x, y] = point(i, 1.12);
    svgElement("text", { x, y: y + 4, class: "axis", "text-anchor": "middle" }, svg, g.group);
  });
}

// Lines over x, each {points: [[x, y]], colour}; `marks` are vertical lines at x.
function drawLines(svg, lines, { xMax, yMin = 0, yMax = 1, logX = false, logY = false,
  marks = [], xLabel = "", yLabel = "" }) {
  const width = 640, height = 240, left = 52, bottom = 28, top = 10, right = 10;
  clear(svg, width, height);
  const tx = logX ? Math.log10 : (v) => v;
  const ty = logY ? Math.log10 : (v) => v;
  const xMin = lines.length && logX ? Math.min(...lines.flatMap((l) => l.points.map((p) => p[0]))) : 0;
  const x = (v) => left + ((tx(v) - tx(xMin)) / (tx(xMax) - tx(xMin) || 1)) * (width - left - right);
  const y = (v) => top + (1 - (ty(v) - ty(yMin)) / (ty(yMax) - ty(yMin) || 1)) * (height - top - bottom);
  svgElement("line", { x1: left, x2: width - right, y1: height - bottom, y2: height - bottom, class: "grid" }, svg);
  svgElement("text", { x: width / 2, y: height - 6, class: "axis", "text-anchor": "middle" }, svg, xLabel);
  svgElement("text", { x: 2, y: 10, class: "axis" }, svg, yLabel);
  svgElement("text", { x: left - 4, y: y(yMax) + 8, class: "axis", "text-anchor": "end" }, svg, fixed(yMax, logY ? 5 : 2));
  svgElement("text", { x: left - 4, y: y(yMin), class: "axis", "text-anchor": "end" }, svg, fixed(yMin, logY ? 5 : 2));
  for (const mark of marks) {
    svgElement("line", { x1: x(mark), x2: x(mark), y1: top, y2: height - bottom, class: "mark" }, svg);
  }
  for (const line of lines) {
    const points = line.points.map(([a, b]) => `${x(a)},${y(b)}`).join(" ");
    svgElement("polyline", { points, fill: "none", stroke: line.colour, "stroke-width": 2,
      "stroke-dasharray": line.dashed ? "5,4" : "none" }, svg);
  }
}

function table(container, header, rows) {
  const t = document.createElement("table");
  const head = t.createTHead().insertRow();
  for (const h of header) head.appendChild(document.createElement("th")).textContent = h;
  for (const row of rows) {
    const r = t.insertRow();
    for (const cell of row) r.insertCell().textContent = cell;
  }
  container.replaceChildren(t);
}

// ---- panels -------------------------------------------------------------------------------

function download(text, name, type) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
}

// One panel: computes its document from the controls, shows the CLI's line when that fails,
// shows the command line, and exports the last document.
class Panel {
  constructor(id, compute) {
    this.section = $(id);
    this.compute = compute;
    this.document = null;
    this.section.querySelector(".export").addEventListener("click", () => this.export());
    this.section.querySelector(".export-csv").addEventListener("click", () => this.exportCsv());
  }

  update() {
    const error = this.section.querySelector(".error");
    const started = performance.now();
    try {
      const { command, options, document } = this.compute();
      this.document = document;
      this.section.querySelector(".command").textContent = phasesim.commandLine(command, options);
      error.hidden = true;
    } catch (e) {
      if (!(e instanceof phasesim.PhasesimError)) throw e;
      error.textContent = e.message;
      error.hidden = false;
    }
    this.section.dataset.updateMs = (performance.now() - started).toFixed(2);
  }

  export() {
    if (this.document) download(phasesim.text(this.document), `${this.document.command}.json`, "application/json");
  }

  // The tidy table of the document (a sweep's results.csv, Python's to_frame).
  exportCsv() {
    if (this.document) download(phasesim.tidyCsv(this.document), `${this.document.command}.csv`, "text/csv");
  }
}

// The model the geometry and NIAH panels share: W, S, offset and one logit vector per head.
const model = {
  heads: [],

  window: () => numberOf("g-window"),
  stride: () => numberOf("g-stride"),
  offset: () => numberOf("g-offset"),

  // Each head's logits, W of them (missing slots at 0), as --gates takes them.
  gates() {
    return this.heads.map((logits) => "logits:" + this.logits(logits).join(",")).join(";");
  },
  logits(logits) {
    return Array.from({ length: this.window() }, (_, s) => Number(logits[s] || 0));
  },
  saveHeads() {
    state.set("heads", this.heads.map((l) => this.logits(l).join(",")).join(";"));
    saveState();
  },
  loadHeads() {
    const text = state.get("heads") || "0,0,0,0,0,0,0,0.3465";
    this.heads = text.split(";").map((h) => h.split(",").map(Number));
  },
  // An offset needs an architecture file: the one-layer shorthand has none.
  options() {
    if (this.offset() === 0) {
      return { window: this.window(), stride: this.stride(), gates: this.gates() };
    }
    const heads = this.heads.map((l) => `{ offset = ${this.offset()}, gate = "logits:${this.logits(l).join(",")}" }`);
    phasesim.writeFile("/page.toml", `name = "page"\n[[layer]]\nwindow = ${this.window()}\n` +
      `stride = ${this.stride()}\nheads = [${heads.join(", ")}]\n`);
    return { arch: "/page.toml" };
  },
};

function geometryPanel() {
  return new Panel("geometry", () => {
    const options = model.options();
    if (!options.arch) {
      options.gate = options.gates.split(";")[0];
      delete options.gates;
    }
    const document = phasesim.coverage(options);
    const phases = document.phases || document.architecture.heads[0].phases;
    drawTokens();
    table($("g-coverage"), ["phase", "slots", "multiplicity", "coverage (first head's gate)"],
      phases.map((p) => [p.phase, p.slots.join(",") || "-", p.multiplicity, fixed(p.coverage, 4)]));
    return { command: "coverage", options, document };
  });
}

// Three entries over the tokens they pool, each token and slot coloured by the phase the
// library gives it (phasesim.geometry: model/geometry.hpp's positions and phases).
function drawTokens() {
  const geometry = phasesim.geometry(model.window(), model.stride(), model.offset(), 3);
  const start = geometry.tokens[0].position;
  const positions = geometry.tokens.length;
  const cell = Math.min(18, 640 / (positions + 2)), left = 70;
  const svg = clear($("g-tokens"), left + cell * (positions + 2), 30 + 4 * 26);
  for (const token of geometry.tokens.filter((t) => t.position >= 0)) {
    const x = left + cell * (token.position - start);
    svgElement("rect", { x, y: 4, width: cell - 1, height: cell - 1, fill: phaseColour(token.phase), class: "token" }, svg);
  }
  svgElement("text", { x: 2, y: 16, class: "axis" }, svg, "tokens");
  for (const entry of geometry.entries) {
    const y = 30 + entry.entry * 26;
    svgElement("text", { x: 2, y: y + 12, class: "axis" }, svg, `entry ${entry.entry}`);
    for (const slot of entry.slots) {
      const x = left + cell * (slot.position - start);
      svgElement("rect", { x, y, width: cell - 1, height: cell - 1, fill: phaseColour(slot.phase), class: "slot" }, svg)
        .appendChild(svgElement("title", {}, null, `slot ${slot.slot}, phase ${slot.phase}`));
    }
  }
}

// The read path (MODEL.md section 10): stage 1 keeps the top k entries (the head's own gate
// scores them), stage 2 also reads the last tokens raw; only what is set, so the command line
// of the argmax over all entries stays as it was.
function readPathOptions() {
  const options = {};
  if ($("n-top-k").value !== "") options.top_k = numberOf("n-top-k");
  if (numberOf("n-sliding-window") > 0) options.sliding_window = numberOf("n-sliding-window");
  return options;
}

function niahPanel() {
  const panel = new Panel("niah", () => {
    const options = Object.assign(model.options(), {
      beta: numberOf("n-beta"), context: numberOf("n-context"), groups: numberOf("n-groups"),
      engine: "analytic",
    }, readPathOptions());
    const document = phasesim.niah(options);
    showNiah(document, panel.monteCarlo);
    return { command: "niah", options, document };
  });
  panel.monteCarlo = null;
  $("n-monte-carlo").addEventListener("click", () => {
    const options = Object.assign(model.options(), {
      beta: numberOf("n-beta"), context: numberOf("n-context"), groups: numberOf("n-groups"),
      engine: "fast", prompts: numberOf("n-prompts"), seed: numberOf("n-seed"),
    }, readPathOptions());
    try {
      panel.monteCarlo = phasesim.niah(options);
      panel.section.querySelector(".command").textContent = phasesim.commandLine("niah", options);
      showNiah(panel.document, panel.monteCarlo);
      panel.document = panel.monteCarlo;
    } catch (e) {
      panel.section.querySelector(".error").textContent = e.message;
      panel.section.querySelector(".error").hidden = false;
    }
  });
  return panel;
}

function showNiah(exact, sampled) {
  if (!exact) return;
  const same = sampled && sampled.groups.length === exact.groups.length;
  drawBars($("n-bars"), exact.groups.map((g, i) => ({
    label: String(g.group), group: g.group,
    values: same ? [g.accuracy, sampled.groups[i].accuracy] : [g.accuracy],
    intervals: same ? [null, [sampled.groups[i].ci_low, sampled.groups[i].ci_high]] : null,
  })), { colour: (bar) => phaseColour(bar.group % model.stride()), yLabel: "accuracy" });
  drawClock($("n-clock"), exact.groups);
  const s = exact.summary;
  $("n-summary").textContent = `exact: mean ${fixed(s.mean)}, best ${fixed(s.best)} (group ${s.best_group}), ` +
    `worst ${fixed(s.worst)} (group ${s.worst_group})` +
    (same ? `; grey: Monte Carlo, ${sampled.prompts} prompts per group, with 95% intervals` : "");
}

// One row of logit sliders per head, W of them.
function drawHeadControls(onChange) {
  const container = $("n-heads");
  container.replaceChildren();
  model.heads.forEach((logits, h) => {
    const row = document.createElement("div");
    row.className = "head";
    row.appendChild(document.createElement("span")).textContent = `head ${h + 1} logits`;
    model.logits(logits).forEach((value, s) => {
      const input = document.createElement("input");
      Object.assign(input, { type: "range", min: -4, max: 4, step: 0.05, value, title: `slot ${s}` });
      input.className = "logit";
      input.dataset.head = h;
      input.dataset.slot = s;
      input.addEventListener("input", () => {
        model.heads[h][s] = Number(input.value);
        model.saveHeads();
        onChange();
      });
      row.appendChild(input);
    });
    if (model.heads.length > 1) {
      const remove = row.appendChild(document.createElement("button"));
      remove.textContent = "remove";
      remove.addEventListener("click", () => {
        model.heads.splice(h, 1);
        model.saveHeads();
        drawHeadControls(onChange);
        onChange();
      });
    }
    container.appendChild(row);
  });
}

function t1Panel() {
  const panel = new Panel("t1", () => {
    const options = { window: model.window(), stride: model.stride(), beta: numberOf("t1-beta"),
      entries: numberOf("t1-entries") };
    const document = phasesim.optimize(options);
    drawBars($("t1-gate"), document.gate.map((w, s) => ({ label: String(s), slot: s, value: w })),
      { yLabel: "weight" });
    $("t1-summary").textContent = `the best gate puts ${fixed(document.max_weight)} of its weight on one slot; ` +
      `${document.k_effective} slot(s) above 1% (the equal-split law predicts ${document.k_star_predicted}); J = ${fixed(document.objective, 6)}`;
    drawDiagram(panel.diagram);
    return { command: "optimize", options, document };
  });
  panel.diagram = null;
  $("t1-diagram").addEventListener("click", () => {
    try {
      panel.diagram = phasesim.phaseDiagram({ window: model.window(), stride: model.stride(),
        beta: "2:14:2", entries: [numberOf("t1-entries")] });
      drawDiagram(panel.diagram);
    } catch (e) {
      panel.section.querySelector(".error").textContent = e.message;
      panel.section.querySelector(".error").hidden = false;
    }
  });
  return panel;
}

// Max weight of the optimum over beta, one line per N, the critical beta*(N) dashed, and a
// mark at the beta you are at.
function drawDiagram(diagram) {
  const svg = $("t1-map");
  if (!diagram) {
    clear(svg, 640, 240);
    svgElement("text", { x: 20, y: 120, class: "axis" }, svg, "press 'draw the phase diagram': 7 optimizations, seconds");
    return;
  }
  const colours = ["#4e79a7", "#e15759", "#59a14f"];
  const lines = diagram.entries.map((n, i) => ({
    colour: colours[i % colours.length],
    points: diagram.rows.filter((r) => r.entries === n).map((r) => [r.beta, r.max_weight]),
  }));
  drawLines(svg, lines, { xMax: Math.max(...diagram.beta), marks: [numberOf("t1-beta"),
    ...diagram.beta_star.filter((s) => s.entries === numberOf("t1-entries")).map((s) => s.beta_star)],
    xLabel: "beta (marks: you, and beta* of your N)", yLabel: "max weight" });
}

function t2Panel() {
  return new Panel("t2", () => {
    const steps = numberOf("t2-steps");
    $("t2-at").max = steps;
    const options = { window: model.window(), stride: model.stride(), beta: numberOf("t1-beta"),
      entries: numberOf("t1-entries"),
      init: $("t2-init").value, steps, reweight_at: numberOf("t2-at"), weights: $("t2-weights").value,
      record_every: Math.max(1, Math.floor(steps / 100)) };
    const document = phasesim.dynamics(options);
    const W = model.window();
    const lines = Array.from({ length: W }, (_, s) => ({
      colour: phaseColour(s % model.stride()), dashed: s >= model.stride(),
      points: document.trajectory.map((p) => [p.step, p.gate[s]]),
    }));
    drawLines($("t2-plot"), lines, { xMax: steps, marks: [options.reweight_at],
      xLabel: "step (mark: the re-weighting)", yLabel: "slot weight" });
    $("t2-summary").textContent = `the favourite slot at the start is ${document.init_argmax}; at the end it is ` +
      `${document.final_argmax}, holding ${fixed(document.final_max_weight)} of the weight` +
      (document.init_argmax === document.final_argmax ? " (locked in)" : "");
    return { command: "dynamics", options, document };
  });
}

function t3Panel() {
  return new Panel("t3", () => {
    const heads = Array.from({ length: numberOf("t3-max") }, (_, i) => 2 ** (i + 1));
    const options = { stride: model.stride(), heads, success: numberOf("t3-success") };
    const document = phasesim.diversity(options);
    const rows = document.rows.filter((r) => r.gap > 0);
    const c = document.constant_c;
    drawLines($("t3-plot"), rows.length ? [
      { colour: "#4e79a7", points: rows.map((r) => [r.heads, r.gap]) },
      { colour: "#999", dashed: true, points: rows.map((r) => [r.heads, c / r.heads]) },
    ] : [], { xMax: Math.max(...heads), logX: true, logY: true,
      yMin: Math.min(...rows.map((r) => Math.min(r.gap, c / r.heads)), 1),
      yMax: Math.max(...rows.map((r) => Math.max(r.gap, c / r.heads)), 1e-9),
      xLabel: "heads N (dashed: C/N)", yLabel: "loss gap" });
    table($("t3-table"), ["N", "gap", "N*gap", "E[blind phases]", "P(some phase blind)"],
      document.rows.map((r) => [r.heads, r.gap.toExponential(3), fixed(r.gap_times_n, 4),
        fixed(r.expected_blind, 3), fixed(r.p_some_blind, 3)]));
    return { command: "diversity", options, document };
  });
}

// The presets of presets/*.toml, from the library: their geometry (coverage --arch) and their
// gate. The page edits one gate per head, so a preset fitted to a published table loads the
// one-gate fit to the same table from its file's [fit] (presets/README.md), with that fit's
// beta.
function presetButtons(apply) {
  for (const preset of phasesim.presets()) {
    const button = $("presets").appendChild(document.createElement("button"));
    button.textContent = preset.name;
    button.title = preset.description;
    button.addEventListener("click", () => {
      const head = phasesim.coverage({ arch: preset.name }).architecture.heads[0];
      const fit = preset.fit;
      const logits = fit ? fit.one_gate.replace(/^logits:/, "").split(",").map(Number)
        : head.gate_weights.map((w) => Math.log(Math.max(w, 1e-12)));
      apply(head, logits, fit && fit.one_gate_beta);
    });
  }
}

// The demo's plain words, by the step that shows what the panel shows.
function lookLines() {
  const steps = phasesim.tour();
  const find = (prefix) => steps.find((s) => s.title.startsWith(prefix));
  const lines = { geometry: "1.", niah: "2b.", t1: "3a'.", t2: "3b'.", t3: "3c'." };
  for (const [panel, prefix] of Object.entries(lines)) {
    const step = find(prefix);
    $(panel).querySelector(".look").textContent = `${step.title} What to look at: ${step.look}`;
  }
}

async function main() {
  await phasesim.ready;
  $("status").textContent = "";
  model.loadHeads();
  const panels = {
    geometry: geometryPanel(), niah: niahPanel(), t1: t1Panel(), t2: t2Panel(), t3: t3Panel(),
    frontier: frontierPanel(),
  };
  // The geometry and the table at once; the theorem panels (an optimization, a training run:
  // seconds) once a slider has rested for a moment, after the browser has drawn the rest.
  const timers = new Map();
  const soon = (panel) => {
    clearTimeout(timers.get(panel));
    timers.set(panel, setTimeout(() => panel.update(), 300));
  };
  const geometryChanged = () => {
    drawHeadControls(() => { panels.geometry.update(); panels.niah.update(); });
    panels.geometry.update();
    panels.niah.update();
    for (const p of [panels.t1, panels.t2, panels.t3]) soon(p);
  };
  bind("g-window", geometryChanged);
  bind("g-stride", geometryChanged);
  bind("g-offset", geometryChanged);
  for (const id of ["n-beta", "n-context", "n-groups", "n-top-k", "n-sliding-window"]) {
    bind(id, () => panels.niah.update());
  }
  for (const id of ["n-prompts", "n-seed"]) bind(id, () => {});
  for (const id of ["t1-beta", "t1-entries"]) {
    bind(id, () => {
      panels.t1.update();
      soon(panels.t2);
    }, "change");
  }
  for (const id of ["t2-init", "t2-steps", "t2-at", "t2-weights"]) bind(id, () => panels.t2.update(), "change");
  for (const id of ["t3-max", "t3-success"]) bind(id, () => panels.t3.update());
  for (const id of ["f-context", "f-floor"]) bind(id, () => panels.frontier.update());
  $("n-add-head").addEventListener("click", () => {
    if (model.heads.length >= 8) return;
    model.heads.push(model.logits([]));
    model.saveHeads();
    geometryChanged();
  });
  presetButtons((head, logits, beta) => {
    const set = (id, value) => {
      $(id).value = value;
      $(id).dispatchEvent(new Event("input"));
    };
    const floor = Math.min(...logits);
    model.heads = [logits.map((l) => Number((l - floor).toFixed(4)))];
    set("g-window", head.window);
    set("g-stride", head.stride);
    set("g-offset", head.offset);
    // Saved at the new window: saved before it, a preset loaded after a narrower one (v41-flash,
    // W = 2, then v4-csa) kept only the old window's logits.
    model.saveHeads();
    if (beta) set("n-beta", beta);
  });
  lookLines();
  geometryChanged();
  soon(panels.frontier); // its own controls only: the sliders above do not change it
}

main();
