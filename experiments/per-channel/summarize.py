#!/usr/bin/env python3
"""Tables (summary.json, summary.csv) and figures (figures/*.png) of the per-channel
experiment from the niah documents run.sh wrote into OUT."""
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(out, name):
    with open(os.path.join(out, name + ".json")) as f:
        return json.load(f)


def row(doc, **labels):
    s = doc["summary"]
    item = dict(labels)
    item.update(mean=s["mean"], worst=s["worst"], best=s["best"])
    if "mean_std_error" in s:
        item["mean_std_error"] = s["mean_std_error"]
    return item


def figure(rows, x, series, title, path):
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.4), sharex=True)
    for name in series:
        points = [r for r in rows if r["config"] == name]
        for panel, key in zip(ax, ("mean", "worst")):
            panel.plot([r[x] for r in points], [r[key] for r in points], marker="o", label=name)
            panel.set_title(key)
            panel.set_xlabel(x)
    ax[0].set_ylabel("accuracy")
    ax[1].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(out):
    a = [row(load(out, f"a_{c}_{b}"), part="a", config=c, beta=b)
         for b in (6, 9, 12, 16, 20, 24) for c in ("last", "channels", "uniform", "heads")]
    c = [row(load(out, f"c_{g}_{r}"), part="c", config=g, rho=float(r))
         for r in ("0", "0.25", "0.5", "0.75", "1") for g in ("v4", "channels", "uniform")]
    mc = [row(load(out, f"mc_{n}"), part="mc", config=n)
          for n in ("channels_fast", "heads_fast", "channels_full")]
    b = []
    for name in ("one-query", "shared-8", "heads-8"):
        doc = load(out, f"b_{name}")
        item = row(doc, part="b", config=name)
        item["groups"] = [g["accuracy"] for g in doc["groups"]]
        item["kv_cost"] = doc["kv_cost"]["entries_per_token"]
        b.append(item)
    rows = a + b + c + mc
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump({"rows": rows}, f, indent=2)
    keys = ["part", "config", "beta", "rho", "mean", "mean_std_error", "worst", "best"]
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: r.get(k, "") for k in keys})
    for r in rows:
        label = f"beta {r['beta']}" if "beta" in r else f"rho {r['rho']}" if "rho" in r else ""
        print(f"{r['part']:>2} {r['config']:>14} {label:>9}  mean {r['mean']:.4f}"
              f"  worst {r['worst']:.4f}  best {r['best']:.4f}")
        if "groups" in r:
            print("   groups " + " ".join(f"{x:.3f}" for x in r["groups"]) +
                  f"  kv cost {r['kv_cost']:.2f}")
    os.makedirs(os.path.join(out, "figures"), exist_ok=True)
    figure(a, "beta", ("last", "channels", "uniform", "heads"),
           "(a) equal KV cost: one compressor (last, channels, uniform) or 4 heads of d/4",
           os.path.join(out, "figures", "a_equal_cost.png"))
    figure(c, "rho", ("v4", "channels", "uniform"),
           "(c) split projections on W 8, S 4 at beta 9.5135",
           os.path.join(out, "figures", "c_split_rho.png"))


if __name__ == "__main__":
    main(*sys.argv[1:])
