"""tseq.torch: the TorchScript class torch.classes.tseq.TensorSequence and torch.ops.tseq.*,
eager and scripted, against a Python list model; saving and loading; zero copy; lifetimes;
errors; threads (docs/torch.md)."""

import gc
import io
import threading
from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="python3-torch is not installed")
import tseq  # noqa: E402

if not list(Path(tseq.__file__).parent.glob("_torch*.so")):  # built without libtorch-dev
    pytest.skip("tseq.torch is not built (no tseq/_torch*.so: libtorch-dev missing?)", allow_module_level=True)
import tseq.torch as tt  # noqa: E402  (built: an import failure is a failure, not a skip)

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ops = torch.ops.tseq
Seq = torch.classes.tseq.TensorSequence


def t(v: float) -> torch.Tensor:
    return torch.full((2,), float(v))


def values(s) -> List[float]:
    return [x[0].item() for x in s.tensors()]


# ---- the operators, scripted: an interpreter of op scripts (code, argument) ----
# code 0: insert t (arg None -> append), 1: insert at arg, 2: erase (arg None), 3: erase at arg,
# 4: at arg (recorded)
@torch.jit.script
def run_script(s: Seq, codes: List[int], args: List[int], tensors: List[torch.Tensor]) -> Tuple[Seq, List[torch.Tensor]]:
    seen: List[torch.Tensor] = []
    for k in range(len(codes)):
        c = codes[k]
        if c == 0:
            s = torch.ops.tseq.sequence_insert(s, tensors[k])
        elif c == 1:
            s = torch.ops.tseq.sequence_insert(s, tensors[k], args[k])
        elif c == 2:
            s = torch.ops.tseq.sequence_erase(s)
        elif c == 3:
            s = torch.ops.tseq.sequence_erase(s, args[k])
        else:
            seen.append(torch.ops.tseq.sequence_at(s, args[k]))
    return s, seen


def run_eager(s, codes, args, tensors):
    seen = []
    for c, a, x in zip(codes, args, tensors):
        if c == 0:
            s = ops.sequence_insert(s, x)
        elif c == 1:
            s = ops.sequence_insert(s, x, a)
        elif c == 2:
            s = ops.sequence_erase(s)
        elif c == 3:
            s = ops.sequence_erase(s, a)
        else:
            seen.append(ops.sequence_at(s, a))
    return s, seen


def run_model(model: list, codes, args, tensors):
    """ONNX semantics on a Python list: insert at p in [-n, n] (negative: p + n), erase/at in [-n, n-1]."""
    model = list(model)
    seen = []
    for c, a, x in zip(codes, args, tensors):
        n = len(model)
        if c == 0:
            model.append(x)
        elif c == 1:
            model.insert(a + n if a < 0 else a, x)
        elif c == 2:
            model.pop()
        elif c == 3:
            model.pop(a)
        else:
            seen.append(model[a])
    return model, seen


def op_scripts(n):
    """(n, codes, args): a script valid for a sequence of n tensors."""

    @st.composite
    def build(draw):
        size = n
        codes, args = [], []
        for _ in range(draw(st.integers(0, 40))):
            c = draw(st.sampled_from([0, 1, 2, 3, 4] if size else [0, 1]))
            a = 0
            if c == 1:
                a = draw(st.integers(-size, size))
            elif c in (3, 4):
                a = draw(st.integers(-size, size - 1))
            size += {0: 1, 1: 1, 2: -1, 3: -1}.get(c, 0)
            codes.append(c)
            args.append(a)
        return n, codes, args

    return build()


@settings(max_examples=150, deadline=None, database=None)  # no example database in the tree
@given(script=st.integers(0, 6).flatmap(op_scripts))
def test_scripted_and_eager_match_a_list_model(script):
    start, codes, args = script
    start_tensors = [t(100 + i) for i in range(start)]
    tensors = [t(i) for i in range(len(codes))]
    s0 = ops.sequence_construct(start_tensors) if start else ops.sequence_empty()
    model, model_seen = run_model(start_tensors, codes, args, tensors)
    for s, seen in (run_eager(s0, codes, args, tensors), run_script(s0, codes, args, tensors)):
        assert len(s) == len(model)
        assert all(a is b for a, b in zip(s.tensors(), model)), "the tensors put in come back, not copies"
        assert len(seen) == len(model_seen) and all(a is b for a, b in zip(seen, model_seen))
    assert len(s0) == start  # the input never changes
    assert values(s0) == [100.0 + i for i in range(start)]


# ---- each operator, eager and scripted, on ONNX's edge cases ----
@torch.jit.script
def all_ops(x: torch.Tensor, split: torch.Tensor) -> Tuple[int, torch.Tensor, torch.Tensor, int, int]:
    s = torch.ops.tseq.sequence_construct([x, x + 1])
    s = torch.ops.tseq.sequence_insert(s, x + 2, -1)  # before the last: [x, x+2, x+1]
    e = torch.ops.tseq.sequence_erase(s, 0)
    at = torch.ops.tseq.sequence_at(e, -1)
    parts = torch.ops.tseq.split_to_sequence(x, split, 1, True)
    joined = torch.ops.tseq.concat_from_sequence(parts, 1, False)
    empty = torch.ops.tseq.sequence_empty(torch.int64)
    return (torch.ops.tseq.sequence_length(s), at, joined, torch.ops.tseq.sequence_length(parts), len(empty))


