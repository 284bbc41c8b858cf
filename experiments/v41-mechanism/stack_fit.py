#!/usr/bin/env python3
"""Part (e): V4-Flash-Base's table (best 69.9, worst 29.7 over 8 groups at 128K) on the V4-Flash
stack (v4-flash-stack.toml: 21 CSA layers with the read path and 20 HCA layers, any layer
reads), against read-path (a)'s one-layer two-stage fit (beta 9.5964, beta_I 8.3385). (beta,
beta_I) are solved with the analytic engine as read-path/fit.py does on one layer; then each
kind of layer alone at the stack's fit, and the stack's prediction at 1M. Writes stack_fit.json
and the niah documents stack_*.json into OUT."""
import json
import os
import subprocess
import sys

from scipy import optimize

PHASESIM = os.environ["PHASESIM"]
OUT = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
STACK = os.path.join(HERE, "v4-flash-stack.toml")
CSA = ["--gates", "channels:onehot:7=0.033013|uniform=0.966987", "--split-rho", "0",
       "--top-k", "512", "--sliding-window", "128"]  # one layer: presets/v4-csa.toml, read path
HCA = ["--window", "128", "--stride", "128", "--gates", "uniform", "--sliding-window", "128"]
ONE_LAYER = (9.5964, 8.3385)  # experiments/read-path/expected/a_fit.json
TARGET = (0.699, 0.297)
SHARE = 0.033013  # presets/v4-csa.toml
INDEX_BETAS = [2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]


def niah(args, name="scratch", groups=8):
    path = os.path.join(OUT, f"{name}.json")
    subprocess.run([PHASESIM, "niah", *args, "--groups", str(groups), "--engine", "analytic",
                    "--json", path], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)  # the stack's 8 groups mix HCA's 128 phases: warned
    with open(path) as f:
        doc = json.load(f)
    # The stack's document lists its 41 x 64 query heads (6 MB): the groups and the summary
    # are what this part reads and checks.
    doc = {key: doc[key] for key in ("groups", "summary")}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return doc


def betas(beta, index_beta, context=131072):
    return ["--beta", repr(beta), "--index-beta", repr(index_beta), "--context", str(context)]


def summary(doc):
    s = doc["summary"]
    return {"mean": s["mean"], "best": s["best"], "worst": s["worst"]}


def stack(share):
    """The stack's file with a share of the CSA channels one-hot on the newest slot."""
    if share == SHARE:
        return STACK
    with open(STACK) as f:
        text = f.read().replace(f"share = {SHARE}", f"share = {share!r}")
    text = text.replace(f"share = {1 - SHARE:.6f}", f"share = {1 - share!r}")
    path = os.path.join(OUT, "stack_share.toml")
    with open(path, "w") as f:
        f.write(text)
    return path


def run_stack(beta, index_beta, share=SHARE, context=131072, name="scratch"):
    return niah(["--arch", stack(share), *betas(beta, index_beta, context)], name)["summary"]


def worst_at_best(index_beta, share=SHARE):
    """The stack's beta that gives the table's best at this index beta, and the worst then."""
    beta = optimize.brentq(lambda b: run_stack(b, index_beta, share)["best"] - TARGET[0], 2, 30,
                           xtol=1e-8)
    return beta, run_stack(beta, index_beta, share)["worst"]


def main():
    # With the preset's gate: the worst group the stack can give at the table's best, over
    # the index beta (a profile: best = 0.699 solved for beta at each).
    profile = []
    for index_beta in INDEX_BETAS:
        beta, worst = worst_at_best(index_beta)
        profile.append({"index_beta": index_beta, "beta": beta, "worst": worst})
    lowest = min(profile, key=lambda r: r["worst"])
    result = {"target": {"best": TARGET[0], "worst": TARGET[1]},
              "one_layer_fit": {"beta": ONE_LAYER[0], "index_beta": ONE_LAYER[1]},
              "preset_gate_profile": profile, "preset_gate_lowest_worst": lowest,
              "at_lowest": {}, "predictions": {}}
    beta, index_beta = lowest["beta"], lowest["index_beta"]
    # Each kind of layer alone there: what one CSA layer and one HCA layer read.
    result["at_lowest"]["csa_layer"] = summary(niah([*CSA, *betas(beta, index_beta)],
                                                    "stack_csa_alone"))
    result["at_lowest"]["hca_layer"] = summary(niah([*HCA, *betas(beta, index_beta)],
                                                    "stack_hca_alone", groups=128))
    # The gate the stack needs: the share of one-hot channels and beta that give the table,
    # with the indexer at the one-layer fit's ratio beta_I / beta.
    ratio = ONE_LAYER[1] / ONE_LAYER[0]

    def residual(x):
        s = run_stack(x[0], ratio * x[0], x[1])
        return [s["best"] - TARGET[0], s["worst"] - TARGET[1]]

    x, _, status, message = optimize.fsolve(residual, [6.0, 0.06], full_output=True, xtol=1e-9)
    if status != 1:
        raise SystemExit(f"stack_fit.py: the share fit did not converge: {message}")
    beta, share = (float(v) for v in x)
    result["refit"] = {"beta": beta, "index_beta": ratio * beta, "share": share}
    for context, name in ((131072, "128k"), (1048576, "1m")):
        result["predictions"][name] = {
            "stack": summary({"summary": run_stack(beta, ratio * beta, share, context,
                                                   f"stack_{name}")}),
            "one_layer": summary(niah([*CSA, *betas(*ONE_LAYER, context)], f"one_layer_{name}"))}
    for scratch in ("scratch.json", "stack_share.toml"):
        os.remove(os.path.join(OUT, scratch))
    with open(os.path.join(OUT, "stack_fit.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
