#!/usr/bin/python3
"""tseq's Python package against a list and pyrsistent's PVector: time per operation.

usage: /usr/bin/python3 benchmarks/python/bench_sequence.py [--tseq-path DIR] [--json FILE]
         [--sizes N,N,...] [--quick] [--min-time S] [--rounds R] [--payload F] [--filter RE]
         [--no-tseq]

Run it with Debian's /usr/bin/python3 (python3-numpy, python3-pyrsistent). tseq is imported
from --tseq-path DIR (the directory that holds the package, e.g. build/release/python) or else
from PYTHONPATH. --no-tseq times only list and PVector (to try the script without the package).

Elements are n distinct float32 numpy arrays of --payload floats (default 16, the C++
benchmarks' payload:16): the rows of one (n, payload) block, made once per n and shared by the
three implementations (the tseq sequence adopts them, no copy). Operations, per call:

  PyErase/middle      s.erase(i)       l[:i] + l[i+1:]        v.delete(i)              (i = n//2)
  PyInsert/middle     s.insert(i, t)   l[:i] + [a] + l[i:]    w = v.tolist(); w.insert(i, a); pvector(w)
  PySlice/half        s[:n//2]         l[:n//2]               v[:n//2]
  PyConcat/halves     sa + sb          la + lb                va + vb    (the two halves, cut beforehand)
  PyIndex/random      s[j]             l[j]                   v[j]       (j from 65,536 random indices)
  PyConstruct/-       Sequence(ts)     list(arrays)           pvector(arrays)

PVector has no insert. Its functional inserts measured (n = 10 to 10^5): through a list
(above) was the fastest at every n, ahead of v[:i].append(a).extend(v[i:]),
v[:i] + pvector([a]) + v[i:], v[:i].extend([a] + v[i:].tolist()) and an evolver. t is a
tseq.Tensor of a; impl tseq_np is s.insert(i, a), the numpy array itself (converted per call).
Construct: tseq's ts is a list of tseq.Tensor; tseq_np is Sequence(arrays), which wraps each.

Timing: time.perf_counter_ns around a loop of k calls (the names bound as locals, as timeit
does; nothing subtracted, the loop's own cost is printed once as information); k is picked so
that one round takes --min-time / --rounds (0.2 s / 5 by default; --quick 0.05 s / 3), the
rounds (at least 3) interleave the implementations in a rotating order; the figure is the
median per call over the rounds (a call longer than a round still runs once per round). The garbage collector is off while timing (as in timeit).

Output: the table on stdout (progress on stderr), the targets (bench_targets.py), and --json
FILE (default build/bench/python.json) in Google Benchmark's format, named
Op/where/impl/payload:F/n:N, which benchmarks/report.py tabulates and plots.
"""
import argparse
import gc
import json
import math
import os
import re
import socket
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_targets  # noqa: E402

try:
    import numpy as np
    from pyrsistent import pvector
except ImportError as e:
    sys.exit(f"bench_sequence.py: {e}: run it with Debian's /usr/bin/python3 "
             "(apt-get install python3-numpy python3-pyrsistent)")

SIZES = [10, 100, 1000, 10**4, 10**5, 10**6]
QUICK_SIZES = [10, 1000, 10**5]
N_INDICES = 65536
IMPLS = ["tseq", "tseq_np", "list", "pvector"]

# (op, where, {impl: statement}); the statement runs once per call, names from namespace().
OPS = [
    ("PyErase", "middle", {"tseq": "s.erase(i)", "list": "l[:i] + l[i + 1:]", "pvector": "v.delete(i)"}),
    ("PyInsert", "middle", {"tseq": "s.insert(i, t)", "tseq_np": "s.insert(i, a)", "list": "l[:i] + [a] + l[i:]",
                            "pvector": "w = v.tolist(); w.insert(i, a); pvector(w)"}),
    ("PySlice", "half", {"tseq": "s[:h]", "list": "l[:h]", "pvector": "v[:h]"}),
    ("PyConcat", "halves", {"tseq": "sa + sb", "list": "la + lb", "pvector": "va + vb"}),
    ("PyIndex", "random", {"tseq": "s[_x]", "list": "l[_x]", "pvector": "v[_x]"}),
    ("PyConstruct", "-", {"tseq": "Sequence(ts)", "tseq_np": "Sequence(arrays)", "list": "list(arrays)",
                          "pvector": "pvector(arrays)"}),
]
LABELS = {"PyErase": "erase", "PyInsert": "insert", "PySlice": "slice", "PyConcat": "concat",
          "PyIndex": "index", "PyConstruct": "construct"}


fmt_time, fmt_ratio = bench_targets.fmt_time, bench_targets.fmt_ratio


