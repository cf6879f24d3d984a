"""tseq.ops: the ONNX sequence operators with ONNX's semantics and defaults, over tables of
ONNX's edge cases (positions as ints and as int32/int64 tensors of rank 0 or shape [1],
insert at n / -n, erase and at on empty sequences, SplitToSequence's scalar, 1-D and absent
splits with keepdims, ConcatFromSequence's concat and stack), checked against Python lists and
numpy (np.split / np.concatenate / np.stack), and the error types and messages."""

import numpy as np
import pytest

import tseq
from conftest import DTYPE_IDS, DTYPES, assert_sequence_is, assert_tensor_equals, ptr, sample
from tseq import ops


def positions(p):
    """The spellings of position p: an int and one-element int32/int64 tensor-likes."""
    return [p, np.array(p, np.int64), np.array(p, np.int32), np.array([p], np.int64), np.array([p], np.int32),
            tseq.Tensor(np.array(p, np.int64))]


POSITION_IDS = ["int", "i64-0d", "i32-0d", "i64-[1]", "i32-[1]", "tseq-0d"]


def three():
    return [np.full((2,), k, np.float32) for k in range(3)]


# --- SequenceEmpty, SequenceConstruct, SequenceLength -----------------------------------------

def test_sequence_empty_default_and_dtypes():
    e = ops.sequence_empty()
    assert len(e) == 0 and e.dtype == np.float32 and e.onnx_dtype == "float"
    for name, np_dtype, _ in DTYPES:
        s = ops.sequence_empty(name)
        assert len(s) == 0 and s.dtype == np_dtype and s.onnx_dtype == name
    assert ops.sequence_empty(np.int64).dtype == np.int64
    assert ops.sequence_empty(dtype="double").dtype == np.float64


@pytest.mark.parametrize("bad", ["bfloat16", "no-such-type", "datetime64"])
def test_sequence_empty_bad_dtype(bad):
    with pytest.raises(TypeError):
        ops.sequence_empty(bad)


def test_sequence_construct():
    xs = three()
    s = ops.sequence_construct(xs)
    assert_sequence_is(s, xs, dtype=np.float32)
    i = ops.sequence_construct([np.arange(2), np.arange(5).reshape(5, 1)])
    assert i.dtype == np.int64 and [t.shape for t in i] == [(2,), (5, 1)]
    with pytest.raises(tseq.Error):
        ops.sequence_construct([])
    with pytest.raises(tseq.TypeError):
        ops.sequence_construct([np.zeros(1, np.float32), np.zeros(1, np.float64)])


@pytest.mark.parametrize("n", [0, 1, 3, 100])
def test_sequence_length(n):
    s = tseq.Sequence([np.zeros(1, np.float32)] * n)
    t = ops.sequence_length(s)
    assert isinstance(t, tseq.Tensor)
    assert t.shape == () and t.dtype == np.int64 and t.onnx_dtype == "int64"
    assert np.asarray(t).item() == n


# --- SequenceInsert ---------------------------------------------------------------------------

@pytest.mark.parametrize("p", list(range(-3, 4)))
@pytest.mark.parametrize("spelling", range(6), ids=POSITION_IDS)
def test_insert_positions(p, spelling):
    xs = three()
    s = tseq.Sequence(xs)
    x = np.full((3,), 9.0, np.float32)
    model = list(xs)
    model.insert(p + 3 if p < 0 else p, x)
    out = ops.sequence_insert(s, x, positions(p)[spelling])
    assert_sequence_is(out, model)
    assert_sequence_is(s, xs)  # input unchanged


def test_insert_at_n_appends_and_at_minus_n_prepends():
    xs = three()
    s = tseq.Sequence(xs)
    x = np.zeros(1, np.float32)
    assert_sequence_is(ops.sequence_insert(s, x, 3), xs + [x])
    assert_sequence_is(ops.sequence_insert(s, x, -3), [x] + xs)
    assert_sequence_is(ops.sequence_insert(s, x), xs + [x])
    assert_sequence_is(ops.sequence_insert(s, x, None), xs + [x])


