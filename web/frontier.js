// Panel 6 of the teaching page: `phasesim frontier` for one chosen context (issue 38). Which
// one-layer compressors are worth building at that context: the designs no other beats on KV
// entries per token, entries read per query, the worst phase and the mean, with the presets
// (presets/*.toml, whatever the library holds) run at the same context and marked. Uses
// app.js's drawing helpers and Panel (loaded after this file; called only once both are in).
"use strict";

// The page's design space: small enough that a context's frontier computes in well under a
// second in WebAssembly (benchmarks/web-update.sh times it), wide enough to show the trade:
// three compress ratios, a uniform or a one-hot gate, every entry or the top 512: 12 designs.
// Windows of two strides as well doubled the designs and took the update at 128k from 0.30 to
// 0.50 s in node on a loaded machine (2026-12-06), and none was on the frontier; the CLI's
// --overlaps 1 2 asks for them.
const FRONTIER_SPACE = {
  ratios: [4, 16, 128], overlaps: [1], gate_families: ["uniform", "last"], top_k: [0, 512],
  sliding_windows: [0],
};

function frontierOptions() {
  const options = { context: numberOf("f-context"), ...FRONTIER_SPACE };
  if ($("f-floor").value !== "") options.floor = numberOf("f-floor");
  return options;
}

// Worst phase (filled) and mean (hollow) against KV cost on log-2 axes, the frontier's designs
// joined in order of cost, the presets marked (red diamond: on the frontier; orange: beaten).
function drawFrontier(svg, rows) {
  const width = 640, height = 260, left = 44, right = 110, top = 10, bottom = 30;
  clear(svg, width, height);
  const costs = rows.map((r) => Math.log2(r.kv_entries_per_token));
  const low = Math.floor(Math.min(...costs)) - 0.5, high = Math.ceil(Math.max(...costs)) + 0.5;
  const x = (kv) => left + ((Math.log2(kv) - low) / (high - low)) * (width - left - right);
  const y = (v) => top + (1 - v) * (height - top - bottom);
  for (const tick of [0, 0.5, 1]) {
    svgElement("line", { x1: left, x2: width - right, y1: y(tick), y2: y(tick), class: "grid" }, svg);
    svgElement("text", { x: left - 4, y: y(tick) + 4, class: "axis", "text-anchor": "end" }, svg, tick.toFixed(1));
  }
  for (let p = Math.ceil(low); p <= high; p += 2) {
    svgElement("text", { x: x(2 ** p), y: height - 14, class: "axis", "text-anchor": "middle" }, svg,
      p < 0 ? `1/${2 ** -p}` : String(2 ** p));
  }
  svgElement("text", { x: (width - right) / 2, y: height - 2, class: "axis", "text-anchor": "middle" }, svg,
    "KV entries per token (log scale)");
  svgElement("text", { x: 2, y: 10, class: "axis" }, svg, "accuracy");
  const designs = rows.filter((r) => r.kind === "design");
  svgElement("polyline", { points: designs.map((r) => `${x(r.kv_entries_per_token)},${y(r.worst)}`).join(" "),
    fill: "none", stroke: "#4e79a7", "stroke-width": 1.5 }, svg);
  for (const r of designs) {
    const cx = x(r.kv_entries_per_token);
    svgElement("circle", { cx, cy: y(r.mean), r: 4, fill: "none", stroke: "#4e79a7", class: "frontier-mean" }, svg);
    svgElement("circle", { cx, cy: y(r.worst), r: 4, fill: "#4e79a7", class: "frontier-design",
      "data-name": r.name, "data-worst": r.worst, "data-mean": r.mean }, svg)
      .appendChild(svgElement("title", {}, null, `${r.name}: worst ${fixed(r.worst, 4)}, mean ${fixed(r.mean, 4)}`));
  }
  const labels = []; // placed preset labels, [left, right, baseline]: a label moves down past them
  for (const r of rows.filter((row) => row.kind === "preset")) {
    const cx = x(r.kv_entries_per_token), cy = y(r.worst);
    let baseline = cy + 4;
    while (labels.some(([a, b, y0]) => cx + 8 < b && cx + 8 + 7 * r.name.length > a && Math.abs(y0 - baseline) < 12)) baseline += 12;
    labels.push([cx + 8, cx + 8 + 7 * r.name.length, baseline]);
    const colour = r.on_frontier ? "#e15759" : "#f28e2b";
    svgElement("polygon", { points: `${cx},${cy - 6} ${cx + 6},${cy} ${cx},${cy + 6} ${cx - 6},${cy}`, fill: colour,
      class: "frontier-preset", "data-name": r.name, "data-worst": r.worst, "data-on-frontier": r.on_frontier }, svg)
      .appendChild(svgElement("title", {}, null, `${r.name}: worst ${fixed(r.worst, 4)}` +
        (r.on_frontier ? ", on the frontier" : `, beaten by ${r.dominated_by}`)));
    svgElement("text", { x: cx + 8, y: baseline, class: "axis", style: `fill: ${colour}` }, svg, r.name);
  }
}