def make_loop(stmt, ns, indices=None):
    """A function of k that runs stmt k times (k passes over indices, _x each index) and returns
    (wall ns, cpu ns) of the whole loop. The names of ns are its locals' defaults."""
    defaults = "".join(f", {k}=__ns[{k!r}]" for k in sorted(ns))
    if indices is None:
        body = f"    for _ in range(_k):\n        {stmt}\n"
    else:
        body = f"    for _ in range(_k):\n        for _x in _idx:\n            {stmt}\n"
    src = (f"def _loop(_k, _idx=__idx, _clock=__clock, _cpu=__cpu{defaults}):\n"
           f"    _c0 = _cpu()\n    _t0 = _clock()\n{body}"
           f"    _t1 = _clock()\n    return _t1 - _t0, _cpu() - _c0\n")
    glob = {"__ns": ns, "__idx": indices, "__clock": time.perf_counter_ns, "__cpu": time.process_time_ns}
    exec(compile(src, f"<{stmt}>", "exec"), glob)
    return glob["_loop"], (1 if indices is None else len(indices))


def measure(cases, min_time_s, rounds):
    """cases: [(impl, loop, calls per k)]. Returns {impl: row} with median ns per call."""
    per_round = min_time_s * 1e9 / rounds
    ks = {}
    for impl, loop, _ in cases:
        k = 1
        while True:
            t, _ = loop(k)
            t = max(t, 1)
            if t >= per_round:
                break
            if t >= per_round / 20:
                k = max(k + 1, math.ceil(k * per_round / t))
                break
            k *= 10
        ks[impl] = k
    samples = {impl: [] for impl, _, _ in cases}
    for r in range(rounds):
        shift = r % len(cases)
        for impl, loop, unit in cases[shift:] + cases[:shift]:
            t, c = loop(ks[impl])
            calls = ks[impl] * unit
            samples[impl].append((t / calls, c / calls))
    out = {}
    for impl, _, unit in cases:
        wall = [w for w, _ in samples[impl]]
        out[impl] = {"real_time": statistics.median(wall),
                     "cpu_time": statistics.median(c for _, c in samples[impl]),
                     "iterations": ks[impl] * unit, "rounds": rounds,
                     "min_real_time": min(wall), "max_real_time": max(wall)}
    return out


def data_for(n, payload, tseq):
    """The inputs of every operation at n, built once and shared by the implementations."""
    block = np.zeros((n, payload), np.float32)
    block[:, 0] = np.arange(n, dtype=np.float32)
    arrays = list(block)  # n row views: distinct numpy arrays, one allocation
    a = np.full(payload, -1.0, np.float32)
    h, i = n // 2, n // 2
    rng = np.random.default_rng(n)
    d = {"arrays": arrays, "l": arrays, "a": a, "h": h, "i": i,
         "la": arrays[:h], "lb": arrays[h:], "pvector": pvector,
         "indices": rng.integers(0, n, N_INDICES).tolist()}
    d["v"] = pvector(arrays)
    d["va"], d["vb"] = d["v"][:h], d["v"][h:]
    if tseq is not None:
        t0 = time.perf_counter_ns()
        s = tseq.Sequence(arrays)
        d["build_ns"] = time.perf_counter_ns() - t0
        d.update(s=s, t=tseq.Tensor(a), sa=s[:h], sb=s[h:], ts=[tseq.Tensor(x) for x in arrays],
                 Sequence=tseq.Sequence)
    return d


def sanity(d, n, tseq):
    """One check per operation that each implementation computes what is timed."""
    i, h, l, v = d["i"], d["h"], d["l"], d["v"]
    w = v.tolist()
    w.insert(i, d["a"])
    assert len(l[:i] + l[i + 1:]) == n - 1 and len(v.delete(i)) == n - 1
    assert len(l[:i] + [d["a"]] + l[i:]) == n + 1 and pvector(w)[i] is d["a"]
    assert len(v[:h]) == h and len(d["va"] + d["vb"]) == n and v[n - 1][0] == n - 1
    if tseq is None:
        return
    s = d["s"]
    assert len(s) == n and len(s.erase(i)) == n - 1
    assert i + 1 == n or np.asarray(s.erase(i)[i])[0] == i + 1
    ins = s.insert(i, d["t"])
    assert len(ins) == n + 1 and np.asarray(ins[i])[0] == -1.0
    assert len(s[:h]) == h and len(d["sa"] + d["sb"]) == n
    assert np.asarray(s[n - 1])[0] == n - 1 and len(d["Sequence"](d["ts"])) == n


