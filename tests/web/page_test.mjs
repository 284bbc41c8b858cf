// The teaching page in a real browser (issue 27): Debian's chromium, headless, driven by
// playwright-core, opens build-web/index.html from file:// and checks that
//  - window.phasesim returns the CLI's own documents: analytic numbers within 1e-12 of
//    build/phasesim's, Monte Carlo bit for bit at the same seed, on 15 parameter sets;
//  - bad input gets the CLI's one line (and exit status 2) in the call and in the panel;
//  - an exported CSV is the library's tidy table, the row a sweep writes to results.csv;
//  - moving sliders through the DOM redraws the bars with the CLI's numbers and writes the
//    address, which reopens the same state;
//  - the frontier panel (issue 38) at a chosen context draws the numbers of the CLI run on the
//    command line it shows, marks every preset, and saves a design's file as `--out` does;
//  - the WASM is under 3 MB, first paint comes under 2 s, no console error occurs, and an
//    analytic update (8 groups, 8 heads, W = 32) is timed: the target is 50 ms, but a ctest
//    shares the machine with the other tests (CI measured 67 to 122 ms beside two
//    experiments, 20 ms alone), so ctest fails only past 250 ms, five times the target,
//    which load alone has not reached; benchmarks/web-update.sh times 15 updates on an
//    idle machine against the 50 ms target (PHASESIM_WEB_UPDATE_LIMIT_MS=50).
// Screenshots of every panel go to OUT (the test's artifacts).
//
// node page_test.mjs BUILD_WEB_DIR PHASESIM_BINARY OUT_DIR
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const [buildWeb, phasesimBinary, out] = process.argv.slice(2).map((p) => resolve(p));
mkdirSync(out, { recursive: true });
const pageUrl = pathToFileURL(`${buildWeb}/index.html`).href;
let failures = 0;

function check(condition, what) {
  console.log(`${condition ? "ok  " : "FAIL"} ${what}`);
  if (!condition) failures += 1;
}

// The CLI's document (or its error line) for the same command and options as the page's call.
function cli(command, options) {
  const words = command.split(" ");
  for (const [key, value] of Object.entries(options)) {
    if (value === false || value === null || value === undefined) continue;
    const option = "--" + key.replace(/_/g, "-");
    if (value === true) words.push(option);
    else if (Array.isArray(value) && value.some((v) => typeof v === "string")) words.push(option, ...value);
    else words.push(option, Array.isArray(value) ? value.join(",") : String(value));
  }
  return cliWords(words);
}

// The CLI's document (or its error line) for a command line's words after `phasesim`.
function cliWords(words) {
  // Room for a document of any size the tests ask for (Node's default stops at 1 MB).
  const run = spawnSync(phasesimBinary, [...words, "--json", "-"], { encoding: "utf8", maxBuffer: 1 << 28 });
  const lines = run.stderr.trim().split("\n");
  return run.status === 0 ? { document: JSON.parse(run.stdout), text: run.stdout }
    : { status: run.status, error: lines[lines.length - 1] };
}

// The first difference between two documents: numbers within `tolerance` (relative above 1),
// 0 meaning bit for bit; everything else equal. Null when they agree.
function difference(a, b, tolerance, path = "") {
  if (typeof a === "number" && typeof b === "number") {
    const close = tolerance === 0 ? Object.is(a, b) : Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));
    return close ? null : `${path}: ${a} against ${b}`;
  }
  if (Array.isArray(a) || (a && typeof a === "object")) {
    if (typeof b !== "object" || b === null || Array.isArray(a) !== Array.isArray(b)) return `${path}: shape`;
    const keys = Object.keys(a);
    if (keys.join() !== Object.keys(b).join()) return `${path}: keys ${keys} against ${Object.keys(b)}`;
    for (const key of keys) {
      const d = difference(a[key], b[key], tolerance, `${path}/${key}`);
      if (d) return d;
    }
    return null;
  }
  return a === b ? null : `${path}: ${JSON.stringify(a)} against ${JSON.stringify(b)}`;
}

