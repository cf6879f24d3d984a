#!/usr/bin/env python3
"""Writes README.md's figures from docs/performance.md, so that the README quotes the run the
performance page holds and nothing else. The README block between the lines FIGURES_BEGIN and
FIGURES_END (HTML comments) is generated; the rest of the README is hand-written.

usage: benchmarks/readme_figures.py          rewrite the block in README.md
       benchmarks/readme_figures.py --check  exit 1 (naming the difference) if README.md's block
                                             is not what docs/performance.md gives, or if the
                                             rest of README.md quotes a time or ratio the page
                                             does not hold
scripts/bench regenerates docs/performance.md (benchmarks/performance_page.py), then this;
scripts/check-docs (a CI stage) runs --check.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- FIGURES_BEGIN: written by benchmarks/readme_figures.py from docs/performance.md -->"
END = "<!-- FIGURES_END -->"


class Missing(Exception):
    pass


def table(page, title):
    """The rows of the table under '### title' as dicts keyed by the header's columns."""
    m = re.search(r"^### " + re.escape(title) + r"\n\n(\|.*\|\n)(\|[-| ]+\|\n)((?:\|.*\|\n)+)", page, re.M)
    if not m:
        raise Missing(f"docs/performance.md has no table '### {title}'")
    head = [c.strip() for c in m.group(1).strip().strip("|").split("|")]
    rows = []
    for line in m.group(3).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append(dict(zip(head, cells)))
    return rows


def cell(rows, n, column, title):
    for r in rows:
        if r.get("n") == n:
            if column not in r:
                raise Missing(f"table '{title}' has no column '{column}'")
            return r[column]
    raise Missing(f"table '{title}' has no row n = {n}")


def per_element(t, n):
    """'7.44 ms' at n = 1,000,000 -> 'about 7 ns per element'."""
    value, unit = t.split()
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]
    return round(float(value) * scale / n)


def block(page):
    title = "SequenceErase (middle, payload 16 floats)"
    erase = table(page, title)
    ns = ["10", "1,000", "1,000,000"]
    rows = [("copy the handle vector, then erase", "naive"), ("**tseq**, input kept alive", "tseq"),
            ("**tseq**, input moved in (last use; paired with a push_back)", "tseq_move")]
    out = ["| SequenceErase (middle), n tensors | 10 | 1,000 | 10^6 |", "|---|---|---|---|"]
    for label, col in rows:
        out.append("| " + label + " | " + " | ".join(cell(erase, n, col, title) for n in ns) + " |")
    naive_big = cell(erase, "1,000,000", "naive", title)
    loop_t = "ExecutorLoopInsert (payload 16 floats)"
    loop = table(page, loop_t)
    adopted_t = "ExecutorLoopInsert (adopted, payload 65536 floats)"
    adopted = table(page, adopted_t)
    back_t = "SequenceErase (back, payload 16 floats)"
    back = table(page, back_t)
    text = [
        "",
        f"A persistent SequenceErase at 10^6 takes {cell(erase, '1,000,000', 'tseq', title)} in tseq; copying "
        f"the handle vector takes {naive_big} (about {per_element(naive_big, 10**6)} ns per element).",
        f"Through tseq's ONNX executor, a Loop that builds a sequence by 10,000 SequenceInsert appends",
        f"runs in {cell(loop, '10,000', 'tseq', loop_t)}; ONNX Runtime takes {cell(loop, '10,000', 'ort', loop_t)} "
        "on the same model file, and its time grows with",
        "the square of the number of appends (tseq's linearly). Fed a runtime's own 256 KiB tensor, a",
        f"Loop of 1,000 such appends takes {cell(adopted, '1,000', 'tseq', adopted_t)} in tseq, which adopts "
        "the tensor without copying it,",
        f"and {cell(adopted, '1,000', 'ort', adopted_t)} in ONNX Runtime, which copies it on every insert. "
        f"At n = 10 the run is near parity",
        f"rather than a lead (an erase in the middle of 10 small tensors: {cell(erase, '10', 'tseq', title)} against "
        f"the naive copy's {cell(erase, '10', 'naive', title)};",
        f"near the back: {cell(back, '10', 'tseq', back_t)} against {cell(back, '10', 'naive', back_t)}); "
        "docs/performance.md says why.",
    ]
    return "\n".join([BEGIN] + out + text + [END])


def main():
    check = "--check" in sys.argv[1:]
    page = (ROOT / "docs" / "performance.md").read_text()
    readme_path = ROOT / "README.md"
    readme = readme_path.read_text()
    try:
        new = block(page)
    except Missing as e:
        print(f"readme_figures: {e}", file=sys.stderr)
        return 1
    i, j = readme.find(BEGIN), readme.find(END)
    if i < 0 or j < i:
        print("readme_figures: README.md has no FIGURES_BEGIN ... FIGURES_END block", file=sys.stderr)
        return 1
    old = readme[i:j + len(END)]
    if check:
        # Figures the hand-written rest of the README quotes must be on the performance page.
        rest = readme[:i] + readme[j + len(END):]
        stray = []
        for m in re.finditer(r"(?<![\w.])(\d[\d,.]*) ?(ns|us|ms|x)\b", rest):
            fig = m.group(1) + "x" if m.group(2) == "x" else m.group(1) + " " + m.group(2)
            if fig not in page:
                stray.append(fig)
        if stray:
            print("readme_figures: README.md quotes figures docs/performance.md does not hold: " + ", ".join(stray),
                  file=sys.stderr)
            return 1
        if old != new:
            print("readme_figures: README.md's figures differ from docs/performance.md's run; "
                  "run benchmarks/readme_figures.py", file=sys.stderr)
            for a, b in zip(old.splitlines(), new.splitlines()):
                if a != b:
                    print(f"  README:    {a}\n  generated: {b}", file=sys.stderr)
                    break
            return 1
        return 0
    readme_path.write_text(readme[:i] + new + readme[j + len(END):])
    return 0


if __name__ == "__main__":
    sys.exit(main())