@pytest.mark.parametrize("p", [4, -4, 2**40])
def test_insert_out_of_range(p):
    s = tseq.Sequence(three())
    for pos in (p, np.array(p, np.int64)):
        with pytest.raises(tseq.IndexError) as info:
            ops.sequence_insert(s, np.zeros(1, np.float32), pos)
        message = str(info.value)
        assert "SequenceInsert" in message
        assert str(p) in message
        assert "[-3, 3]" in message


def test_insert_into_empty():
    e = ops.sequence_empty()
    x = np.zeros(2, np.float32)
    assert_sequence_is(ops.sequence_insert(e, x), [x])
    assert_sequence_is(ops.sequence_insert(e, x, 0), [x])
    assert_sequence_is(ops.sequence_insert(e, x, np.array([0])), [x])
    for p in (1, -1):
        with pytest.raises(tseq.IndexError):
            ops.sequence_insert(e, x, p)


def test_insert_type_checked_also_when_empty():
    with pytest.raises(tseq.TypeError) as info:
        ops.sequence_insert(ops.sequence_empty("float"), np.zeros(1, np.int64))
    assert "int64" in str(info.value) and "float" in str(info.value)
    with pytest.raises(tseq.TypeError):
        ops.sequence_insert(tseq.Sequence(three()), np.zeros(1, np.float64), 0)


def test_insert_shares_the_payload():
    s = tseq.Sequence(three())
    x = np.arange(4, dtype=np.float32)
    out = ops.sequence_insert(s, x, 1)
    assert out[1].data_ptr == ptr(x)


@pytest.mark.parametrize("op", ["insert", "erase", "at"])
def test_bad_position_tensors(op):
    s = tseq.Sequence(three())
    x = np.zeros(1, np.float32)

    def call(pos):
        if op == "insert":
            return ops.sequence_insert(s, x, pos)
        if op == "erase":
            return ops.sequence_erase(s, pos)
        return ops.sequence_at(s, pos)

    for bad in (np.array(1.0, np.float32), np.array([1.0]), np.array(True), np.array(1, np.uint8)):
        with pytest.raises(tseq.TypeError):
            call(bad)
    with pytest.raises(tseq.ShapeError):
        call(np.array([0, 1], np.int64))  # two elements
    with pytest.raises(tseq.ShapeError):
        call(np.zeros((0,), np.int64))   # no element
    assert len(s) == 3  # unchanged


# --- SequenceErase ----------------------------------------------------------------------------

@pytest.mark.parametrize("p", list(range(-3, 3)))
@pytest.mark.parametrize("spelling", range(6), ids=POSITION_IDS)
def test_erase_positions(p, spelling):
    xs = three()
    s = tseq.Sequence(xs)
    model = list(xs)
    del model[p]
    assert_sequence_is(ops.sequence_erase(s, positions(p)[spelling]), model)
    assert_sequence_is(s, xs)


def test_erase_default_is_last():
    xs = three()
    s = tseq.Sequence(xs)
    assert_sequence_is(ops.sequence_erase(s), xs[:2])
    assert_sequence_is(ops.sequence_erase(s, None), xs[:2])
    one = tseq.Sequence(xs[:1])
    emptied = ops.sequence_erase(one)
    assert len(emptied) == 0 and emptied.dtype == np.float32
    ie = ops.sequence_erase(tseq.Sequence([np.arange(2)]))
    assert len(ie) == 0 and ie.dtype == np.int64  # the element type survives


@pytest.mark.parametrize("p", [3, -4, 5])
def test_erase_out_of_range_message(p):
    s = tseq.Sequence(three())
    with pytest.raises(tseq.IndexError) as info:
        ops.sequence_erase(s, p)
    message = str(info.value)
    assert "SequenceErase" in message
    assert str(p) in message
    assert "[-3, 2]" in message


@pytest.mark.parametrize("pos", [None, 0, -1, np.array(0)], ids=["default", "0", "-1", "tensor-0"])
def test_erase_on_empty(pos):
    with pytest.raises(tseq.IndexError) as info:
        ops.sequence_erase(ops.sequence_empty(), pos)
    assert "empty" in str(info.value)


# --- SequenceAt -------------------------------------------------------------------------------