const gates8 = (h) => Array.from({ length: 8 }, (_, k) => `logits:${Array.from({ length: 32 }, (_, s) => ((s * 7 + k * 3) % 11) / 5 - 1).join(",")}`).slice(0, h).join(";");

// Fifteen parameter sets: the analytic engine, coverage and diversity to 1e-12; the fast
// engine's Monte Carlo bit for bit (its random numbers are keyed by seed and trial, and its
// exp is portable_math's, on any CPU); the optimizer to 1e-6, the phase diagram to 1e-5 and
// the dynamics to 1e-4. The browser's long double is binary128, not x87's (a last bit of
// Boost), and its log_normal_cdf takes portable::erfc where the CLI takes Boost's long double
// erfc (include/phasesim/core/normal.hpp: 40 times faster in wasm). Analytic numbers then
// differ by 2e-15 (measured 2026-12-03), but what iterates on an accept test amplifies the last
// bit: the dynamics' line search (flow.hpp's `lowers`, 1e-15 relative) takes other sub-steps
// (464 evaluations in the CLI, 480 in the page) and a gate weight moves by 2.7e-5 after 50
// steps; the optimizer's iteration count differs by a few. The cause is that erfc alone: a
// native build whose log_normal_cdf takes portable::erfc gives the page's documents bit for bit
// (the dynamics' included), all but the phase diagram (3.6e-10: the success curve's spline
// nodes call asin and sin of each libc). The phase diagram's optimum is one of several gates
// equal under the slots' symmetry (which slot of a phase, which phase holds the heavy weight),
// picked by the last bits: its gates are compared sorted.
const cases = [
  ["coverage", { window: 8, stride: 4, gate: "last" }, 1e-12],
  ["coverage", { arch: "v4-hca" }, 1e-12],
  ["niah", { window: 8, stride: 4, gates: "logits:0,0,0,0,0,0,0,0.3465", beta: 9.5135, engine: "analytic" }, 1e-12],
  ["niah", { window: 1, stride: 1, gates: "last", beta: 9.5135, engine: "analytic" }, 1e-12],
  ["niah", { window: 32, stride: 8, gates: gates8(8), beta: 6, groups: 8, context: 32768, engine: "analytic" }, 1e-12],
  ["niah", { arch: "v41-csa", beta: 7.7235, engine: "analytic" }, 1e-12],
  ["niah", { window: 8, stride: 4, gates: "logits:0,0,0,0,0,0,0,0.3465", beta: 9.5135, seed: 4, prompts: 64, engine: "fast" }, 0],
  ["niah", { window: 8, stride: 8, heads: 8, gates: "random:1:10", beta: 4.1483, seed: 88, prompts: 32, engine: "fast" }, 0],
  // The read path's options (issue 37), exact and sampled.
  ["niah", { window: 8, stride: 4, gates: "last", beta: 5, context: 65536, groups: 4, top_k: 64, index_gates: "uniform", index_beta: 4, sliding_window: 128, sink: 1, engine: "analytic" }, 1e-12],
  ["niah", { window: 8, stride: 4, gates: "uniform", beta: 6, context: 16384, groups: 4, top_k: 8, index_rho: 0.5, needle_tokens: 2, seed: 3, prompts: 64, engine: "fast" }, 0],
  ["optimize", { window: 8, stride: 4, beta: 5, entries: 32768 }, 1e-6],
  ["phase-diagram", { window: 8, stride: 4, beta: "4,8,12", entries: [1024, 32768] }, 1e-5],
  ["dynamics", { beta: 4.5, init: "random:3:0.1", steps: 400, reweight_at: 200, weights: "1,0,0,0", record_every: 50 }, 1e-4],
  ["diversity", { stride: 4, heads: [4, 8, 16, 32] }, 1e-12],
  // The frontier (issue 38), the presets marked: gate families are words, not a comma list.
  ["frontier", { context: 32768, ratios: [4, 16], overlaps: [1], gate_families: ["uniform", "last"], top_k: [0, 64], sliding_windows: [0] }, 1e-12],
];

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
page.setDefaultTimeout(300000); // a theorem panel's update (an optimization) holds the page for seconds
const consoleErrors = [];
page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
page.on("pageerror", (e) => consoleErrors.push(String(e)));