def namespace(d, impl):
    keys = {"tseq": ["s", "i", "t", "h", "sa", "sb", "ts", "Sequence"],
            "tseq_np": ["s", "i", "a", "arrays", "Sequence"],
            "list": ["l", "i", "a", "h", "la", "lb", "arrays"],
            "pvector": ["v", "i", "a", "h", "va", "vb", "arrays", "pvector"]}[impl]
    return {k: d[k] for k in keys}


def loop_overhead(min_time_s, rounds):
    idx = list(range(N_INDICES))
    cases = [("range", *make_loop("pass", {})), ("indices", *make_loop("pass", {}, idx))]
    return {k: r["real_time"] for k, r in measure(cases, min_time_s, rounds).items()}


def cpu_mhz():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                return int(float(line.split(":", 1)[1]))
    except (OSError, ValueError):
        pass
    return 0


def package_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001 - any failure only leaves the version unknown
        return "?"


def import_tseq(args):
    if args.no_tseq:
        return None
    if args.tseq_path:
        path = Path(args.tseq_path).resolve()
        if not (path / "tseq").is_dir():
            sys.exit(f"bench_sequence.py: no tseq package in {path} (build the tseq_python target: "
                     f"cmake --build build/release --target tseq_python)")
        sys.path.insert(0, str(path))
    try:
        import tseq
    except ImportError as e:
        sys.exit(f"bench_sequence.py: cannot import tseq ({e}).\n"
                 "  Build the package (cmake --build build/release --target tseq_python), then pass\n"
                 "  --tseq-path build/release/python or set PYTHONPATH to that directory;\n"
                 "  --no-tseq times only list and PVector.")
    return tseq


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.split("\n")[2:]))
    p.add_argument("--tseq-path", metavar="DIR", help="directory holding the tseq package (else PYTHONPATH)")
    p.add_argument("--json", metavar="FILE", default=str(HERE.parent.parent / "build" / "bench" / "python.json"),
                   help="Google Benchmark JSON output (default: %(default)s)")
    p.add_argument("--sizes", help="comma-separated n (default 10,100,1000,10^4,10^5,10^6; 1e6 is accepted)")
    p.add_argument("--quick", action="store_true", help="n = 10, 1000, 10^5; 0.05 s and 3 rounds per measurement")
    p.add_argument("--min-time", type=float, help="seconds per measurement and implementation (default 0.2)")
    p.add_argument("--rounds", type=int, help="interleaved rounds, the median is reported (default 5, at least 3)")
    p.add_argument("--payload", type=int, default=16, help="floats per element (default 16)")
    p.add_argument("--filter", metavar="RE", help="only the benchmarks whose name matches RE (re.search)")
    p.add_argument("--no-tseq", action="store_true", help="time list and PVector only")
    args = p.parse_args()
    if args.sizes:
        try:
            sizes = [int(float(x)) for x in args.sizes.split(",") if x]
        except ValueError:
            p.error(f"--sizes: not a list of integers: {args.sizes!r}")
        if not sizes or min(sizes) < 2:
            p.error("--sizes: every n must be at least 2")
    else:
        sizes = QUICK_SIZES if args.quick else SIZES
    min_time = args.min_time if args.min_time is not None else (0.05 if args.quick else 0.2)
    rounds = max(3, args.rounds if args.rounds is not None else (3 if args.quick else 5))
    filt = re.compile(args.filter) if args.filter else None
    tseq = import_tseq(args)
    payload = args.payload

    def name(op, where, impl, n):
        return f"{op}/{where}/{impl}/payload:{payload}/n:{n}"

    results = {}  # (op, where, impl, n) -> row
    info = []
    print(f"== tseq Python benchmark: n in {', '.join(f'{n:,}' for n in sizes)}; {payload}-float float32 "
          f"elements; {min_time} s and {rounds} rounds per measurement", file=sys.stderr)
    if tseq is None:
        print("== --no-tseq: list and PVector only", file=sys.stderr)
    else:
        print(f"== tseq {getattr(tseq, '__version__', '?')} from {Path(tseq.__file__).parent}", file=sys.stderr)
    gc.collect()
    gc.disable()
    try:
        overhead = loop_overhead(min_time, rounds)
        for n in sizes:
            if filt and not any(filt.search(name(op, where, impl, n)) for op, where, stmts in OPS for impl in stmts):
                continue
            t0 = time.perf_counter()
            d = data_for(n, payload, tseq)
            sanity(d, n, tseq)
            print(f"-- n={n:,}: inputs built in {time.perf_counter() - t0:.2f} s"
                  + (f" (tseq.Sequence of the arrays: {fmt_time(d['build_ns'])})" if tseq else ""),
                  file=sys.stderr)
            for op, where, stmts in OPS:
                cases = []
                for impl in IMPLS:
                    if impl not in stmts or (tseq is None and impl.startswith("tseq")):
                        continue
                    if filt and not filt.search(name(op, where, impl, n)):
                        continue
                    idx = d["indices"] if op == "PyIndex" else None
                    cases.append((impl, *make_loop(stmts[impl], namespace(d, impl), idx)))
                if not cases:
                    continue
                gc.collect()
                for impl, row in measure(cases, min_time, rounds).items():
                    results[(op, where, impl, n)] = row
                print(f"   {op}/{where} n={n:,}: " + ", ".join(
                    f"{impl} {fmt_time(results[(op, where, impl, n)]['real_time'])}" for impl, _, _ in cases),
                    file=sys.stderr, flush=True)
            del d
            gc.collect()
    finally:
        gc.enable()

    def get(op, where, impl, n):
        r = results.get((op, where, impl, n))
        return r["real_time"] if r else None

    # (a) the table
    head = f"{'op':<22}{'n':>10}{'tseq':>12}{'list':>12}{'pvector':>12}{'list/tseq':>12}{'pvector/tseq':>14}"
    print(head)
    print("-" * len(head))
    for op, where, _ in OPS:
        ns_ = sorted({n for (o, w, _, n) in results if o == op and w == where})
        for n in ns_:
            t, li, pv = (get(op, where, impl, n) for impl in ("tseq", "list", "pvector"))
            label = LABELS[op] + (f" ({where})" if where != "-" else "")
            print(f"{label:<22}{n:>10,}{fmt_time(t):>12}{fmt_time(li):>12}"
                  f"{fmt_time(pv):>12}{fmt_ratio(li, t):>12}{fmt_ratio(pv, t):>14}")
    print()
    for n in sizes:
        a, b = get("PyInsert", "middle", "tseq_np", n), get("PyInsert", "middle", "tseq", n)
        if a and b:
            info.append(f"insert of a numpy array (converted per call) at n={n:,}: {fmt_time(a)}, "
                        f"a tseq.Tensor {fmt_time(b)}")
        a, b = get("PyConstruct", "-", "tseq_np", n), get("PyConstruct", "-", "tseq", n)
        if a and b:
            info.append(f"construct at n={n:,}: Sequence(numpy arrays) {fmt_time(a)} ({a / n:.0f} ns per element), "
                        f"Sequence(tseq.Tensor list) {fmt_time(b)} ({b / n:.0f} ns per element)")
    info.append(f"loop overhead, included in every figure: {overhead['range']:.1f} ns per iteration of "
                f"'for _ in range(k)', {overhead['indices']:.1f} ns of 'for j in indices' (PyIndex)")
    for line in info:
        print("info: " + line)
    print()
    # (c) the targets
    print("Targets:")
    for line in bench_targets.check(get):
        print(line)

    # (b) the JSON file
    ctx = {
        "date": datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds"),
        "host_name": socket.gethostname(),
        "executable": f"{sys.executable} {Path(__file__).resolve()}",
        "num_cpus": os.cpu_count(),
        "mhz_per_cpu": cpu_mhz(),
        "python_version": sys.version.split()[0],
        "numpy_version": np.__version__,
        "pyrsistent_version": package_version("pyrsistent"),
        "pvector_impl": type(pvector()).__module__,
        "tseq_version": getattr(tseq, "__version__", "?") if tseq else "not imported (--no-tseq)",
        "tseq_module": str(Path(tseq.__file__).parent) if tseq else "",
        "payload_floats": payload,
        "min_time_s": min_time,
        "rounds": rounds,
        "loop_overhead_ns": overhead["range"],
        "index_loop_overhead_ns": overhead["indices"],
        "timing": "perf_counter_ns around k calls, median per call over interleaved rounds, gc off",
        "pvector_insert": "w = v.tolist(); w.insert(i, a); pvector(w)",
    }
    benchmarks = []
    for (op, where, impl, n), row in sorted(results.items(), key=lambda kv: (OPS_ORDER[kv[0][0]], kv[0][3],
                                                                             IMPLS.index(kv[0][2]))):
        nm = name(op, where, impl, n)
        benchmarks.append({"name": nm, "run_name": nm, "run_type": "iteration", "repetitions": rounds,
                           "threads": 1, "iterations": row["iterations"], "real_time": row["real_time"],
                           "cpu_time": row["cpu_time"], "time_unit": "ns", "rounds": row["rounds"],
                           "min_real_time": row["min_real_time"], "max_real_time": row["max_real_time"]})
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"context": ctx, "benchmarks": benchmarks}, indent=2) + "\n")
    print(f"\nJSON: {out}")
    return 0


OPS_ORDER = {op: k for k, (op, _, _) in enumerate(OPS)}

if __name__ == "__main__":
    sys.exit(main())
