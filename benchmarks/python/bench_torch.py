"""TorchScript benchmark: tseq's class against List[Tensor], with the loops inside TorchScript.

usage: /usr/bin/python3 benchmarks/python/bench_torch.py [--tseq-path DIR] [--out DIR] [--max-n N]

Every loop runs inside a torch.jit.script function, so no Python <-> TorchScript list
conversion is timed: each figure is (T(k2) - T(k1)) / (k2 - k1) for two trip counts k1 < k2 of
the same call (the call's fixed costs, such as converting the input list, cancel), the median
of 5 rounds.

  erase+insert  one functional step at the middle: List[Tensor] copies, `del`s, copies and
                inserts (the input stays valid); tseq erases then inserts, keeping the previous
                version alive (so both operators take their persistent path), and, as a second
                row, at the value's last use (the interpreter hands over the only reference:
                in place)
  growth        k appends keeping every version (List: copy + append; tseq: sequence_insert),
                from n to at most n + n/4
  index, append at n = 10: the per-op dispatch overhead against List[Tensor] index and append

Output: a table on stdout, OUT/torch.json, OUT/torch.md (the table, the targets) and
OUT/torch.png (gnuplot, when installed). Default OUT: build/bench/torch.
"""

import argparse
import json
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import List

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_targets import fmt_ratio, fmt_time, target_line  # noqa: E402


def load(tseq_path):
    if tseq_path:
        sys.path.insert(0, tseq_path)
    import torch

    import tseq.torch  # noqa: F401

    return torch


def define(torch):
    Tensor = torch.Tensor  # noqa: N806

    @torch.jit.script
    def list_step(xs: List[Tensor], t: Tensor, k: int, p: int) -> int:
        for _ in range(k):
            a = xs.copy()
            del a[p]
            b = a.copy()
            b.insert(p, t)
            xs = b
        return len(xs)

    @torch.jit.script
    def tseq_step_kept(s: torch.classes.tseq.TensorSequence, t: Tensor, k: int, p: int) -> int:
        keep = [s]
        for _ in range(k):
            keep[0] = s  # the previous version stays alive: the persistent path
            e = torch.ops.tseq.sequence_erase(s, p)
            keep.append(e)
            s = torch.ops.tseq.sequence_insert(e, t, p)
            keep.pop()
        return torch.ops.tseq.sequence_length(s)

    @torch.jit.script
    def tseq_step_last_use(s: torch.classes.tseq.TensorSequence, t: Tensor, k: int, p: int) -> int:
        for _ in range(k):
            s = torch.ops.tseq.sequence_insert(torch.ops.tseq.sequence_erase(s, p), t, p)
        return torch.ops.tseq.sequence_length(s)

    @torch.jit.script
    def list_growth(xs: List[Tensor], t: Tensor, k: int) -> int:
        versions: List[List[Tensor]] = [xs]
        for _ in range(k):
            xs = xs.copy()
            xs.append(t)
            versions.append(xs)
        return len(versions)

    @torch.jit.script
    def tseq_growth(s: torch.classes.tseq.TensorSequence, t: Tensor, k: int) -> int:
        versions: List[torch.classes.tseq.TensorSequence] = [s]
        for _ in range(k):
            s = torch.ops.tseq.sequence_insert(s, t)
            versions.append(s)
        return len(versions)

    @torch.jit.script
    def list_index(xs: List[Tensor], k: int) -> int:
        n = len(xs)
        acc = 0
        for i in range(k):
            acc += xs[i % n].dim()
        return acc

    @torch.jit.script
    def tseq_index(s: torch.classes.tseq.TensorSequence, k: int) -> int:
        n = torch.ops.tseq.sequence_length(s)
        acc = 0
        for i in range(k):
            acc += torch.ops.tseq.sequence_at(s, i % n).dim()
        return acc

    @torch.jit.script
    def list_append(xs: List[Tensor], t: Tensor, k: int) -> int:
        for _ in range(k):
            xs.append(t)
        return len(xs)

    @torch.jit.script
    def tseq_append(s: torch.classes.tseq.TensorSequence, t: Tensor, k: int) -> int:
        for _ in range(k):
            s = torch.ops.tseq.sequence_insert(s, t)
        return torch.ops.tseq.sequence_length(s)

    return locals()