// ---- loading: size, first paint --------------------------------------------------------
const loader = readFileSync(`${buildWeb}/phasesim-wasm.js`, "utf8");
const embedded = loader.match(/data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/);
const wasmBytes = embedded ? Buffer.from(embedded[1], "base64").length : Infinity;
check(wasmBytes < 3 * 1024 * 1024, `WASM ${(wasmBytes / 1e6).toFixed(2)} MB (under 3 MB)`);

await page.goto(`${pageUrl}`);
await page.evaluate(() => phasesim.ready.then(() => true));
await page.waitForFunction(() => document.getElementById("status").textContent === "", null, { timeout: 300000 });
const timing = await page.evaluate(() => ({
  paint: performance.getEntriesByType("paint").map((e) => [e.name, e.startTime]),
  ready: performance.now(),
}));
const firstPaint = Object.fromEntries(timing.paint)["first-paint"];
check(firstPaint < 2000, `first paint ${firstPaint?.toFixed(0)} ms from file:// (under 2000); model ready at ${timing.ready.toFixed(0)} ms`);

// ---- the page's documents are the CLI's ------------------------------------------------
for (const [command, options, tolerance] of cases) {
  const inPage = await page.evaluate(([c, o]) => phasesim.run(c, o), [command, options]);
  const expected = cli(command, options).document;
  if (command === "optimize") delete inPage.iterations, delete expected.iterations;
  if (command === "dynamics") delete inPage.runs[0].evaluations, delete expected.runs[0].evaluations;
  if (command === "phase-diagram") for (const d of [inPage, expected]) for (const r of d.rows) r.gate.sort((a, b) => a - b);
  const d = difference(inPage, expected, tolerance);
  check(d === null, `${command} ${JSON.stringify(options).slice(0, 90)}: ${d ?? (tolerance ? `within ${tolerance}` : "bit for bit")}`);
}

// Bad input: the CLI's line and status, not a crash.
for (const [command, options] of [["niah", { window: 8, stride: 4, beta: -1 }], ["coverage", { window: 0 }], ["niah", { window: 8, stride: 4, gates: "onehot:9" }]]) {
  const caught = await page.evaluate(([c, o]) => {
    try {
      phasesim.run(c, o);
      return null;
    } catch (e) {
      return { name: e.name, message: e.message, status: e.status };
    }
  }, [command, options]);
  const expected = cli(command, options);
  check(caught && caught.name === "PhasesimError" && caught.message === expected.error && caught.status === 2,
    `bad input ${JSON.stringify(options)}: "${caught?.message}" (status ${caught?.status}) as the CLI`);
}

// ---- the DOM: sliders, bars, address ---------------------------------------------------
async function niahBars() {
  return page.$$eval("#n-bars rect.bar", (bars) => bars.filter((b) => b.getAttribute("fill") !== "#bbb").map((b) => Number(b.dataset.value)));
}
await page.locator("#g-stride").fill("4");
await page.locator("#g-window").fill("8");
await page.locator("#n-beta").fill("9.5");
await page.locator('input.logit[data-head="0"][data-slot="7"]').fill("0.5");
const pageCommand = await page.textContent("#niah .command");
const expected = cli("niah", { window: 8, stride: 4, gates: "logits:0,0,0,0,0,0,0,0.5", beta: 9.5, context: 131072, groups: 8, engine: "analytic" }).document;
const bars = await niahBars();
check(difference(bars, expected.groups.map((g) => g.accuracy), 1e-12) === null,
  `after moving W, S, beta and slot 7's logit the bars are the CLI's accuracies (${bars.map((b) => b.toFixed(3)).join(" ")}); ${pageCommand}`);