@pytest.mark.parametrize("p", list(range(-3, 3)))
@pytest.mark.parametrize("spelling", range(6), ids=POSITION_IDS)
def test_at_positions(p, spelling):
    xs = three()
    t = ops.sequence_at(tseq.Sequence(xs), positions(p)[spelling])
    assert isinstance(t, tseq.Tensor)
    assert t.data_ptr == ptr(xs[p])  # shares the payload


@pytest.mark.parametrize("p", [3, -4])
def test_at_out_of_range(p):
    with pytest.raises(tseq.IndexError) as info:
        ops.sequence_at(tseq.Sequence(three()), p)
    assert "SequenceAt" in str(info.value) and str(p) in str(info.value)
    assert "[-3, 2]" in str(info.value)


@pytest.mark.parametrize("p", [0, -1, 1])
def test_at_on_empty(p):
    with pytest.raises(tseq.IndexError):
        ops.sequence_at(ops.sequence_empty("int64"), p)


# --- SplitToSequence --------------------------------------------------------------------------

DATA = np.arange(18, dtype=np.float32).reshape(3, 6)


def split_reference(a, split, axis, keepdims):
    """numpy's answer for SplitToSequence."""
    length = a.shape[axis]
    if split is None:
        pieces = np.split(a, length, axis=axis) if length else []
        return pieces if keepdims else [np.squeeze(p, axis=axis) for p in pieces]
    split = np.asarray(split)
    if split.ndim == 0:
        if length == 0:
            return []  # ceil(0 / s) pieces
        s = int(split)
        cuts = list(range(s, length, s))
    else:
        cuts = list(np.cumsum(split)[:-1])
    return np.split(a, cuts, axis=axis)


SPLIT_CASES = [
    # (split, axis, keepdims)
    (None, 0, 1), (None, 1, 1), (None, -1, 1), (None, -2, 1),
    (None, 0, 0), (None, 1, 0), (None, -1, 0),
    (None, 1, 5),                      # any keepdims other than 0 keeps the axis
    (np.array(2), 1, 1),               # scalar: pieces of 2
    (np.array(4), 1, 1),               # scalar with a remainder: [4, 2]
    (np.array(5), 0, 1),               # scalar larger than the axis: one piece
    (np.array(1), 0, 1),
    (np.array(6), 1, 1),
    (np.array(4, np.int32), -1, 1),
    (np.array(2), 1, 0),               # keepdims ignored with a split
    (np.array([1, 2]), 0, 1),
    (np.array([1, 2]), 0, 0),          # keepdims ignored with a split
    (np.array([0, 3]), 0, 1),          # zero-length piece
    (np.array([2, 0, 4], np.int32), 1, 1),
    (np.array([6]), 1, 1),
    (np.array([1, 1, 1, 1, 1, 1]), -1, 1),
    (np.array(2), -2, 1),
]


@pytest.mark.parametrize("split,axis,keepdims", SPLIT_CASES)
def test_split_to_sequence_matches_numpy(split, axis, keepdims):
    expected = split_reference(DATA, split, axis, keepdims)
    for spelling in (DATA, tseq.Tensor(DATA)):
        s = ops.split_to_sequence(spelling, split, axis=axis, keepdims=keepdims)
        assert isinstance(s, tseq.Sequence)
        assert s.dtype == np.float32
        assert len(s) == len(expected)
        for t, e in zip(s, expected):
            assert_tensor_equals(t, e)


def test_split_defaults():
    s = ops.split_to_sequence(DATA)
    assert len(s) == 3 and all(t.shape == (1, 6) for t in s)
    np.testing.assert_array_equal(np.asarray(s[2]), DATA[2:3])


def test_split_zero_length_axis():
    # ONNX's test_sequence_model8: [0, 0, 0] on an empty axis gives three empty tensors.
    e = np.zeros((0,), np.float32)
    s = ops.split_to_sequence(e, np.array([0, 0, 0]))
    assert len(s) == 3 and all(t.shape == (0,) for t in s)
    assert len(ops.split_to_sequence(e)) == 0
    assert ops.split_to_sequence(e).dtype == np.float32
    assert len(ops.split_to_sequence(np.zeros((2, 0), np.int64), np.array(3), axis=1)) == 0
    assert len(ops.split_to_sequence(e, np.array([], np.int64))) == 0  # an empty split on an empty axis