def test_every_operator_scripted():
    x = torch.arange(12.0).reshape(3, 4)
    n, at, joined, pieces, empty = all_ops(x, torch.tensor([1, 3]))
    assert (n, pieces, empty) == (3, 2, 0)
    assert torch.equal(at, x + 1)
    assert torch.equal(joined, x)


def test_every_operator_eager_with_onnx_defaults():
    x = torch.arange(6.0).reshape(2, 3)
    s = ops.sequence_empty()
    assert s.dtype_name() == "float" and ops.sequence_length(s) == 0
    assert ops.sequence_empty(torch.int32).dtype_name() == "int32"
    s = ops.sequence_insert(ops.sequence_insert(s, x), x * 2, 0)  # None appends
    assert ops.sequence_at(s, 1) is x and ops.sequence_at(s, 0)[1, 0].item() == 6.0
    assert len(ops.sequence_erase(s)) == 1 and ops.sequence_at(ops.sequence_erase(s), 0) is not x
    assert ops.sequence_at(ops.sequence_erase(s), 0)[0, 1].item() == 2.0
    pieces = ops.split_to_sequence(x)  # split None: pieces of 1 along axis 0, keepdims
    assert [p.shape for p in pieces.tensors()] == [torch.Size([1, 3])] * 2
    dropped = ops.split_to_sequence(x, None, 1, False)
    assert [p.shape for p in dropped.tensors()] == [torch.Size([2])] * 3
    assert torch.equal(ops.concat_from_sequence(dropped, 1, True), x)
    assert torch.equal(ops.concat_from_sequence(pieces, 0), x)
    assert len(s) == 2 and s[-1] is x and s.__getitem__(0)[1, 2].item() == 10.0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda s: ops.sequence_at(s, 2), "SequenceAt: position 2 is out of range [-2, 1]"),
        (lambda s: ops.sequence_erase(s, -3), "SequenceErase: position -3 is out of range [-2, 1]"),
        (lambda s: ops.sequence_insert(s, t(0), 3), "SequenceInsert: position 3 is out of range [-2, 2]"),
        (lambda s: ops.sequence_erase(ops.sequence_empty()), "out of range"),
        (lambda s: ops.sequence_insert(s, torch.ones(2, dtype=torch.int64)), "int64"),
        (lambda s: ops.sequence_insert(s, torch.ones(2, 3).t()), "not C-contiguous"),
        (lambda s: ops.sequence_insert(s, torch.ones(2, dtype=torch.bfloat16)), "no ONNX counterpart"),
        (lambda s: ops.sequence_construct([]), "SequenceConstruct"),
        (lambda s: ops.concat_from_sequence(ops.sequence_empty(), 0), "ConcatFromSequence"),
        (lambda s: ops.concat_from_sequence(s, 5), "axis"),
        (lambda s: ops.split_to_sequence(torch.ones(4), torch.tensor([1, 1])), "SplitToSequence"),
        (lambda s: ops.split_to_sequence(torch.ones(4), None, 3), "axis"),
        (lambda s: ops.sequence_empty(torch.bfloat16), "SequenceEmpty: dtype BFloat16"),
        (lambda s: ops.sequence_insert(s, torch.tensor([2], dtype=torch.uint8).view(torch.bool)), "byte 2"),
    ],
)
def test_errors_are_runtime_errors_with_tseqs_message(call, message):
    s = ops.sequence_construct([t(1), t(2)])
    with pytest.raises(RuntimeError, match=message.replace("[", r"\[").replace("]", r"\]")):
        call(s)
    assert values(s) == [1.0, 2.0]  # inputs untouched


@torch.jit.script
def scripted_at(s: Seq, i: int) -> torch.Tensor:
    return torch.ops.tseq.sequence_at(s, i)


def test_scripted_errors_carry_tseqs_message():
    s = ops.sequence_construct([t(1)])
    with pytest.raises(RuntimeError, match=r"SequenceAt: position 7 is out of range \[-1, 0\]"):
        scripted_at(s, 7)


# ---- saving and loading ----
class Holder(torch.nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = s

    def forward(self, x: torch.Tensor) -> int:
        self.s = torch.ops.tseq.sequence_insert(self.s, x)
        return torch.ops.tseq.sequence_length(self.s)


def save_load(module):
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(module), buf)
    buf.seek(0)
    return torch.jit.load(buf)


