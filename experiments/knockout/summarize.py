#!/usr/bin/env python3
"""Per head: the phase of its heaviest slot, how many heads share that phase, the
accuracy drop on that phase when the head is knocked out, and the largest drop
elsewhere. Reads knockout_H.json files written by `phasesim niah --knockout H`."""
import json
import sys


def main(out, *paths):
    docs = [json.load(open(p)) for p in paths]
    window, stride = docs[0]["window"], docs[0]["stride"]
    phase = [(s + stride - window) % stride for s in range(window)]
    covered = [phase[max(range(window), key=w.__getitem__)] for w in docs[0]["gate_weights"]]
    rows = []
    print(f"{'head':>4} {'phase':>5} {'heads on it':>11} {'drop there':>10} {'largest drop elsewhere':>22}")
    for doc in docs:
        h = doc["knockout"]
        change = {g["group"] % stride: g["change"] for g in doc["knockout_result"]["groups"]}
        own = -change[covered[h]]
        elsewhere = max(-c for p, c in change.items() if p != covered[h])
        rows.append({"head": h, "phase": covered[h], "heads_on_phase": covered.count(covered[h]),
                     "drop_on_phase": own, "largest_drop_elsewhere": elsewhere})
        print(f"{h:>4} {covered[h]:>5} {covered.count(covered[h]):>11} {own:10.3f} {elsewhere:22.4f}")
    with open(out, "w") as f:
        json.dump({"rows": rows}, f, indent=2)


if __name__ == "__main__":
    main(*sys.argv[1:])
