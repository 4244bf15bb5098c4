#!/usr/bin/env python3
"""Summarises `redist bench --csv` files as the Markdown of docs/performance.md's "The cost
model: calibrate and bench": auto's regret (its own plan's time / the best algorithm's), the
regret of the algorithm auto chose timed as its own plan, the cases above 1.15, and per
algorithm how many predictions are within 2x of the measured time on the largest cases.

    bench/model_summary.py bench/results/model-shm/bench.csv bench/results/model-tcp/bench.csv
"""
import collections
import csv
import sys


def load(path):
    cases = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if r["applicable"] == "1":
            cases[int(r["case"])][r["algorithm"]] = r
    return cases


def label(r):
    mb = int(r["bytes"]) / 1e6
    return f"{r['dims']}-D, P = {r['procs']}, K = {r['ratio']}, {mb:.3g} MB"


def summary(name, path):
    cases = load(path)
    n = len(cases)
    regrets, chosen_regrets, above = [], [], []
    for k, d in sorted(cases.items()):
        auto = d["auto"]
        best = min((r for a, r in d.items() if a != "auto"), key=lambda r: float(r["measured_s"]))
        chosen = [r for a, r in d.items() if a != "auto" and r["auto_choice"] == "1"][0]
        t_best = float(best["measured_s"])
        regret = float(auto["measured_s"]) / t_best
        chosen_regret = float(chosen["measured_s"]) / t_best
        regrets.append(regret)
        chosen_regrets.append(chosen_regret)
        if regret > 1.15:
            above.append((regret, chosen_regret, label(auto), chosen["algorithm"],
                          chosen["transport"], best["algorithm"], best["transport"]))
    within = sum(r <= 1.15 for r in regrets)
    within_c = sum(r <= 1.15 for r in chosen_regrets)
    print(f"**{name}** ({n} cases): auto within 15% of the best in {within} of {n} "
          f"({100 * within / n:.0f}%), worst regret {max(regrets):.2f}; timed as its own plan, "
          f"the algorithm auto chose is within 15% in {within_c} of {n} "
          f"({100 * within_c / n:.0f}%), worst {max(chosen_regrets):.2f}.\n")
    print("| case | regret | chosen's own | auto chose | best |")
    print("|---|---|---|---|---|")
    for a in sorted(above, reverse=True):
        print(f"| {a[2]} | {a[0]:.2f} | {a[1]:.2f} | {a[3]} ({a[4]}) | {a[5]} ({a[6]}) |")
    print()
    return cases


def accuracy(all_cases):
    """predicted / measured on the largest size of each dimension count, per algorithm."""
    names = []
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for name, cases in all_cases:
        names.append(name)
        top = collections.defaultdict(int)
        for d in cases.values():
            r = d["auto"]
            top[r["dims"]] = max(top[r["dims"]], int(r["elements"]))
        for d in cases.values():
            for a, r in d.items():
                if a == "auto" or int(r["elements"]) != top[r["dims"]]:
                    continue
                rows[a][name].append(float(r["predicted_s"]) / float(r["measured_s"]))
    print("| algorithm | " + " | ".join(f"{n}: within 2x, median predicted/measured" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for a in sorted(rows):
        cells = []
        for n in names:
            q = sorted(rows[a][n])
            if not q:
                cells.append("-")
                continue
            ok = sum(0.5 <= x <= 2 for x in q)
            cells.append(f"{ok} of {len(q)}, {q[len(q) // 2]:.2f}")
        print(f"| {a} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    loaded = []
    for path in sys.argv[1:]:
        name = "TCP" if "tcp" in path else "shared memory"
        loaded.append((name, summary(name, path)))
    accuracy(loaded)