@pytest.mark.parametrize("name,np_dtype,code", DTYPES, ids=DTYPE_IDS)
def test_split_all_dtypes(name, np_dtype, code):
    a = sample(np_dtype, (4, 3), seed=code)
    s = ops.split_to_sequence(a, np.array([1, 3]), axis=0)
    assert s.onnx_dtype == name
    assert_tensor_equals(s[0], a[:1])
    assert_tensor_equals(s[1], a[1:])
    c = ops.concat_from_sequence(s, axis=0)
    assert_tensor_equals(c, a)


def test_split_makes_new_tensors():
    s = ops.split_to_sequence(DATA, np.array(3), axis=1)
    assert all(t.data_ptr != ptr(DATA) for t in s)
    assert not s[0].is_adopted


@pytest.mark.parametrize("split,axis,error,words", [
    (np.array([1, 1]), 0, tseq.ShapeError, ["sum to 2", "length 3"]),
    (np.array([2, 3]), 0, tseq.ShapeError, ["5", "3"]),
    (np.array([4, 4]), 1, tseq.ShapeError, ["8", "6"]),
    (np.array(0), 0, tseq.ShapeError, ["0"]),
    (np.array(-2), 0, tseq.ShapeError, ["-2"]),
    (np.array([-1, 4]), 0, tseq.ShapeError, ["-1"]),
    (np.array([], np.int64), 0, tseq.ShapeError, []),       # empty 1-D split on a non-empty axis
    (np.array([[1, 2]]), 0, tseq.ShapeError, []),           # rank 2
    (np.array([1.0, 2.0]), 0, tseq.TypeError, []),          # not int32/int64
    (np.array(1, np.uint8), 0, tseq.TypeError, []),
    (None, 2, tseq.IndexError, ["2"]),
    (None, -3, tseq.IndexError, ["-3"]),
    (np.array(2), 5, tseq.IndexError, ["5"]),
])
def test_split_errors(split, axis, error, words):
    with pytest.raises(error) as info:
        ops.split_to_sequence(DATA, split, axis=axis)
    message = str(info.value)
    assert "SplitToSequence" in message
    for w in words:
        assert w in message, (w, message)


def test_split_scalar_input_is_refused():
    with pytest.raises(tseq.ShapeError):
        ops.split_to_sequence(np.array(3.0, np.float32))


# --- ConcatFromSequence -----------------------------------------------------------------------

def pieces():
    return [np.arange(24, dtype=np.float32).reshape(2, 3, 4) + 100 * k for k in range(3)]


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_concat_matches_numpy(axis):
    xs = pieces()
    t = ops.concat_from_sequence(tseq.Sequence(xs), axis=axis)
    assert_tensor_equals(t, np.concatenate(xs, axis=axis))
    t0 = ops.concat_from_sequence(tseq.Sequence(xs), axis, 0)
    assert_tensor_equals(t0, np.concatenate(xs, axis=axis))


def test_concat_sizes_may_differ_along_the_axis():
    xs = [np.ones((2, k), np.int32) * k for k in (1, 0, 3)]
    t = ops.concat_from_sequence(tseq.Sequence(xs), axis=1)
    assert_tensor_equals(t, np.concatenate(xs, axis=1))
    assert t.shape == (2, 4)


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1, -2, -3, -4])
def test_concat_new_axis_stacks(axis):
    xs = pieces()
    t = ops.concat_from_sequence(tseq.Sequence(xs), axis=axis, new_axis=1)
    assert_tensor_equals(t, np.stack(xs, axis=axis))


def test_stack_scalars():
    xs = [np.array(k, np.int64) for k in range(4)]
    for axis in (0, -1):
        t = ops.concat_from_sequence(tseq.Sequence(xs), axis=axis, new_axis=1)
        assert_tensor_equals(t, np.arange(4))
    with pytest.raises(tseq.IndexError):
        ops.concat_from_sequence(tseq.Sequence(xs), axis=1, new_axis=1)
    with pytest.raises(tseq.IndexError):
        ops.concat_from_sequence(tseq.Sequence(xs), axis=0)  # a scalar has no axis 0 to concatenate