@pytest.mark.parametrize(
    "arrays",
    [
        [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((0, 3), np.float32)],
        [np.array([1, 2**32 - 1], np.uint32)],
        [np.array([2**64 - 1], np.uint64), np.zeros((2, 2), np.uint64)],
        [np.array([65535], np.uint16)],
        [np.array(["a", "", "ünï"], dtype=object).reshape(3, 1), np.array("x", dtype=object)],
        [np.array([True, False])],
        [np.array([1 + 2j], np.complex128)],
    ],
    ids=["float", "uint32", "uint64", "uint16", "string", "bool", "complex128"],
)
def test_jit_save_and_load_round_trip(arrays):
    seq = tseq.Sequence(arrays)
    loaded = save_load(Holder(tt.to_script(seq)))
    back = tt.from_script(loaded.s)
    assert back.dtype == seq.dtype and len(back) == len(seq)
    for a, b in zip(arrays, back):
        got = np.asarray(b) if seq.dtype != "string" else np.asarray(b.tolist(), dtype=object)
        assert got.shape == a.shape and got.dtype == a.dtype and (got == a).all()


def test_saved_module_keeps_running():
    loaded = save_load(Holder(ops.sequence_construct([t(1)])))
    assert loaded(t(2)) == 2 and loaded(t(3)) == 3
    assert values(loaded.s) == [1.0, 2.0, 3.0]
    empty = save_load(Holder(ops.sequence_empty(torch.int64)))
    assert len(empty.s) == 0 and empty.s.dtype_name() == "int64"


@pytest.mark.parametrize(
    "state, message",
    [
        ((2, 1, [], [], []), "version 2 is not known"),
        ((1, 99, [], [], []), "99"),
        ((1, 1, [torch.ones(2, dtype=torch.int64)], [], []), "int64"),
        ((1, 12, [torch.ones(2)], [], []), "uint32 tensor is stored as int32"),
        ((1, 8, [], [[2]], [["a"]]), "TensorSequence.__setstate__"),
        ((1, 8, [], [[-1]], [[]]), "TensorSequence.__setstate__"),
        ((1, 8, [], [[2**62, 2**62]], [[]]), "TensorSequence.__setstate__"),
        ((1, 8, [torch.ones(1)], [], []), "string sequence"),
        ((1, 1, [], [[1]], [["a"]]), "no string elements"),
        ((1, 1, [torch.ones(2, 2).t()], [], []), "not C-contiguous"),
    ],
)
def test_hostile_saved_state_is_an_error(state, message):
    s = ops.sequence_empty()
    with pytest.raises(RuntimeError, match=message):
        s._get_method("__setstate__")(state)  # what torch.jit.load calls with a file's state


# ---- zero copy and lifetimes ----
def test_zero_copy_both_ways_and_to_from_script_share_the_tree():
    x = torch.arange(1000.0)
    s = ops.sequence_insert(ops.sequence_empty(), x)
    assert ops.sequence_at(s, 0) is x  # the same torch.Tensor object back
    seq = tt.from_script(s)
    assert seq[0].data_ptr == x.data_ptr()
    a = np.arange(10, dtype=np.float32)
    script = tt.to_script(tseq.Sequence([a]))
    out = ops.sequence_at(script, 0)
    assert out.data_ptr() == a.ctypes.data  # numpy memory, through tseq, into torch: no copy
    assert tt.from_script(script)[0].data_ptr == a.ctypes.data
    with pytest.raises(TypeError, match="expected a tseq.Sequence, got list"):
        tt.to_script([a])
    with pytest.raises(TypeError, match="expected a torch.classes.tseq.TensorSequence, got Tensor"):
        tt.from_script(x)
    assert isinstance(tt.TensorSequence(), torch.ScriptObject)


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_a_large_tensor_is_freed_after_the_last_sequence_dies():
    gc.collect()
    before = rss_bytes()
    big = torch.ones(64 * 2**20 // 4)  # 64 MiB
    s = ops.sequence_insert(ops.sequence_empty(), big)
    keep = ops.sequence_insert(s, t(0))
    del big
    gc.collect()
    assert rss_bytes() - before > 60 * 2**20  # still held by the sequences
    del s
    gc.collect()
    assert rss_bytes() - before > 60 * 2**20  # `keep` shares it
    del keep
    gc.collect()
    assert rss_bytes() - before < 16 * 2**20  # returned once the last holder went


def test_resize_of_a_held_tensor_is_refused():
    x = torch.ones(4)
    s = ops.sequence_insert(ops.sequence_empty(), x)
    with pytest.raises(RuntimeError, match="not resizable"):
        x.resize_(1 << 20)
    assert values(s) == [1.0]


# ---- threads ----
@torch.jit.script
def churn(s: Seq, tensors: List[torch.Tensor], rounds: int) -> int:
    bad = 0
    n = torch.ops.tseq.sequence_length(s)
    for r in range(rounds):
        p = (r * 7) % n
        e = torch.ops.tseq.sequence_erase(s, p)
        back = torch.ops.tseq.sequence_insert(e, tensors[p], p)
        for j in range(n):
            if not torch.equal(torch.ops.tseq.sequence_at(back, j), tensors[j]):
                bad += 1
    return bad


def test_a_scripted_function_from_several_threads_on_shared_sequences():
    tensors = [t(i) for i in range(32)]
    shared = ops.sequence_construct(tensors)
    results: List[Optional[int]] = [None] * 4

    def work(k):
        results[k] = churn(shared, tensors, 200)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == [0, 0, 0, 0]
    assert len(shared) == 32 and all(a is b for a, b in zip(shared.tensors(), tensors))