const address = new URL(page.url()).hash;
check(/g-window=8/.test(address) && /n-beta=9.5/.test(address) && /heads=0%2C0%2C0%2C0%2C0%2C0%2C0%2C0.5/.test(address), `the address holds the state: ${address}`);
const coverageRows = await page.$$eval("#g-coverage td:first-child", (rows) => rows.length);
check(coverageRows === 4, `the coverage table has one row per phase (${coverageRows})`);

// The same address in a new page shows the same bars.
const second = await browser.newPage();
second.on("pageerror", (e) => consoleErrors.push(String(e)));
await second.goto(page.url());
await second.waitForFunction(() => document.querySelectorAll("#n-bars rect.bar").length > 0);
const reopened = await second.$$eval("#n-bars rect.bar", (b) => b.map((x) => Number(x.dataset.value)));
check(difference(reopened, bars, 0) === null, "the address reopens the same bars");
await second.close();

// An offset the stride does not allow: the library's line in the panel.
await page.locator("#g-offset").fill("6");
const shown = await page.textContent("#niah .error");
const line = cli("niah", { window: 8, stride: 4, gates: "logits:0,0,0,0,0,0,0,0.5", beta: 9.5, engine: "analytic" });
check(await page.isVisible("#niah .error") && /invalid/.test(shown), `offset 6 at stride 4 shows: "${shown}"`);
await page.locator("#g-offset").fill("1");
check(!(await page.isVisible("#niah .error")), "offset 1 clears it");
await page.locator("#g-offset").fill("0");
void line;

// The read path's controls: top-k 64 and the 128-token window, in the command and the bars.
await page.selectOption("#n-top-k", "64");
await page.selectOption("#n-sliding-window", "128");
const readCommand = await page.textContent("#niah .command");
const readExpected = cli("niah", { window: 8, stride: 4, gates: "logits:0,0,0,0,0,0,0,0.5", beta: 9.5, context: 131072, groups: 8, engine: "analytic", top_k: 64, sliding_window: 128 }).document;
const readBars = await niahBars();
check(/--top-k 64/.test(readCommand) && /--sliding-window 128/.test(readCommand) &&
  difference(readBars, readExpected.groups.map((g) => g.accuracy), 1e-12) === null,
  `top-k 64 and window 128: the bars are the CLI's (${readBars.map((b) => b.toFixed(3)).join(" ")}); ${readCommand}`);
await page.selectOption("#n-top-k", "");
await page.selectOption("#n-sliding-window", "0");
check(!/--top-k/.test(await page.textContent("#niah .command")), "top-k all leaves the option out");

// Monte Carlo on the button, bit for bit the CLI's, and exported as it.
await page.locator("#n-prompts").fill("64");
await page.locator("#n-seed").fill("4");
await page.click("#n-monte-carlo");
const [download] = await Promise.all([page.waitForEvent("download"), page.click("#niah .export")]);
const exported = readFileSync(await download.path(), "utf8");
const mc = cli("niah", { window: 8, stride: 4, gates: "logits:0,0,0,0,0,0,0,0.5", beta: 9.5, context: 131072, groups: 8, engine: "fast", prompts: 64, seed: 4 });
check(exported === mc.text, "the Monte Carlo button's exported JSON is the CLI's file, byte for byte");
// Its CSV is the library's tidy table: the row a sweep of the same run writes to results.csv.
const [csvDownload] = await Promise.all([page.waitForEvent("download"), page.click("#niah .export-csv")]);
const pageCsv = readFileSync(await csvDownload.path(), "utf8");
const sweepDir = mkdtempSync(`${out}/sweep-`);
writeFileSync(`${sweepDir}/grid.toml`, 'command = "niah"\n[options]\nwindow = 8\nstride = 4\n' +
  'gates = "logits:0,0,0,0,0,0,0,0.5"\nbeta = 9.5\nengine = "fast"\nprompts = 64\nseed = 4\n');