def test_concat_single_and_strings():
    x = np.arange(6, dtype=np.int8).reshape(2, 3)
    assert_tensor_equals(ops.concat_from_sequence(tseq.Sequence([x]), axis=1), x)
    words = [np.array([["a", "b"]]), np.array([["c", "d"], ["e", "f"]])]
    t = ops.concat_from_sequence(tseq.Sequence(words), axis=0)
    assert t.onnx_dtype == "string"
    assert np.asarray(t).tolist() == [["a", "b"], ["c", "d"], ["e", "f"]]


def test_concat_errors():
    with pytest.raises(tseq.Error) as info:
        ops.concat_from_sequence(ops.sequence_empty(), axis=0)
    assert "ConcatFromSequence" in str(info.value)
    xs = tseq.Sequence(pieces())
    for new_axis in (2, -1):
        with pytest.raises(tseq.Error):
            ops.concat_from_sequence(xs, axis=0, new_axis=new_axis)
    for axis in (3, -4):
        with pytest.raises(tseq.IndexError) as info:
            ops.concat_from_sequence(xs, axis=axis)
        assert str(axis) in str(info.value)
    for axis in (4, -5):
        with pytest.raises(tseq.IndexError):
            ops.concat_from_sequence(xs, axis=axis, new_axis=1)


def test_concat_shape_mismatch_names_both_shapes():
    s = tseq.Sequence([np.zeros((2, 2), np.float32), np.zeros((3, 3), np.float32)])
    with pytest.raises(tseq.ShapeError) as info:
        ops.concat_from_sequence(s, axis=0)
    message = str(info.value)
    assert "tensor 1" in message and "[3, 3]" in message and "[2, 2]" in message
    assert_tensor_equals(ops.concat_from_sequence(s[:1], axis=0), np.zeros((2, 2), np.float32))
    with pytest.raises(tseq.ShapeError):
        ops.concat_from_sequence(tseq.Sequence([np.zeros((2, 3)), np.zeros((2, 4))]), axis=0, new_axis=1)
    with pytest.raises(tseq.ShapeError):
        ops.concat_from_sequence(tseq.Sequence([np.zeros((2, 3)), np.zeros((2, 3, 1))]), axis=0)


def test_round_trip_split_then_concat():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((5, 7, 3))
    for axis in range(3):
        s = ops.split_to_sequence(a, np.array(2), axis=axis)
        assert_tensor_equals(ops.concat_from_sequence(s, axis=axis), a)
        u = ops.split_to_sequence(a, axis=axis, keepdims=0)
        assert_tensor_equals(ops.concat_from_sequence(u, axis=axis, new_axis=1), a)


# --- properties against numpy -----------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def split_cases(draw):
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank)))
    axis = draw(st.integers(-rank, rank - 1))
    length = shape[axis]
    kind = draw(st.sampled_from(["none", "scalar", "list"]))
    if kind == "none":
        split = None
    elif kind == "scalar":
        split = np.array(draw(st.integers(1, 5)), draw(st.sampled_from([np.int32, np.int64])))
    else:
        cuts = sorted(draw(st.lists(st.integers(0, length), max_size=4)))
        bounds = [0] + cuts + [length]
        split = np.array([b - a for a, b in zip(bounds, bounds[1:])], np.int64)
    keepdims = draw(st.sampled_from([0, 1]))
    return shape, axis, split, keepdims


@settings(max_examples=150, deadline=None, database=None)  # no example database in the tree
@given(split_cases())
def test_split_then_concat_property(case):
    shape, axis, split, keepdims = case
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    expected = split_reference(a, split, axis, keepdims)
    s = ops.split_to_sequence(a, split, axis=axis, keepdims=keepdims)
    assert len(s) == len(expected)
    for t, e in zip(s, expected):
        assert_tensor_equals(t, e)
    if len(s):
        if split is None and not keepdims:
            assert_tensor_equals(ops.concat_from_sequence(s, axis=axis, new_axis=1), a)
        else:
            assert_tensor_equals(ops.concat_from_sequence(s, axis=axis), a)