def per_iteration(call, k1, k2, rounds=5):
    """Median over rounds of (T(k2) - T(k1)) / (k2 - k1), in ns; each T over enough calls to
    take a millisecond or more."""
    t0 = time.perf_counter_ns()
    call(k2)
    reps = max(1, min(1000, int(1e6 / max(1, time.perf_counter_ns() - t0))))
    res = []
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        for _ in range(reps):
            call(k1)
        t1 = time.perf_counter_ns()
        for _ in range(reps):
            call(k2)
        t2 = time.perf_counter_ns()
        res.append(max(0.0, ((t2 - t1) - (t1 - t0)) / (reps * (k2 - k1))))
    return statistics.median(res)


def trips(n, cost_per_elem_ns, budget_ns=60e6):
    """k2 for an O(n)-per-step loop to take about budget_ns (at least 4)."""
    return max(4, min(20000, int(budget_ns / max(1.0, cost_per_elem_ns * n))))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tseq-path", default=str(HERE.parent.parent / "build" / "release" / "python"))
    p.add_argument("--out", default=str(HERE.parent.parent / "build" / "bench" / "torch"))
    p.add_argument("--max-n", type=int, default=10**6)
    args = p.parse_args()
    torch = load(args.tseq_path)
    torch.set_num_threads(1)
    f = define(torch)
    ops = torch.ops.tseq
    t = torch.ones(4)
    ns = [n for n in (10, 100, 1000, 10**4, 10**5, 10**6) if n <= args.max_n]
    rows = []  # (op, impl, n, ns per step)

    for n in ns:
        xs = [t] * n
        s = ops.sequence_construct(xs)
        mid = n // 2
        print(f"n={n}", file=sys.stderr, flush=True)
        k = trips(n, 8.0)
        rows.append(("erase+insert", "List[Tensor]", n,
                     per_iteration(lambda kk: f["list_step"](xs, t, kk, mid), k // 4, k)))
        rows.append(("erase+insert", "tseq (versions kept)", n,
                     per_iteration(lambda kk: f["tseq_step_kept"](s, t, kk, mid), 500, 4000)))
        rows.append(("erase+insert", "tseq (last use)", n,
                     per_iteration(lambda kk: f["tseq_step_last_use"](s, t, kk, mid), 500, 4000)))
        # Appends from n to about n + n/4: each measured near size n. The List keeps every
        # version (k copies of n handles): at most 2*10^7 handles (320 MB).
        kg = max(16, min(2000, n // 4, 2 * 10**7 // n))
        rows.append(("growth", "List[Tensor]", n,
                     per_iteration(lambda kk: f["list_growth"](xs, t, kk), kg // 4, kg)))
        rows.append(("growth", "tseq", n, per_iteration(lambda kk: f["tseq_growth"](s, t, kk), kg // 4, kg)))
        del xs, s

    small = [t] * 10
    s10 = ops.sequence_construct(small)
    rows.append(("index", "List[Tensor]", 10, per_iteration(lambda kk: f["list_index"](small, kk), 20000, 200000)))
    rows.append(("index", "tseq", 10, per_iteration(lambda kk: f["tseq_index"](s10, kk), 20000, 200000)))
    rows.append(("append", "List[Tensor]", 10,
                 per_iteration(lambda kk: f["list_append"](list(small), t, kk), 20000, 200000)))
    rows.append(("append", "tseq", 10, per_iteration(lambda kk: f["tseq_append"](s10, t, kk), 20000, 200000)))

    def get(op, impl, n):
        return next((v for o, i, m, v in rows if (o, i, m) == (op, impl, n)), None)

    lines = ["| operation | n | List[Tensor] | tseq (versions kept) | tseq (last use) | List / tseq kept |",
             "|---|---:|---:|---:|---:|---:|"]
    for n in ns:
        li, kept, last = (get("erase+insert", i, n) for i in ("List[Tensor]", "tseq (versions kept)", "tseq (last use)"))
        lines.append(f"| erase+insert (middle) | {n:,} | {fmt_time(li)} | {fmt_time(kept)} | {fmt_time(last)} | "
                     f"{fmt_ratio(li, kept)} |")
    for n in ns:
        li, ts = get("growth", "List[Tensor]", n), get("growth", "tseq", n)
        lines.append(f"| growth (append, every version kept) | {n:,} | {fmt_time(li)} | {fmt_time(ts)} | - | "
                     f"{fmt_ratio(li, ts)} |")
    for op in ("index", "append"):
        li, ts = get(op, "List[Tensor]", 10), get(op, "tseq", 10)
        lines.append(f"| {op} (dispatch overhead) | 10 | {fmt_time(li)} | {fmt_time(ts)} | - | {fmt_ratio(li, ts)} |")
    table = "\n".join(lines)

    e5, l5 = get("erase+insert", "tseq (versions kept)", 10**5), get("erase+insert", "List[Tensor]", 10**5)
    g5, gl5 = get("growth", "tseq", 10**5), get("growth", "List[Tensor]", 10**5)
    targets = [
        target_line("TorchScript: erase+insert at n=10^5 >= 100x faster per step than List[Tensor] (versions kept)",
                    None if not (e5 and l5) else l5 >= 100 * e5,
                    f"List/tseq {fmt_ratio(l5, e5)} ({fmt_time(l5)} vs {fmt_time(e5)})"),
        target_line("TorchScript: growth at n=10^5 >= 100x faster per append than List[Tensor] copy+append",
                    None if not (g5 and gl5) else gl5 >= 100 * g5,
                    f"List/tseq {fmt_ratio(gl5, g5)} ({fmt_time(gl5)} vs {fmt_time(g5)})"),
    ]
    ctx = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "torch_version": torch.__version__,
           "python_version": platform.python_version(), "machine": platform.machine(),
           "git": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                 cwd=HERE).stdout.strip()}
    how = (f"TorchScript (torch {ctx['torch_version']}, 1 intra-op thread), run {ctx['date']} at {ctx['git']}; "
           "time per step, loops inside torch.jit.script functions")
    md = f"## TorchScript: tseq's class against List[Tensor]\n\n{how}\n\n{table}\n\nTargets:\n\n" + "\n".join(targets)
    print(md)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "torch.md").write_text(md + "\n")
    (out / "torch.json").write_text(json.dumps({"context": ctx, "rows": [
        {"op": o, "impl": i, "n": n, "ns_per_step": v} for o, i, n, v in rows]}, indent=2) + "\n")
    plot(rows, ns, out)


def plot(rows, ns, out):
    if not shutil.which("gnuplot"):
        print("gnuplot not found: no torch.png", file=sys.stderr)
        return
    dat = out / "torch.dat"
    series = [("erase+insert", "List[Tensor]"), ("erase+insert", "tseq (versions kept)"),
              ("erase+insert", "tseq (last use)"), ("growth", "List[Tensor]"), ("growth", "tseq")]
    with dat.open("w") as fh:
        for op, impl in series:
            fh.write(f"# {op} {impl}\n")
            for n in ns:
                v = next((x for o, i, m, x in rows if (o, i, m) == (op, impl, n)), None)
                if v:
                    fh.write(f"{n} {v / 1000:.6f}\n")
            fh.write("\n\n")
    png = out / "torch.png"
    script = f"""set terminal png size 1000,420
set output '{png}'
set multiplot layout 1,2
set logscale xy
set xlabel 'n (tensors in the sequence)'
set ylabel 'us per step'
set key top left
set title 'functional erase+insert (middle)'
plot '{dat}' index 0 with linespoints title 'List[Tensor] copy+del+copy+insert', \\
     '' index 1 with linespoints title 'tseq, versions kept', '' index 2 with linespoints title 'tseq, last use'
set title 'growth: append, every version kept'
plot '{dat}' index 3 with linespoints title 'List[Tensor] copy+append', '' index 4 with linespoints title 'tseq'
unset multiplot
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print(f"wrote {png}", file=sys.stderr)


if __name__ == "__main__":
    main()