spawnSync(phasesimBinary, ["sweep", `${sweepDir}/grid.toml`, "--out", `${sweepDir}/out`], { encoding: "utf8" });
const resultsCsv = readFileSync(`${sweepDir}/out/results.csv`, "utf8").split("\n")
  .map((line) => line.slice(line.indexOf(",") + 1)).join("\n"); // without the cell column
const firstDifference = pageCsv.split("\n").findIndex((line, i) => line !== resultsCsv.split("\n")[i]);
rmSync(sweepDir, { recursive: true });
check(pageCsv === resultsCsv, `the exported CSV is the sweep's results.csv for the same run (${pageCsv.split("\n").length - 2} rows)` +
  (firstDifference < 0 ? "" : `; line ${firstDifference}: ${pageCsv.split("\n")[firstDifference]} against ${resultsCsv.split("\n")[firstDifference]}`));
const intervals = await page.$$eval("#n-bars line.interval", (l) => l.length);
check(intervals === 8, `95% intervals drawn for the 8 groups (${intervals})`);

// ---- the frontier panel: one context's frontier, the CLI's for the command it shows ----------
await page.waitForFunction(() => document.getElementById("frontier").dataset.updateMs, null, { timeout: 300000 });
await page.selectOption("#f-context", "32768");
const frontierCommand = await page.textContent("#frontier .command");
const frontierCli = cliWords(frontierCommand.split(" ").slice(1)).document;
const drawn = await page.evaluate(() => ({
  designs: [...document.querySelectorAll("#f-plot circle.frontier-design")].map((c) =>
    [c.dataset.name, Number(c.dataset.worst), Number(c.dataset.mean)]),
  presets: [...document.querySelectorAll("#f-plot polygon.frontier-preset")].map((p) =>
    [p.dataset.name, Number(p.dataset.worst), p.dataset.onFrontier === "true"]),
  rows: [...document.querySelectorAll("#f-table tbody tr")].map((r) => r.dataset.name),
  presetNames: phasesim.presets().map((p) => p.name).sort(),
}));
const cliDesigns = frontierCli.rows.filter((r) => r.kind === "design");
const cliPresets = frontierCli.rows.filter((r) => r.kind === "preset");
const frontierDifference = difference(drawn.designs, cliDesigns.map((r) => [r.name, r.worst, r.mean]), 1e-12) ??
  difference(drawn.presets, cliPresets.map((r) => [r.name, r.worst, r.on_frontier]), 1e-12) ??
  difference(drawn.rows, frontierCli.rows.map((r) => r.name), 0);
check(/--context 32768/.test(frontierCommand) && cliDesigns.length > 0 && frontierDifference === null,
  `the frontier at 32k: ${cliDesigns.length} designs and ${cliPresets.length} presets drawn as the CLI's` +
  `${frontierDifference ? ` (${frontierDifference})` : ""}; ${frontierCommand}`);
check(difference(cliPresets.map((r) => r.name).sort(), drawn.presetNames, 0) === null,
  `every preset of the library is marked (${drawn.presetNames.join(", ")})`);
// A design's architecture file, saved from its row: the file `frontier --out DIR` writes.
const first = cliDesigns[0].name;
await page.click(`#f-table tr[data-name="${first}"] summary`);
const [tomlDownload] = await Promise.all([page.waitForEvent("download"), page.click(`#f-table tr[data-name="${first}"] button.save`)]);
const savedToml = readFileSync(await tomlDownload.path(), "utf8");
const designDir = mkdtempSync(`${out}/frontier-`);
spawnSync(phasesimBinary, [...frontierCommand.split(" ").slice(1), "--out", designDir], { encoding: "utf8" });
const cliToml = readFileSync(`${designDir}/${first}.toml`, "utf8");
rmSync(designDir, { recursive: true });
check(savedToml === cliToml, `${first}.toml saved from the page is the file frontier --out writes`);
await page.selectOption("#f-floor", "0.9");
check(/--floor 0.9/.test(await page.textContent("#frontier .command")), "the floor is in the command line");
await page.selectOption("#f-floor", "");

