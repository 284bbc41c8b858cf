#!/usr/bin/env python3
"""Side-by-side table of the compressed and the full-attention niah results, with the
number of heads whose heaviest slot has each phase; writes it as JSON too."""
import json
import sys


def main(compressed_path, full_path, out):
    compressed, full = (json.load(open(p)) for p in (compressed_path, full_path))
    window, stride = compressed["window"], compressed["stride"]
    phase = [(s + stride - window) % stride for s in range(window)]
    heads = [0] * stride
    for w in compressed["gate_weights"]:
        heads[phase[max(range(window), key=w.__getitem__)]] += 1
    rows = []
    print(f"{'group':>5} {'heads':>5} {'W8/S8':>7} {'full':>7}")
    for c, f in zip(compressed["groups"], full["groups"]):
        g = c["group"]
        rows.append({"group": g, "heads": heads[g % stride], "compressed": c["accuracy"], "full_attention": f["accuracy"]})
        print(f"{g:>5} {heads[g % stride]:>5} {c['accuracy']:7.3f} {f['accuracy']:7.3f}")
    summary = {k: {"mean": d["summary"]["mean"], "worst": d["summary"]["worst"]}
               for k, d in (("compressed", compressed), ("full_attention", full))}
    for k, s in summary.items():
        print(f"{k:>15}: mean {s['mean']:.3f}, worst {s['worst']:.3f}")
    with open(out, "w") as f:
        json.dump({"rows": rows, "summary": summary}, f, indent=2)


if __name__ == "__main__":
    main(*sys.argv[1:])
