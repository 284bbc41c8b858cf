// window.phasesim: phasesim's commands in the page. One call per command takes the command's
// options as an object ({window: 8, gates: "last", engine: "analytic"}, the CLI's options with
// dashes as underscores) and returns the JSON document the CLI writes with --json, computed by
// the library's own command objects compiled to WebAssembly (build-web/phasesim-wasm.js). A
// string given for a number or a list is read as the CLI reads its words ("1,0,0,0"). Bad
// input throws a PhasesimError whose message is the CLI's one line.
"use strict";

(function () {
  class PhasesimError extends Error {
    constructor(message, status) {
      super(message);
      this.name = "PhasesimError";
      this.status = status; // the CLI's exit status: 2 for bad input
    }
  }

  let module = null;
  // Each document's text as the library wrote it: JavaScript numbers forget that 0.0 was a
  // double, so exports are made from the text, not from the object.
  const texts = new WeakMap();

  function loaded() {
    if (!module) throw new PhasesimError("phasesim: the WebAssembly module is still loading", 1);
    return module;
  }

  // An outcome's document; throws PhasesimError with its line.
  function documentOf(outcome) {
    if (outcome.status !== 0) throw new PhasesimError(outcome.err, outcome.status);
    const document = JSON.parse(outcome.out);
    texts.set(document, outcome.out);
    return document;
  }

  // The text of a document this module returned (or of any object, as JSON).
  function text(document) {
    return texts.get(document) ?? JSON.stringify(document, null, 2) + "\n";
  }

  // The command's JSON document.
  function run(command, options) {
    return documentOf(loaded().run(command, JSON.stringify(options || {})));
  }

  // {max_logit_step: 0.1, rms_norm: true, heads: [4, 8]} -> --max-logit-step 0.1 --rms-norm
  // --heads 4,8: the command line a call stands for, as a user would type it. A list of words
  // (gate_families: ["uniform", "last"]) is one word each: a gate spec holds commas.
  function commandLine(command, options) {
    const words = ["phasesim", ...command.split(" ")];
    for (const [key, value] of Object.entries(options || {})) {
      if (value === false || value === null || value === undefined) continue;
      const option = "--" + key.replace(/_/g, "-");
      if (value === true) words.push(option);
      else if (Array.isArray(value) && value.some((v) => typeof v === "string")) words.push(option, ...value);
      else words.push(option, Array.isArray(value) ? value.join(",") : String(value));
    }
    return words.join(" ");
  }

  const api = {
    PhasesimError,
    /// Resolves once the module is loaded; every other call is synchronous after it.
    ready: createPhasesim().then((m) => {
      module = m;
      return api;
    }),
    run,
    commandLine,
    /// Writes a file (an architecture TOML) where --arch can read it.
    writeFile: (path, text) => loaded().FS.writeFile(path, text),
    coverage: (options) => run("coverage", options),
    channel: (options) => run("channel", options),
    niah: (options) => run("niah", options),
    optimize: (options) => run("optimize", options),
    phaseDiagram: (options) => run("phase-diagram", options),
    dynamics: (options) => run("dynamics", options),
    diversity: (options) => run("diversity", options),
    frontier: (options) => run("frontier", options),
    theorem: (name, options) => run("theorem " + name, options),
    /// The first `entries` entries over the tokens: each slot's position and phase, and each
    /// token's phase, as the library's geometry has them.
    geometry: (window, stride, offset, entries) =>
      documentOf(loaded().geometry(window, stride, offset, entries)),
    /// The presets, [{name, description, fit}]: fit holds the published table a preset was
    /// fitted to, its beta, and the one-gate fit (one_gate, one_gate_beta), or null.
    presets: () => JSON.parse(loaded().presets()),
    /// A document's JSON text, byte for byte the file `phasesim COMMAND --json FILE` writes.
    text,
    /// The tidy table of a document as CSV: what a sweep's results.csv and Python's to_frame
    /// hold for it.
    tidyCsv: (document) => loaded().tidyCsv(text(document)),
    /// The demo's tour: [{title, look, command}], the plain words `phasesim demo` prints.
    tour: () => JSON.parse(loaded().tour()),
  };
  window.phasesim = api;
})();