// ---- responsiveness: 8 groups, 8 heads, W = 32 -------------------------------------------
const heavy = `#g-window=32&g-stride=8&n-groups=8&heads=${encodeURIComponent(gates8(8).replace(/logits:/g, ""))}`;
await page.goto("about:blank"); // a new load, not a change of the address's fragment
await page.goto(`${pageUrl}${heavy}`);
await page.evaluate(() => phasesim.ready.then(() => true));
await page.waitForFunction(() => document.querySelectorAll("#n-bars rect.bar").length === 8);
const updateTargetMs = 50;
const updateLimitMs = Number(process.env.PHASESIM_WEB_UPDATE_LIMIT_MS ?? 5 * updateTargetMs);
const updateCount = Number(process.env.PHASESIM_WEB_UPDATES ?? 5);
const updates = [];
for (let i = 0; i < updateCount; ++i) {
  const beta = 5 + 0.5 * (i % 5) + 0.01 * Math.floor(i / 5); // each value a new update
  await page.locator("#n-beta").fill(String(beta));
  updates.push(Number(await page.getAttribute("#niah", "data-update-ms")));
}
updates.sort((a, b) => a - b);
const median = updates[Math.floor(updates.length / 2)];
check(median < updateLimitMs, `analytic update with 8 heads, W = 32, 8 groups: median ${median} ms of ${updates.join(", ")} (under ${updateLimitMs}; the target is ${updateTargetMs})`);

// ---- every panel's update at W = 32 with 8 heads and at W = S = 128 -----------------------
// benchmarks/web-update.sh only (PHASESIM_WEB_PANELS=1): the theorem panels at these sizes take
// seconds on a loaded machine, too long for ctest. Each panel is updated through its own
// control, one at a time, 5 times (the control between two values), and the median of its
// data-update-ms is checked against the 50 ms target, with the machine's load.
if (process.env.PHASESIM_WEB_PANELS) {
  const firstOfS = (n) => ["1", ...Array(n - 1).fill("0")].join(",");
  const configs = [
    ["W = 32, S = 8, 8 heads", `#g-window=32&g-stride=8&n-groups=8&t2-weights=${firstOfS(8)}` +
      `&heads=${encodeURIComponent(gates8(8).replace(/logits:/g, ""))}`],
    ["W = S = 128, 1 head", `#g-window=128&g-stride=128&n-groups=128&t2-weights=${firstOfS(128)}` +
      `&heads=${encodeURIComponent(Array.from({ length: 128 }, (_, s) => (s % 5) / 4).join(","))}`],
  ];
  const triggers = [["geometry", "g-offset", ["1", "0"]], ["niah", "n-beta", ["5.3", "5.2"]],
    ["t1", "t1-beta", ["5.3", "5.2"]], ["t2", "t2-steps", ["1999", "1998"]],
    ["t3", "t3-success", ["0.65", "0.64"]]];
  for (const [name, hash] of configs) {
    await page.goto("about:blank");
    await page.goto(`${pageUrl}${hash}`);
    await page.evaluate(() => phasesim.ready.then(() => true));
    // The theorem panels' first updates run 300 ms after the load: let them finish.
    await page.waitForFunction(() => ["t1", "t2", "t3"].every((id) => document.getElementById(id).dataset.updateMs),
      null, { timeout: 600000 });
    for (const [panel, control, values] of triggers) {
      const times = [];
      let error = "";
      for (let k = 0; k < 5; ++k) {
        await page.evaluate((id) => { document.getElementById(id).dataset.updateMs = ""; }, panel);
        await page.locator(`#${control}`).fill(values[k % 2]);
        await page.locator(`#${control}`).dispatchEvent("change"); // T1's and T2's controls act on it
        await page.waitForFunction((id) => document.getElementById(id).dataset.updateMs !== "", panel,
          { timeout: 600000 });
        times.push(Number(await page.getAttribute(`#${panel}`, "data-update-ms")));
        error ||= await page.$eval(`#${panel} .error`, (e) => (e.hidden ? "" : e.textContent));
        await page.waitForTimeout(400); // the updates a control schedules for the other panels
      }
      const ms = [...times].sort((a, b) => a - b)[2];
      check(ms < updateLimitMs && !error, `${name}: the ${panel} panel's update took ${ms} ms, the ` +
        `median of ${times.join(", ")} (under ${updateLimitMs}; the target is ${updateTargetMs}; ` +
        `load ${loadavg()[0].toFixed(1)})${error ? `, error: ${error}` : ""}`);
    }
  }
  // The frontier panel depends on its own controls only: one update per context, each a
  // frontier of the page's design space with the presets, against its own target (a frontier
  // is dozens of NIAH runs, not one: "well under a second", issue 38).
  const frontierTargetMs = 500;
  await page.goto("about:blank");
  await page.goto(pageUrl);
  await page.waitForFunction(() => document.getElementById("frontier").dataset.updateMs, null, { timeout: 600000 });
  for (const context of ["32768", "1048576", "131072"]) {
    await page.selectOption("#f-context", context);
    const ms = Number(await page.getAttribute("#frontier", "data-update-ms"));
    check(ms < frontierTargetMs, `the frontier panel's update at context ${context} took ${ms} ms (under ${frontierTargetMs})`);
  }
}

