#!/usr/bin/env python3
"""Side-by-side table of two builds' benchmark runs (scripts/bench-compare).

usage: compare.py OUT.json BASE_ROUND.json... -- THIS_ROUND.json...
Each file is one round of tseq_bench (Google Benchmark JSON) of one build; the rounds of the two
builds ran alternately, round k of each next to each other. Prints per benchmark the median
time of each build, their ratio (this / base; below 1 is faster) and the range of the per-round
ratios, and writes the same to OUT.json.
"""
import json
import statistics
import sys
from pathlib import Path


NS_PER = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}  # Google Benchmark's time_unit values


def ns_per(path, b):
    unit = b.get("time_unit", "ns")
    if not isinstance(unit, str) or unit not in NS_PER:
        raise SystemExit(f"compare.py: {path}: benchmark {b.get('name', '(unnamed)')} reports time_unit "
                         f"'{unit}', not one of {', '.join(NS_PER)}")
    return NS_PER[unit]


def times(path):
    """Real time in ns per benchmark of one round; aggregates and runs stopped by an error left out."""
    try:
        data = json.loads(Path(path).read_text())
        return {b["name"]: b["real_time"] * ns_per(path, b) for b in data["benchmarks"]
                if b.get("run_type") != "aggregate" and not b.get("error_occurred") and b["real_time"] > 0}
    except OSError as e:
        raise SystemExit(f"compare.py: cannot read {path}: {e.strerror}")
    except (json.JSONDecodeError, KeyError, TypeError):
        raise SystemExit(f"compare.py: {path} holds no benchmark results (did the filter match any benchmark?)")


def main(argv):
    if len(argv) < 4 or "--" not in argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = Path(argv[0])
    sep = argv.index("--")
    base = [times(p) for p in argv[1:sep]]
    this = [times(p) for p in argv[sep + 1:]]
    if not base or len(base) != len(this):
        print("compare.py: need the same number of rounds (at least one) of each build", file=sys.stderr)
        return 2
    names = [n for n in base[0] if all(n in r for r in base + this)]
    seen = {n for r in base + this for n in r}
    dropped = sorted(seen - set(names))
    if dropped:
        print("compare.py: left out, not measured in every round of both builds: " + ", ".join(dropped),
              file=sys.stderr)
    if not names:
        print("compare.py: no benchmark ran in every round of both builds", file=sys.stderr)
        return 1
    rows = []
    for n in names:
        b = statistics.median(r[n] for r in base)
        t = statistics.median(r[n] for r in this)
        per_round = [tr[n] / br[n] for br, tr in zip(base, this)]
        rows.append({"name": n, "base_ns": b, "this_ns": t, "ratio": t / b,
                     "ratio_min": min(per_round), "ratio_max": max(per_round)})
    width = max(len(r["name"]) for r in rows)
    print(f"{'benchmark':<{width}}  {'base':>12}  {'this':>12}  this/base  (rounds)")
    for r in rows:
        print(f"{r['name']:<{width}}  {r['base_ns']:>9.1f} ns  {r['this_ns']:>9.1f} ns  {r['ratio']:>8.3f}x"
              f"  ({r['ratio_min']:.3f} .. {r['ratio_max']:.3f})")
    out.write_text(json.dumps({"rounds": len(base), "benchmarks": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