// One row per frontier design and preset; a design's architecture file opens under its row,
// with buttons to copy it or save it as NAME.toml (what `frontier --out DIR` writes).
function frontierTable(container, rows) {
  const t = document.createElement("table");
  const head = t.createTHead().insertRow();
  for (const h of ["row", "kv/token", "read/query", "worst", "mean", "against the frontier", "architecture"]) {
    head.appendChild(document.createElement("th")).textContent = h;
  }
  const body = t.createTBody();
  for (const r of rows) {
    const row = body.insertRow();
    row.dataset.name = r.name;
    for (const cell of [r.name, fixed(r.kv_entries_per_token, 4), r.read_entries_per_query, fixed(r.worst, 4), fixed(r.mean, 4),
      r.kind === "design" ? "on it" : r.on_frontier ? "preset, on it" : `preset, beaten by ${r.dominated_by}`]) {
      row.insertCell().textContent = cell;
    }
    row.insertCell().appendChild(r.kind === "design" ? architectureFile(r) : codeOf(`--arch ${r.name}`));
  }
  container.replaceChildren(t);
}

function codeOf(text) {
  const code = document.createElement("code");
  code.textContent = text;
  return code;
}

function architectureFile(row) {
  const details = document.createElement("details");
  details.appendChild(document.createElement("summary")).textContent = `${row.name}.toml`;
  const pre = details.appendChild(document.createElement("pre"));
  pre.className = "architecture";
  pre.textContent = row.architecture;
  const copy = details.appendChild(document.createElement("button"));
  copy.textContent = "copy";
  copy.className = "copy";
  copy.addEventListener("click", () => {
    // The clipboard where the browser allows it, else the text selected for Ctrl-C.
    const select = () => getSelection().selectAllChildren(pre);
    if (navigator.clipboard) navigator.clipboard.writeText(row.architecture).catch(select);
    else select();
  });
  const save = details.appendChild(document.createElement("button"));
  save.textContent = "save";
  save.className = "save";
  save.addEventListener("click", () => download(row.architecture, `${row.name}.toml`, "application/toml"));
  return details;
}

function frontierPanel() {
  return new Panel("frontier", () => {
    const options = frontierOptions();
    const document = phasesim.frontier(options);
    drawFrontier($("f-plot"), document.rows);
    frontierTable($("f-table"), document.rows);
    const designs = document.rows.filter((r) => r.kind === "design");
    const presets = document.rows.filter((r) => r.kind === "preset");
    const best = designs.reduce((a, b) => (b.worst > a.worst ? b : a), designs[0]);
    $("f-summary").textContent = `${designs.length} of ${document.space.designs} designs on the frontier` +
      (best ? `; the best worst phase, ${fixed(best.worst)}, costs ${best.kv_entries_per_token} entries per token (${best.name})` : "") +
      `; ${presets.filter((r) => r.on_frontier).length} of ${presets.length} presets on it`;
    return { command: "frontier", options, document };
  });
}