// ---- every panel, and its screenshot ---------------------------------------------------
await page.goto("about:blank");
await page.goto(pageUrl);
await page.evaluate(() => phasesim.ready.then(() => true));
// The whole models (presets/v4-flash.toml, v4-pro.toml, v41-flash.toml) are presets of the page
// too: a button each, loading the geometry of their first layer with a cache.
for (const name of ["v4-flash", "v4-pro", "v41-flash"]) {
  check(await page.isVisible(`#presets button:text-is('${name}')`), `the page lists the whole-model preset ${name}`);
}
await page.click("#presets button:text-is('v41-flash')");
check(await page.inputValue("#g-window") === "2", "the v41-flash preset loads its first compressor, W = S = 2");
await page.click("#presets button:text('v4-csa')");
check(await page.inputValue("#g-window") === "8" && await page.inputValue("#n-beta") === "9.5135", "the v4-csa preset sets W = 8 and the one-gate fit's beta 9.5135");
check(decodeURIComponent(page.url()).includes("0,0,0,0,0,0,0,0.3465"), "the v4-csa preset loads the one-gate fit: 0.3465 nats on slot 7");
await page.click("#t1-diagram");
await page.waitForFunction(() => document.querySelectorAll("#t1-map polyline").length === 1, null, { timeout: 300000 });
// The theorem panels recompute once the sliders rest (app.js): let them finish.
await page.waitForTimeout(400);
await page.evaluate(() => new Promise((done) => setTimeout(done, 0)));
await page.waitForFunction(() => document.querySelectorAll("#f-plot circle.frontier-design").length > 0);
for (const panel of ["geometry", "niah", "t1", "t2", "t3", "frontier"]) {
  const error = await page.isVisible(`#${panel} .error`);
  const look = await page.textContent(`#${panel} .look`);
  check(!error && look.includes("What to look at"), `panel ${panel} drawn, with the demo's words`);
  await page.locator(`#${panel}`).screenshot({ path: `${out}/${panel}.png` });
}
await page.screenshot({ path: `${out}/page.png`, fullPage: true });

check(consoleErrors.length === 0, `no console error${consoleErrors.length ? ": " + consoleErrors.join(" | ") : ""}`);
await browser.close();
console.log(failures ? `${failures} check(s) failed` : "all checks passed");
process.exit(failures ? 1 : 0);
