#!/usr/bin/env python3
"""tseq against immer's flex_vector: the table, the targets and the plot of a
benchmarks/bench_vs_immer.cpp run (scripts/bench --vs-immer DIR).

usage: benchmarks/immer_report.py OUTDIR IMMER_JSON[,IMMER_JSON...] [IMMER_COMMIT]

Writes OUTDIR/immer.md (tseq/immer time per operation, element type and n: the median of the
interleaved repetitions of each, over every JSON given (scripts/bench --vs-immer DIR --runs N
runs the program N times); node bytes per element after 10^5 random edits; the targets
of issue 30, each PASS or MISS) and OUTDIR/immer.png (the ratios against n, via gnuplot when
it is installed). Prints immer.md.
"""
import json
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "python"))
from bench_targets import fmt_time, target_line  # noqa: E402  (one format for every report)

OPS = ["erase", "insert", "inplace", "take", "drop", "concat", "index_fresh", "index_edited", "iterate_fresh",
       "iterate_edited", "push_back", "builder"]
LABELS = {"erase": "erase (middle)", "insert": "insert (middle)", "inplace": "in-place erase + push_back",
          "take": "take (random cut)", "drop": "drop (random cut)", "concat": "concatenation of halves",
          "index_fresh": "random index, fresh", "index_edited": "random index after 10^5 edits",
          "iterate_fresh": "traversal, fresh", "iterate_edited": "traversal after 10^5 edits",
          "push_back": "push_back of n (in place)", "builder": "builder / transient of n"}
# Issue 30's bounds on tseq/immer (at every n, for both element types).
BOUND = {op: 1.0 for op in OPS}
BOUND.update({"erase": 0.8, "insert": 0.8, "inplace": 0.6})


def load(paths):
    """{(op, elem, impl, n): (median ns, counters)} from Google Benchmark JSON files (comma-separated
    paths: the repetitions of every file pooled)."""
    files = [json.loads(Path(p).read_text()) for p in paths.split(",")]
    data = files[0]
    reps = defaultdict(list)
    counters = {}
    for b in (b for d in files for b in d["benchmarks"]):
        if b.get("run_type") == "aggregate":
            continue
        parts = [p for p in b.get("run_name", b["name"]).split("/") if not p.startswith("iterations:")]
        if len(parts) != 5 or parts[0] != "Immer":
            continue
        key = (parts[1], parts[2], parts[3], int(parts[4].split(":")[1]))
        t = b["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        reps[key].append(t)
        if "bytes_per_elem" in b:
            counters[key] = b["bytes_per_elem"]
    med = {}
    for k, ts in reps.items():
        ts = sorted(ts)
        m = len(ts) // 2
        med[k] = ts[m] if len(ts) % 2 else (ts[m - 1] + ts[m]) / 2
    return data.get("context", {}), med, counters


def report(outdir, path, commit):
    context, med, counters = load(path)
    runs = len(path.split(","))
    pooled = f" of {runs} runs of the program, pooled" if runs > 1 else ""
    ns = sorted({k[3] for k in med})
    elems = [e for e in ("tensor", "int") if any(k[1] == e for k in med)]
    lines = [f"# tseq against immer's flex_vector (immer {commit})", "",
             f"Run: {context.get('date', '?')} on {context.get('host_name', '?')} "
             f"({context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz); "
             f"each figure the median of the interleaved repetitions{pooled}; ratio = tseq time / immer time "
             "(below 1: tseq is faster).", ""]
    targets = []
    ratios = {}
    for elem in elems:
        lines += [f"## {elem} elements", "",
                  "| operation | " + " | ".join(f"n = {n:,}" for n in ns) + " |",
                  "|---|" + "---|" * len(ns)]
        for op in OPS:
            cells = []
            worst = None
            for n in ns:
                t, i = med.get((op, elem, "tseq", n)), med.get((op, elem, "immer", n))
                if t is None or i is None or i == 0:
                    cells.append("-")
                    continue
                r = t / i
                ratios[(op, elem, n)] = r
                cells.append(f"**{r:.2f}** ({fmt_time(t)} / {fmt_time(i)})" if r > BOUND[op] else
                             f"{r:.2f} ({fmt_time(t)} / {fmt_time(i)})")
                if worst is None or r > worst[0]:
                    worst = (r, n)
            lines.append(f"| {LABELS[op]} | " + " | ".join(cells) + " |")
            if worst:
                targets.append(target_line(f"{LABELS[op]}, {elem}: tseq/immer <= {BOUND[op]:.1f} at every n",
                                           worst[0] <= BOUND[op], f"worst {worst[0]:.2f} at n={worst[1]:,}"))
        mem = []
        for n in ns:
            t, i = counters.get(("memory", elem, "tseq", n)), counters.get(("memory", elem, "immer", n))
            mem.append("-" if t is None or i is None else f"{t:.2f} / {i:.2f}")
            if t is not None and i is not None and n >= 100000:
                targets.append(target_line(f"node bytes per element after 10^5 edits, {elem}, n={n:,}: tseq <= immer",
                                           t <= i, f"{t:.2f} vs {i:.2f}"))
        lines.append("| node bytes per element after 10^5 edits (tseq / immer) | " + " | ".join(mem) + " |")
        lines.append("")
    lines += ["## Targets", ""] + targets + [""]
    text = "\n".join(lines)
    (outdir / "immer.md").write_text(text)
    print(text)
    plot(outdir, ratios, elems, ns)


def plot(outdir, ratios, elems, ns):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot or not ratios:
        print("gnuplot not found or nothing measured: no plot drawn")
        return
    dat = outdir / "immer.dat"
    with dat.open("w") as f:
        for elem in elems:
            for op in OPS:  # one data block (index) per element type and operation
                f.write(f"# {elem} {op}\n")
                for n in ns:
                    r = ratios.get((op, elem, n))
                    f.write(f"{n} {r:.4f}\n" if r is not None else f"{n} NaN\n")
                f.write("\n\n")
    # One panel per element type; in each, one colour and point type per operation.
    colours = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666",
               "#1f78b4", "#b2182b", "#35978f", "#000080"]
    panels = []
    for e, elem in enumerate(elems):
        plots = []
        for o, op in enumerate(OPS):
            idx = e * len(OPS) + o
            title = LABELS[op].replace("_", "\\_").replace("^", "\\^")
            plots.append(f"'{dat}' index {idx} using 1:2 with linespoints lw 2 pt {1 + o % 12} "
                         f"lc rgb '{colours[o % len(colours)]}' dt {1 + o // 6} title '{title}'")
        key = "set key outside right" if e == len(elems) - 1 else "unset key"
        panels.append(f"""set title '{elem} elements'
{key}
plot 1 with lines lc rgb 'black' lw 3 notitle, {", ".join(plots)}""")
    width = 700 * len(elems) + 300
    script = f"""
set terminal pngcairo size {width},700 font 'sans,10'
set output '{outdir / "immer.png"}'
set logscale x
set format x '10^{{%L}}'
set xlabel 'n (elements)'
set ylabel 'tseq time / immer time (below 1: tseq is faster)'
set grid
set multiplot layout 1,{len(elems)} title 'tseq rrb\\_vector against immer flex\\_vector'
{chr(10).join(panels)}
unset multiplot
"""
    subprocess.run([gnuplot], input=script, text=True, check=True)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    report(Path(sys.argv[1]), sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "?")
    return 0


if __name__ == "__main__":
    sys.exit(main())
