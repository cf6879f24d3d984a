#!/usr/bin/env python3
"""Summarise benchmark JSON files: ratio tables, the targets, and log-log plots.

usage: report.py OUTDIR RESULTS.json [MORE.json ...]
Writes OUTDIR/summary.md (the tables), OUTDIR/erase.png and OUTDIR/executor.png (via gnuplot,
if present). Extra files (tseq_bench_executor's, run_ort.js's) are merged into the same tables.
The Python benchmark's file (benchmarks/python/bench_sequence.py; its ops start with Py) gets
a section of its own at the end of summary.md and OUTDIR/python.png; given alone, only that.
"""
import json
import math
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "python"))
import bench_targets  # noqa: E402  (the Python benchmark's targets)
from bench_targets import fmt_ratio, fmt_time, target_line  # noqa: E402  (one format for both reports)

# tseq_np, list and pvector: the Python benchmark's (tseq's package given numpy arrays, a list,
# pyrsistent's PVector).
IMPLS = ["tseq", "tseq_move", "naive", "deep", "std_vector", "tseq_iter", "ort", "tseq_np", "list", "pvector"]
PY_OPS = ["PyErase", "PyInsert", "PySlice", "PyConcat", "PyIndex", "PyConstruct"]


def load(path, rows=None):
    data = json.loads(Path(path).read_text())
    rows = {} if rows is None else rows
    # With --benchmark_repetitions, the median of the repetitions stands for the benchmark
    # (the aggregates follow their repetitions in the file, so they replace them).
    for b in data["benchmarks"]:
        name = b["name"]
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") != "median":
                continue
            name = b.get("run_name", name)
        parts = name.split("/")
        if len(parts) < 5:
            continue
        op, where, impl = parts[0], parts[1], parts[2]
        payload = int(parts[3].split(":")[1])
        n = int(parts[4].split(":")[1])
        rows[(op, where, impl, payload, n)] = b
    return data.get("context", {}), rows


def ns(b):
    t = b["real_time"]
    unit = b.get("time_unit", "ns")
    return t * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


