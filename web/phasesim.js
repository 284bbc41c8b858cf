// window.phasesim: the phasesim CLI in the page. One call per command takes the command's
// options as an object ({window: 8, gates: "last", engine: "analytic"} for
// `--window 8 --gates last --engine analytic`) and returns the JSON document the CLI writes
// with --json, computed by the same C++ compiled to WebAssembly (build-web/phasesim-wasm.js).
// Bad input throws a PhasesimError whose message is the CLI's one line.
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

  // {max_logit_step: 0.1, rms_norm: true, heads: [4, 8]} -> --max-logit-step 0.1 --rms-norm
  // --heads 4,8. A flag is given by true and left out by false; null and undefined leave an
  // option out.
  function commandLine(command, options) {
    const words = command.split(" ");
    for (const [key, value] of Object.entries(options || {})) {
      if (value === false || value === null || value === undefined) continue;
      const option = "--" + key.replace(/_/g, "-");
      if (value === true) words.push(option);
      else words.push(option, Array.isArray(value) ? value.join(",") : String(value));
    }
    return words;
  }

  // Runs `phasesim WORDS...` and returns {status, out, err}.
  function runWords(words) {
    if (!module) throw new PhasesimError("phasesim: the WebAssembly module is still loading", 1);
    return module.run(JSON.stringify(words));
  }

  // The command's JSON document; throws PhasesimError with the CLI's last stderr line.
  function run(command, options) {
    const outcome = runWords(commandLine(command, options).concat(["--json", "-"]));
    if (outcome.status !== 0) {
      const lines = outcome.err.trim().split("\n");
      throw new PhasesimError(lines[lines.length - 1], outcome.status);
    }
    return JSON.parse(outcome.out);
  }

  const api = {
    PhasesimError,
    /// Resolves once the module is loaded; every other call is synchronous after it.
    ready: createPhasesim().then((loaded) => {
      module = loaded;
      return api;
    }),
    run,
    /// The command line a call stands for, as a user would type it.
    commandLine: (command, options) => "phasesim " + commandLine(command, options).join(" "),
    /// Writes a file (an architecture TOML) where --arch can read it.
    writeFile: (path, text) => module.FS.writeFile(path, text),
    coverage: (options) => run("coverage", options),
    channel: (options) => run("channel", options),
    niah: (options) => run("niah", options),
    optimize: (options) => run("optimize", options),
    phaseDiagram: (options) => run("phase-diagram", options),
    dynamics: (options) => run("dynamics", options),
    diversity: (options) => run("diversity", options),
    theorem: (name, options) => run("theorem " + name, options),
    /// The demo's tour: [{step, look, command}], the plain words `phasesim demo` prints.
    tour: () => JSON.parse(module.tour()),
  };
  window.phasesim = api;
})();
