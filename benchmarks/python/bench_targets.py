"""The Python benchmark's targets, in one place for bench_sequence.py (which prints them after
its table) and benchmarks/report.py (summary.md). Standard library only: report.py runs with
whichever python3 is on PATH.
"""

M = 10**6


def fmt_time(v):
    if v is None:
        return "-"
    if v >= 1e6:
        return f"{v / 1e6:.2f} ms"
    if v >= 1e3:
        return f"{v / 1e3:.2f} us"
    return f"{v:.0f} ns"


def fmt_ratio(a, b):
    if a is None or b is None or b == 0:
        return "-"
    r = a / b
    return f"{r:,.0f}x" if r >= 100 else f"{r:.2f}x"


def target_line(name, ok, detail):
    """'- [PASS] name: detail', '- [MISS] ...', or '- [ ? ] name: not measured in this run' (ok None)."""
    if ok is None:
        return f"- [ ? ] {name}: not measured in this run"
    return f"- [{'PASS' if ok else 'MISS'}] {name}: {detail}"


def check(get):
    """get(op, where, impl, n) -> median ns per call, or None when not measured.

    Returns one line per target, '- [PASS] name: figures', '- [MISS] ...' or '- [ ? ] name: not
    measured in this run' (the format of report.py's C++ targets).
    """
    res = []

    def line(name, ok, detail):
        res.append(target_line(name, ok, detail))

    e, li, pv = (get("PyErase", "middle", impl, M) for impl in ("tseq", "list", "pvector"))
    line("Python: s.erase(n//2) at n=10^6 >= 1,000x faster than list (l[:i] + l[i+1:]) and PVector.delete(i)",
         None if not (e and li and pv) else li >= 1000 * e and pv >= 1000 * e,
         f"list/tseq {fmt_ratio(li, e)}, pvector/tseq {fmt_ratio(pv, e)} "
         f"(tseq {fmt_time(e)}, list {fmt_time(li)}, PVector {fmt_time(pv)})")
    e, pv = get("PyErase", "middle", "tseq", 10), get("PyErase", "middle", "pvector", 10)
    line("Python: s.erase(5) at n=10 at most 3x PVector.delete(5)",
         None if not (e and pv) else e <= 3 * pv,
         f"tseq/pvector {fmt_ratio(e, pv)} ({fmt_time(e)} vs {fmt_time(pv)})")
    ix, li = get("PyIndex", "random", "tseq", 10), get("PyIndex", "random", "list", 10)
    line("Python: s[i] at n=10 at most 10x list[i] (random i, loop overhead included in both)",
         None if not (ix and li) else ix <= 10 * li,
         f"tseq/list {fmt_ratio(ix, li)} ({fmt_time(ix)} vs {fmt_time(li)})")
    return res
