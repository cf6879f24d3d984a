#!/usr/bin/env python3
"""Writes docs/performance.md from a scripts/bench run (build/bench/summary.md), so that every
figure on that page comes from one named run. Also copies the plots to docs/images/.

usage: benchmarks/performance_page.py [build/bench]
"""
import re
import shutil
import sys
from pathlib import Path

TEMPLATE = """# Performance

All figures on this page come from one run of `scripts/bench --vs-ort` (the quick set),
named below. Speed is only measured here, in Google Benchmark programs with every baseline in
the same binary and the same run; no unit test times anything.

- **Run**: {date}, `scripts/bench --vs-ort` at the commit that last changed this page.
- **Machine**: the project's build machine, a virtual machine with 2 vCPUs (AMD EPYC,
  2.45 GHz), 24 GiB, Linux 6.18, Debian 12; g++ 12.2, CMake preset `release`
  (`-O3 -DNDEBUG`), Google Benchmark 1.7 (Debian's libbenchmark-dev),
  `--benchmark_min_time=0.05` (0.3 for the executor models); ONNX Runtime 1.30.0 (npm
  onnxruntime-node, CPU execution provider, one intra-op thread).
- **Reproduce**: `scripts/bench` (about 40 s: build plus the quick set) writes
  `build/bench/results.json` and `build/bench/executor.json` (raw Google Benchmark JSON),
  `build/bench/summary.md` (this page's target checks and tables), `build/bench/erase.png` and
  `build/bench/executor.png`. `--vs-ort` adds ONNX Runtime on the same model files
  (`build/bench/ort.json`; needs node and npm, about 20 s more). `--full` adds n = 10^7, payloads
  of 65,536 floats everywhere, longer runs, and the ONNX Runtime cases that take minutes.

## What is measured

Benchmark names are `Operation/where/implementation/payload:P/n:N`
(`benchmarks/bench_sequence.cpp`, `benchmarks/bench_executor.cpp`, `benchmarks/ort/run_ort.js`).
Elements are float tensors of shape [P]; a sequence of n holds handles to min(n, pool) distinct
tensors (pool = 4,096 for P = 16, 64 for P = 65,536), so that large n fit in memory.

| implementation | meaning |
|---|---|
| `tseq` | persistent: the input stays alive and unchanged (the ONNX case) |
| `tseq_move` | in place: the input is moved in and owned alone (an executor's last use); to keep n fixed each op is paired with an in-place push_back (erase) or pop_back (insert), and the pair is timed |
| `naive` | copy the `std::vector<Tensor>` of handles, then edit: what ONNX Runtime's TensorSeq does (about 13 ns per element per op) |
| `deep` | copy every payload too, then edit: a value-semantics runtime (skipped where one op would copy more than 2·10^7 floats) |
| `std_vector` | edit one mutable `std::vector<Tensor>` in place: the floor no persistent structure can beat, and not persistent |
| `ort` | ONNX Runtime running the same .onnx file as tseq's executor |

Positions change every iteration (front: the first 16; back: the last 16; middle: uniform in
[n/4, 3n/4)), so the tree shape does not repeat trivially. `allocs` in the JSON is heap
allocations per operation, counted by replacing `operator new` in the benchmark binary.
The `edited` cases (`Iterate`, `IterateHandles`, `Index`, `IntIndex`, `IntIterate` and the
`edited_*` counters of `Memory`) run on the sequence after 10^5 random *persistent* edits
(erase at a random position, then insert at another, each version dropped once the next
exists: a relaxed, scattered tree); their `std_vector` baseline holds the same elements in
the same order. `Index` reads one random element's handle (no tensor followed);
`IterateHandles` walks the whole sequence reading handles only, `Iterate` follows each handle
to its payload pointer (`tseq`: `for_each_chunk`, `tseq_iter`: the iterator). `PushBack`
appends n tensors in place to an empty sequence (`std::move(v).push_back(t)`; std::vector
without reserve); per element = time / n. The `Int*` rows are the container with `int`
elements (`rrb_vector<int>`) beside a `std::vector<int>` (`naive`: copy, then edit).
`History` is the history probe (`tests/support/history_probe.hpp`): 10^5 random slice,
splice and concatenation steps between eight live versions of 10^5..10^6 ints, reporting the
final tree's levels against the bound, elements per leaf and node bytes per element (its
property test replays the same generator against a std::vector model).
`Memory` counts the bytes allocated to build a 10^6-element sequence, and those allocated by
1,000 versions derived from it by SequenceErase, all kept alive, against 1,000 naive copies
(one measured, times 1,000); `edited_node_bytes_per_elem` and `edited_elements_per_leaf` are
`rrb_vector::storage()` of the edited sequence.

The executor models are self-contained, so that ONNX Runtime (which cannot feed or fetch
sequences from JavaScript) runs the very same files: `ExecutorLoopErase` splits an input
[10^5, 16] tensor into a 10^5-element sequence and erases k tensors in a Loop;
`ExecutorLoopInsert` builds a sequence by k SequenceInsert appends in a Loop, the pattern
ONNX Runtime users report as quadratic (microsoft/onnxruntime#20696, #23024). Here n is k.
`ExecutorLoopInsert/adopted` runs the same append loop on a 65,536-float tensor (256 KiB) that
tseq adopted from the caller's memory (`Tensor::adopt`): tseq appends k handles to it, while
ONNX Runtime's SequenceInsert copies the payload on every append.

`ExecutorLoad/forward|reverse` loads (`Model::from_proto`) a chain of n Identity nodes listed in
order or last node first; the loader used to order the reversed one in quadratic time.

The runtime boundary is measured per tensor (n = 1): `TensorImport/-/tseq` adopts a runtime's
buffer (owner: a `std::shared_ptr`), `DLPackImport/-/tseq` takes a producer's
`DLManagedTensor` and releases it, `DLPackExport/-/tseq` exports a tensor and calls the
consumer's deleter; each `deep` row is the copying alternative (`Tensor::from_values` of the
same payload). See docs/embedding.md.

![SequenceErase time against n, log-log](images/erase.png)

![Append loop: total time against k, log-log](images/executor.png)

## Results against the targets

{targets}

### Where the targets are missed or tight, and why

Machines vary: the same code measured 1.97 us per persistent erase at 10^6 on the Intel Xeon
machine of an earlier run and 1.05 to 1.50 us on this AMD EPYC one, run to run; compare the
ratios within one run, not absolute times across runs.

- **Never slower than naive at every n: about parity at n = 10.** With ten tensors both a tseq
  erase and the naive copy-then-erase make one allocation and about 20 reference-count
  updates, so their ratio sits near 1.0 and run-to-run noise decides its sign (this run's worst
  case is listed above). From n = 100 on tseq is 2x faster and the gap grows linearly.
- **Persistent erase at 10^6 (target about 1.5 us).** A persistent erase in a 10^6-element
  tree copies four nodes (root, two inner nodes, one leaf) of about 32 entries each, and each
  copied entry is a reference-count increment, undone when the version dies: about 250 atomic
  read-modify-write operations. Profile (`perf record ./build/release/benchmarks/tseq_bench
  --benchmark_filter='SequenceErase/middle/tseq/payload:16/n:1000000$' --benchmark_min_time=1`):
  inner-node copies, reference releases and node destruction take nearly all of it; allocation
  about 1%. The container takes the branching as a template parameter (`rrb_vector<T, Bits>`)
  for users who prefer fewer copies per update to shallower lookups.
- **Iteration after 10^5 random edits (target 1.5x std::vector).** After random inserts and
  erases the tree has more leaves than a fresh one (elements per leaf are in the target line
  above; 32 when fresh) at scattered addresses, so the walk is bound by memory latency rather
  than bandwidth; `for_each_chunk` prefetches the next four leaves. It passes here, but with
  less margin than a fresh walk.
- **Adopting at 16 floats costs about what copying costs.** Both make one allocation (the
  adopted tensor's header holds the owner; the copied tensor's block holds the 64 bytes of
  payload), so adoption wins by the copy it avoids: nothing at 16 floats, 200x at 65,536.

## Tables (time per operation)

{tables}
"""


def main():
    bench = Path(sys.argv[1] if len(sys.argv) > 1 else "build/bench")
    summary = (bench / "summary.md").read_text()
    date = re.search(r"Run: (\S+)", summary).group(1)
    targets = summary[summary.index("## Targets") + len("## Targets"):summary.index("## Tables")].strip()
    tables = summary[summary.index("## Tables (time per operation)") + len("## Tables (time per operation)"):].strip()
    root = Path(__file__).resolve().parent.parent
    (root / "docs" / "performance.md").write_text(TEMPLATE.format(date=date, targets=targets, tables=tables))
    for png in ("erase.png", "executor.png"):
        if (bench / png).exists():
            shutil.copy(bench / png, root / "docs" / "images" / png)
    print("docs/performance.md written from the run of", date)
    return 0


if __name__ == "__main__":
    sys.exit(main())