def tables(rows):
    groups = defaultdict(dict)
    for (op, where, impl, payload, n), b in rows.items():
        groups[(op, where, payload)].setdefault(n, {})[impl] = ns(b)
    out = []
    # The C++ groups by name; the Python ones (a run of their own) in PY_OPS order.
    for (op, where, payload) in sorted(groups, key=lambda g: (PY_OPS.index(g[0]) if g[0] in PY_OPS else -1, g)):
        by_n = groups[(op, where, payload)]
        impls = [i for i in IMPLS if any(i in v for v in by_n.values())]
        elems = "int elements" if payload == 0 else f"payload {payload} floats"
        title = f"{op} ({where}, {elems})" if where != "-" else f"{op} ({elems})"
        head = ["n"] + impls
        ratios = []
        if "naive" in impls and "tseq" in impls:
            ratios.append(("naive/tseq", "naive", "tseq"))
        if "deep" in impls and "tseq" in impls:
            ratios.append(("deep/tseq", "deep", "tseq"))
        if "tseq_move" in impls and "tseq" in impls:
            ratios.append(("tseq_move/tseq", "tseq_move", "tseq"))
        if "std_vector" in impls and "tseq" in impls:
            ratios.append(("tseq/std_vector", "tseq", "std_vector"))
        if "ort" in impls and "tseq" in impls:
            ratios.append(("ort/tseq", "ort", "tseq"))
        for other in ("list", "pvector", "tseq_np"):
            if other in impls and "tseq" in impls:
                ratios.append((f"{other}/tseq", other, "tseq"))
        head += [r[0] for r in ratios]
        lines = [f"### {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for n in sorted(by_n):
            v = by_n[n]
            cells = [f"{n:,}"] + [fmt_time(v.get(i)) for i in impls]
            cells += [fmt_ratio(v.get(a), v.get(b)) for _, a, b in ratios]
            lines.append("| " + " | ".join(cells) + " |")
        out.append("\n".join(lines))
    return "\n\n".join(out)


def is_python(key):
    return key[0].startswith("Py")


def python_section(rows, context):
    """summary.md's section on the Python benchmark: how it ran, its targets, its tables."""
    def get(op, where, impl, n):
        b = rows.get((op, where, impl, context.get("payload_floats", 16), n))
        return ns(b) if b else None

    how = (f"Python {context.get('python_version', '?')}, numpy {context.get('numpy_version', '?')}, "
           f"pyrsistent {context.get('pyrsistent_version', '?')} (PVector from {context.get('pvector_impl', '?')}), "
           f"tseq {context.get('tseq_version', '?')} from {context.get('tseq_module', '?')}; run "
           f"{context.get('date', '?')}. Elements: distinct float32 numpy arrays of "
           f"{context.get('payload_floats', '?')} floats. Each figure: the median per call of "
           f"{context.get('rounds', '?')} interleaved rounds ({context.get('min_time_s', '?')} s per "
           f"implementation in all), the loop included "
           f"({context.get('loop_overhead_ns', 0):.0f} ns per iteration, "
           f"{context.get('index_loop_overhead_ns', 0):.0f} ns in PyIndex's). PVector has no insert: "
           f"`{context.get('pvector_insert', '?')}`. tseq_np: tseq given the numpy array itself "
           f"(insert) or a list of numpy arrays (construct) instead of tseq.Tensor objects.")
    return (f"## Python: tseq against list and pyrsistent's PVector\n\n{how}\n\n"
            + "\n".join(bench_targets.check(get)) + "\n\n" + tables(rows))


def targets(rows):
    """The targets of the benchmark issue, each with its measured value."""
    def t(op, where, impl, n, payload=16):
        b = rows.get((op, where, impl, payload, n))
        return ns(b) if b else None

    res = []

    def check(name, ok, detail):
        res.append(target_line(name, ok, detail))

    e6, n6 = t("SequenceErase", "middle", "tseq", 10**6), t("SequenceErase", "middle", "naive", 10**6)
    check("persistent erase at n=10^6 >= 5,000x faster than naive", None if not (e6 and n6) else n6 / e6 >= 5000,
          f"{fmt_ratio(n6, e6)} ({fmt_time(e6)} vs {fmt_time(n6)})")
    check("persistent erase at n=10^6 about 1.5 us or less", None if e6 is None else e6 <= 1650, fmt_time(e6))
    e3 = t("SequenceErase", "middle", "tseq", 10**3)
    check("t(10^6)/t(10^3) below 3", None if not (e6 and e3) else e6 / e3 < 3, fmt_ratio(e6, e3))
    worst = None
    for (op, where, impl, payload, n), b in rows.items():
        if op in ("SequenceErase", "SequenceInsert") and impl == "tseq":
            nb = rows.get((op, where, "naive", payload, n))
            if nb:
                r = ns(b) / ns(nb)
                if worst is None or r > worst[0]:
                    worst = (r, f"{op}/{where} payload {payload} n={n}")
    check("never slower than naive persistent (erase/insert, every n)", None if worst is None else worst[0] <= 1.0,
          f"worst tseq/naive = {worst[0]:.2f} at {worst[1]}" if worst else "")
    m6 = t("SequenceErase", "middle", "tseq_move", 10**6)
    check("in-place erase at most half the persistent cost (n=10^6, erase+push_back pair)",
          None if not (m6 and e6) else m6 <= e6 / 2, f"{fmt_time(m6)} vs {fmt_time(e6)}")
    a6, v6 = t("SequenceAt", "random", "tseq", 10**6), t("SequenceAt", "random", "std_vector", 10**6)
    check("SequenceAt random at n=10^6 within 10x of std::vector", None if not (a6 and v6) else a6 <= 10 * v6,
          fmt_ratio(a6, v6))
    for state in ("fresh", "edited"):
        i6, s6 = t("Iterate", state, "tseq", 10**6), t("Iterate", state, "std_vector", 10**6)
        b = rows.get(("Iterate", state, "tseq", 16, 10**6))
        per_leaf = f", {b['elements_per_leaf']:.1f} elements per leaf" if b and "elements_per_leaf" in b else ""
        check(f"iteration ({state}) within 1.5x of std::vector per element (n=10^6, for_each_chunk)",
              None if not (i6 and s6) else i6 <= 1.5 * s6, fmt_ratio(i6, s6) + per_leaf)
    mem = rows.get(("Memory", "-", "tseq", 16, 10**6))
    if mem:
        per = mem.get("node_bytes_per_elem")
        vec = mem.get("vector_bytes_per_elem", 8)
        check("node storage at most 1.2x a std::vector of handles", per <= 1.2 * vec,
              f"{per:.2f} bytes/element vs {vec:.0f} ({per / vec:.3f}x)")
        pct = mem.get("versions_over_naive_pct")
        check("1,000 erase-derived versions of 10^6 under 1% of 1,000 naive copies", pct < 1,
              f"{mem.get('versions_bytes', 0) / 1e6:.2f} MB vs {mem.get('naive_versions_bytes', 0) / 1e9:.1f} GB "
              f"({pct:.3f}%)")
    else:
        check("memory", None, "")
    container_targets(t, rows, check, res)
    e0, ek = t("ExecutorLoopErase", "-", "tseq", 0), t("ExecutorLoopErase", "-", "tseq", 50000)
    if e0 is not None and ek is not None:
        per = (ek - e0) / 50000
        m5 = t("SequenceErase", "middle", "tseq_move", 10**5)
        res.append(f"- [info] executor: Loop of 50,000 SequenceErase on a 10^5 sequence, {fmt_time(per)} per erase "
                   f"(operator level, in place, n=10^5: {fmt_time(m5)} per erase+push_back)")
    i3, i5 = t("ExecutorLoopInsert", "-", "tseq", 1000), t("ExecutorLoopInsert", "-", "tseq", 100000)
    check("executor: append loop time linear in k (t(10^5)/t(10^3) within 50x..200x)",
          None if not (i3 and i5) else 50 <= i5 / i3 <= 200, fmt_ratio(i5, i3))
    o3, o4 = t("ExecutorLoopInsert", "-", "ort", 1000), t("ExecutorLoopInsert", "-", "ort", 10000)
    if o3 and o4:
        i4 = t("ExecutorLoopInsert", "-", "tseq", 10000)
        res.append(f"- [info] ONNX Runtime append loop: t(10^4)/t(10^3) = {fmt_ratio(o4, o3)} (tseq: {fmt_ratio(i4, i3)}); "
                   f"at k=10^4 ONNX Runtime takes {fmt_time(o4)}, tseq {fmt_time(i4)} ({fmt_ratio(o4, i4)})")
    oe0, oe3 = t("ExecutorLoopErase", "-", "ort", 0), t("ExecutorLoopErase", "-", "ort", 1000)
    if oe0 and oe3 and e0 and ek:
        ort_per, tseq_per = (oe3 - oe0) / 1000, (ek - e0) / 50000
        res.append(f"- [info] Loop of SequenceErase on a 10^5 sequence: ONNX Runtime {fmt_time(ort_per)} per erase "
                   f"(k = 1,000), tseq {fmt_time(tseq_per)} (k = 50,000): {fmt_ratio(ort_per, tseq_per)}")
    for payload in (16, 65536):
        ad, cp = t("TensorImport", "-", "tseq", 1, payload), t("TensorImport", "-", "deep", 1, payload)
        if ad and cp:
            res.append(f"- [info] adopting a runtime tensor of {payload} floats: {fmt_time(ad)} "
                       f"(Tensor::from_values copy: {fmt_time(cp)}, {fmt_ratio(cp, ad)})")
        di, de = t("DLPackImport", "-", "tseq", 1, payload), t("DLPackExport", "-", "tseq", 1, payload)
        if di and de:
            res.append(f"- [info] DLPack at {payload} floats: import+release {fmt_time(di)}, export+delete "
                       f"{fmt_time(de)} (a copy instead: {fmt_time(cp)})")
    big_cp = t("TensorImport", "-", "deep", 1, 65536)
    big_ad = t("TensorImport", "-", "tseq", 1, 65536)
    check("adopting is O(1): a 65,536-float tensor adopts in under 1/10 of the copy",
          None if not (big_cp and big_ad) else big_ad * 10 <= big_cp, fmt_ratio(big_cp, big_ad))
    for k in (100, 1000):
        ta = t("ExecutorLoopInsert", "adopted", "tseq", k, 65536)
        oa = t("ExecutorLoopInsert", "adopted", "ort", k, 65536)
        if ta and oa:
            res.append(f"- [info] Loop of {k} SequenceInsert of one 65,536-float tensor: tseq (adopted, no copy) "
                       f"{fmt_time(ta)}, ONNX Runtime (copies on insert) {fmt_time(oa)}: {fmt_ratio(oa, ta)}")
        elif ta:
            res.append(f"- [info] Loop of {k} SequenceInsert of one adopted 65,536-float tensor: {fmt_time(ta)}")
    lf, lr = t("ExecutorLoad", "forward", "tseq", 32000), t("ExecutorLoad", "reverse", "tseq", 32000)
    check("a 32,000-node chain listed last node first loads in well under a second (from_proto)",
          None if lr is None else lr < 0.5e9, f"{fmt_time(lr)} (in file order: {fmt_time(lf)})")
    return "\n".join(res)


def container_targets(t, rows, check, res):
    """Issue 13: the container against its own persistent erase and the baselines, one run."""
    M = 10**6
    e6 = t("SequenceErase", "middle", "tseq", M)

    def vs_erase(label, value, bound):
        check(f"{label} <= {bound}x persistent erase (n=10^6)",
              None if not (value and e6) else value <= bound * e6,
              f"{fmt_time(value)} = {fmt_ratio(value, e6)} of {fmt_time(e6)}")

    vs_erase("take(random k)", t("Take", "random", "tseq", M), 0.3)
    vs_erase("drop(random k)", t("Drop", "random", "tseq", M), 0.4)
    vs_erase("concatenation of two halves", t("Concat", "halves", "tseq", M), 1.0)
    vs_erase("insert", t("SequenceInsert", "middle", "tseq", M), 1.5)
    vs_erase("in-place erase+push_back", t("SequenceErase", "middle", "tseq_move", M), 0.3)
    b = rows.get(("SequenceErase", "middle", "tseq", 16, M))
    allocs = b.get("allocs") if b else None
    check("persistent erase at n=10^6 allocates <= 5 nodes", None if allocs is None else allocs <= 5.0 + 1e-9,
          f"{allocs:.2f} allocations per erase" if allocs is not None else "")
    for state, bound in (("fresh", 4), ("edited", 20)):
        a, v = t("Index", state, "tseq", M), t("Index", state, "std_vector", M)
        check(f"random index ({state}) <= {bound}x std::vector (n=10^6, handle read)",
              None if not (a and v) else a <= bound * v, f"{fmt_ratio(a, v)} ({fmt_time(a)} vs {fmt_time(v)})")
    a, v = t("IterateHandles", "edited", "tseq", M), t("IterateHandles", "edited", "std_vector", M)
    check("traversal after 10^5 edits, handles only, <= 2x std::vector (n=10^6)",
          None if not (a and v) else a <= 2 * v, fmt_ratio(a, v))
    mem = rows.get(("Memory", "-", "tseq", 16, M))
    if mem and "edited_node_bytes_per_elem" in mem:
        per, vec = mem["edited_node_bytes_per_elem"], mem.get("vector_bytes_per_elem", 8)
        check("after 10^5 persistent edits: node storage <= 1.2x a std::vector of handles", per <= 1.2 * vec,
              f"{per:.2f} bytes/element vs {vec:.0f} ({per / vec:.3f}x)")
        fill = mem["edited_elements_per_leaf"]
        check("after 10^5 persistent edits: >= 28 elements per leaf on average", fill >= 28, f"{fill:.2f}")
        lv, lb = mem["edited_levels"], mem["edited_levels_bound"]
        check("after 10^5 persistent edits: levels within the bound", lv <= lb, f"{lv:.0f} levels, bound {lb:.0f}")
    else:
        check("storage after edits", None, "")
    worst = None
    for op, where in (("SequenceErase", "middle"), ("SequenceInsert", "middle"), ("Take", "random"),
                      ("Drop", "random"), ("Concat", "halves")):
        for n in (10, 100):
            a, v = t(op, where, "tseq", n), t(op, where, "naive", n)
            if a and v and (worst is None or a / v > worst[0]):
                worst = (a / v, f"{op} n={n}")
    check("erase/insert/take/drop/concat at n=10 and 100 never slower than the naive copy",
          None if worst is None else worst[0] <= 1.0, f"worst tseq/naive = {worst[0]:.2f} at {worst[1]}" if worst else "")
    worst = None
    for (op, where, impl, payload, n), b in rows.items():
        if op == "SequenceConstruct" and impl == "tseq":
            v = t(op, where, "naive", n)
            if v and (worst is None or ns(b) / v > worst[0]):
                worst = (ns(b) / v, n)
    check("SequenceConstruct at least as fast as the naive copy at every n",
          None if worst is None else worst[0] <= 1.0,
          f"worst naive/tseq = {1 / worst[0]:.2f}x at n={worst[1]:,}" if worst else "")
    p4, p7 = t("PushBack", "-", "tseq", 10**4), t("PushBack", "-", "tseq", 10**7)
    if p4 and p7:
        r = (p7 / 10**7) / (p4 / 10**4)
        v4, v7 = t("PushBack", "-", "std_vector", 10**4), t("PushBack", "-", "std_vector", 10**7)
        vr = f"; std::vector {(v7 / 10**7) / (v4 / 10**4):.2f}" if v4 and v7 else ""
        check("push_back amortised O(1): per-element t(10^7)/t(10^4) <= 1.3", r <= 1.3,
              f"{r:.2f} ({p4 / 10**4:.1f} ns vs {p7 / 10**7:.1f} ns per element{vr})")
    else:
        check("push_back amortised O(1)", None, "")
    h = rows.get(("History", "-", "tseq", 0, M))
    if h:
        check("history probe (10^5 random slice/splice/concat steps on 10^5..10^6 ints) never exceeds the levels bound",
              h.get("levels_over_bound", 1) == 0,
              f"final {h['size']:,.0f} elements: {h['levels']:.0f} levels (bound {h['levels_bound']:.0f}, worst seen "
              f"{h['worst_levels']:.0f}), {h['elements_per_leaf']:.1f} per leaf, {h['bytes_per_element']:.2f} "
              f"node bytes per int")
    ints = []
    for op, where in (("IntTake", "random"), ("IntDrop", "random"), ("IntConcat", "halves"), ("IntInsert", "middle")):
        a, e = rows.get((op, where, "tseq", 0, M)), rows.get(("IntErase", "middle", "tseq", 0, M))
        if a and e:
            ints.append(f"{op[3:].lower()} {fmt_ratio(ns(a), ns(e))}")
    if ints:
        res.append("- [info] int elements, n=10^6, against int persistent erase: " + ", ".join(ints))
    for op in ("IntIndex", "IntIterate"):
        for state in ("fresh", "edited"):
            a, v = rows.get((op, state, "tseq", 0, M)), rows.get((op, state, "std_vector", 0, M))
            if a and v:
                res.append(f"- [info] {op[3:].lower()} ({state}) of ints, n=10^6: {fmt_ratio(ns(a), ns(v))} std::vector")


def escape(label):
    """A label for gnuplot's enhanced text mode, where _ would start a subscript."""
    return label.replace("_", "\\_")


def log_log_plot(png, size, font):
    """The start of every gnuplot script here: a PNG, both axes logarithmic, powers of ten."""
    return f"""
set terminal pngcairo size {size} font 'sans,{font}'
set output '{png}'
set logscale xy
set format x '10^{{%L}}'
set format y '10^{{%L}}'"""


def plot(rows, outdir):
    gnuplot = shutil.which("gnuplot")
    series = ["tseq", "tseq_move", "naive", "deep", "std_vector"]
    labels = {"tseq": "tseq persistent", "tseq_move": "tseq in place (+push_back)",
              "naive": "naive: copy handles, erase", "deep": "deep copy, erase",
              "std_vector": "std::vector erase (mutable floor)"}
    ns_all = sorted({k[4] for k in rows if k[0] == "SequenceErase" and k[1] == "middle" and k[3] == 16})
    dat = outdir / "erase.dat"
    with dat.open("w") as f:
        f.write("# n " + " ".join(series) + "\n")
        for n in ns_all:
            vals = []
            for s in series:
                b = rows.get(("SequenceErase", "middle", s, 16, n))
                vals.append(f"{ns(b):.3f}" if b else "NaN")
            f.write(f"{n} " + " ".join(vals) + "\n")
    if not gnuplot:
        print("gnuplot not found: no plot drawn (data in", dat, ")")
        return None
    png = outdir / "erase.png"
    plots = ", ".join(
        f"'{dat}' using 1:{i + 2} with linespoints lw 2 pt 7 title '{escape(labels[s])}'"
        for i, s in enumerate(series))
    script = log_log_plot(png, "900,600", 11) + f"""
set xlabel 'sequence length n (tensors)'
set ylabel 'time per SequenceErase (ns)'
set title 'SequenceErase at the middle: tseq vs copying the sequence'
set key top left
set grid
plot {plots}
"""
    subprocess.run([gnuplot], input=script, text=True, check=True)
    return png


def plot_executor(rows, outdir):
    gnuplot = shutil.which("gnuplot")
    ks = sorted({k[4] for k in rows if k[0] == "ExecutorLoopInsert"})
    if not gnuplot or not ks:
        return None
    dat = outdir / "executor.dat"
    with dat.open("w") as f:
        f.write("# k tseq ort\n")
        for k in ks:
            vals = []
            for impl in ("tseq", "ort"):
                b = rows.get(("ExecutorLoopInsert", "-", impl, 16, k))
                vals.append(f"{ns(b):.3f}" if b else "NaN")
            f.write(f"{k} " + " ".join(vals) + "\n")
    png = outdir / "executor.png"
    script = log_log_plot(png, "900,600", 11) + f"""
set xrange [500:200000]
set xlabel 'k: SequenceInsert appends in one Loop'
set ylabel 'time of the whole model run (ns)'
set title 'Building a sequence by k appends inside an ONNX Loop'
set key top left
set grid
plot '{dat}' using 1:2 with linespoints lw 2 pt 7 title 'tseq executor', \\
     '{dat}' using 1:3 with linespoints lw 2 pt 7 title 'ONNX Runtime (onnxruntime-node, CPU)'
"""
    subprocess.run([gnuplot], input=script, text=True, check=True)
    return png


def plot_python(rows, outdir):
    """OUTDIR/python.png: one log-log panel per Python operation, tseq against list and PVector."""
    gnuplot = shutil.which("gnuplot")
    ops = [op for op in PY_OPS if any(k[0] == op for k in rows)]
    if not gnuplot or not ops:
        return None
    titles = {"PyErase": "erase(n/2)", "PyInsert": "insert(n/2, t)", "PySlice": "slice [:n/2]",
              "PyConcat": "concatenation of the two halves", "PyIndex": "index s[j], random j",
              "PyConstruct": "construct from n arrays (tseq: tseq.Tensor list)"}
    impls = [("tseq", "tseq", "#1f77b4"), ("list", "list (functional: copies)", "#d62728"),
             ("pvector", "pyrsistent PVector", "#2ca02c")]
    payload = next(k[3] for k in rows if is_python(k))
    dat = outdir / "python.dat"
    with dat.open("w") as f:
        for op in ops:  # one gnuplot data block (index) per operation
            where = next(k[1] for k in rows if k[0] == op)
            f.write(f"# {op}/{where}: n " + " ".join(i for i, _, _ in impls) + "\n")
            for n in sorted({k[4] for k in rows if k[0] == op}):
                vals = []
                for impl, _, _ in impls:
                    b = rows.get((op, where, impl, payload, n))
                    vals.append(f"{ns(b):.3f}" if b else "NaN")
                f.write(f"{n} " + " ".join(vals) + "\n")
            f.write("\n\n")
    png = outdir / "python.png"
    cols = min(3, len(ops))
    lines = []
    for k, op in enumerate(ops):
        lines.append(f"set title '{escape(titles[op])}'")
        lines.append("set key top left box opaque" if k == 0 else "unset key")
        lines.append("plot " + ", ".join(
            f"'{dat}' index {k} using 1:{j + 2} with linespoints lw 2 pt 7 lc rgb '{color}' title '{escape(label)}'"
            for j, (_, label, color) in enumerate(impls)))
    script = log_log_plot(png, f"{500 * cols},{450 * math.ceil(len(ops) / cols)}", 10) + f"""
set xlabel 'sequence length n'
set ylabel 'time per call (ns)'
set grid
set multiplot layout {math.ceil(len(ops) / cols)},{cols} title 'tseq from Python against list and PVector ({payload}-float float32 arrays)'
""" + "\n".join(lines) + "\nunset multiplot\n"
    subprocess.run([gnuplot], input=script, text=True, check=True)
    return png


def cpu_model():
    """The processor this report runs on (the run's machine: scripts/bench reports right after it)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown processor"


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    outdir = Path(sys.argv[1])
    context, all_rows = load(sys.argv[2])
    py_context = context
    for extra in sys.argv[3:]:
        ctx, _ = load(extra, all_rows)
        if "python_version" in ctx:
            py_context = ctx
    rows = {k: b for k, b in all_rows.items() if not is_python(k)}
    py_rows = {k: b for k, b in all_rows.items() if is_python(k)}
    outdir.mkdir(parents=True, exist_ok=True)
    host = context.get("host_name", "?")
    cpus = context.get("num_cpus", "?")
    mhz = context.get("mhz_per_cpu", "?")
    header = f"Run: {context.get('date', '?')} on {host} ({cpu_model()}, {cpus} CPUs at {mhz} MHz)"
    summary = f"{header}\n"
    if rows or not py_rows:
        summary += f"\n## Targets\n\n{targets(rows)}\n\n## Tables (time per operation)\n\n{tables(rows)}\n"
    if py_rows:
        summary += f"\n{python_section(py_rows, py_context)}\n"
    (outdir / "summary.md").write_text(summary)
    print(summary)
    pngs = (plot(rows, outdir), plot_executor(rows, outdir)) if rows else ()
    for png in pngs + (plot_python(py_rows, outdir),):
        if png:
            print(f"plot: {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
