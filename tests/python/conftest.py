"""Shared helpers of the tseq Python tests: the import of tseq, the table of the 15 element
types, data pointers of numpy arrays and torch tensors, and small ONNX model builders.

Run with the built module on the path, for example:

    PYTHONPATH=build/ci/python /usr/bin/python3 -m pytest tests/python -q
"""

import gc
import os
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]

try:
    import tseq  # noqa: F401
except ImportError:  # not on PYTHONPATH: try the CI build tree
    for candidate in (os.environ.get("TSEQ_PYTHON_DIR"), REPO / "build" / "ci" / "python"):
        if candidate and Path(candidate, "tseq").is_dir():
            sys.path.insert(0, str(candidate))
            break
    import tseq  # noqa: F401  (fails loudly: the tests need the module)

# The 15 ONNX element types: (ONNX name, numpy dtype, ONNX TensorProto code).
DTYPES = [
    ("float", np.dtype(np.float32), 1),
    ("uint8", np.dtype(np.uint8), 2),
    ("int8", np.dtype(np.int8), 3),
    ("uint16", np.dtype(np.uint16), 4),
    ("int16", np.dtype(np.int16), 5),
    ("int32", np.dtype(np.int32), 6),
    ("int64", np.dtype(np.int64), 7),
    ("string", np.dtype(object), 8),
    ("bool", np.dtype(np.bool_), 9),
    ("float16", np.dtype(np.float16), 10),
    ("double", np.dtype(np.float64), 11),
    ("uint32", np.dtype(np.uint32), 12),
    ("uint64", np.dtype(np.uint64), 13),
    ("complex64", np.dtype(np.complex64), 14),
    ("complex128", np.dtype(np.complex128), 15),
]
DTYPE_IDS = [name for name, _, _ in DTYPES]
ONNX_NAME_BY_CODE = {code: name for name, _, code in DTYPES}


def sample(np_dtype, shape=(2, 3), seed=0):
    """A C-contiguous array of `np_dtype` and `shape` with varied, non-trivial values."""
    n = int(np.prod(shape))
    rng = np.random.default_rng(seed)
    if np_dtype == np.dtype(object):
        return np.array(["s%d_%s" % (seed, "x" * (i % 4)) for i in range(n)], dtype=object).reshape(shape)
    if np_dtype == np.dtype(np.bool_):
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if np_dtype.kind == "c":
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np_dtype).reshape(shape)
    if np_dtype.kind == "f":
        return rng.standard_normal(n).astype(np_dtype).reshape(shape)
    info = np.iinfo(np_dtype)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    return rng.integers(lo, hi, n, endpoint=True).astype(np_dtype).reshape(shape)


def ptr(a):
    """Address of the first element of a numpy array, torch tensor or tseq.Tensor."""
    if isinstance(a, tseq.Tensor):
        return a.data_ptr
    if isinstance(a, np.ndarray):
        return a.__array_interface__["data"][0]
    return a.data_ptr()  # torch


def collect():
    """Runs the garbage collector until nothing more is freed."""
    for _ in range(3):
        if gc.collect() == 0:
            break


def assert_tensor_equals(t, expected):
    """t (a tseq.Tensor) has expected's dtype, shape and values (strings compared as str)."""
    expected = np.asarray(expected)
    assert isinstance(t, tseq.Tensor), type(t)
    got = np.asarray(t)
    if expected.dtype.kind in "USO":
        assert t.onnx_dtype == "string"
        assert got.dtype == np.dtype(object)
        assert got.shape == expected.shape
        assert got.tolist() == expected.astype(str).tolist()
        return
    assert t.dtype == expected.dtype, (t.dtype, expected.dtype)
    assert tuple(t.shape) == expected.shape, (t.shape, expected.shape)
    np.testing.assert_array_equal(got, expected)


def assert_sequence_is(s, arrays, dtype=None):
    """s holds exactly `arrays` (same payloads, by data pointer, and the same values)."""
    assert isinstance(s, tseq.Sequence), type(s)
    assert len(s) == len(arrays)
    if dtype is not None:
        assert s.dtype == np.dtype(dtype)
    for i, a in enumerate(arrays):
        t = s[i]
        assert t.data_ptr == ptr(a), "element %d is not the tensor put in" % i
        assert tuple(t.shape) == tuple(a.shape)


# --- ONNX models (onnx.helper, opset 17, IR 8) ---------------------------------------------

OPSET = 17
IR_VERSION = 8


def onnx_model(nodes, inputs, outputs, initializers=(), name="g", opset=OPSET):
    """Serialized bytes of a one-graph model."""
    from onnx import helper

    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs), initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="tseq-tests")
    model.ir_version = IR_VERSION
    return model.SerializeToString()


def seq_info(name, elem_type=1, shape=None):
    from onnx import helper

    return helper.make_tensor_sequence_value_info(name, elem_type, shape)


def tensor_info(name, elem_type=1, shape=None):
    from onnx import helper

    return helper.make_tensor_value_info(name, elem_type, shape)


def loop_model(carried_elem_type=1):
    """Loop(M, cond=true, x) whose body passes cond and x through: runs M iterations.

    Inputs: M (int64 scalar), x (float tensor). Output: y (x after M iterations).
    """
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c2"]), helper.make_node("Identity", ["x"], ["x2"])],
        "body",
        [tensor_info("i", TensorProto.INT64, []), tensor_info("c", TensorProto.BOOL, []),
         tensor_info("x", carried_elem_type)],
        [tensor_info("c2", TensorProto.BOOL, []), tensor_info("x2", carried_elem_type)],
    )
    cond = helper.make_tensor("cond", TensorProto.BOOL, [], [True])
    loop = helper.make_node("Loop", ["M", "cond", "x"], ["y"], body=body)
    return onnx_model([loop], [tensor_info("M", TensorProto.INT64, []), tensor_info("x", carried_elem_type)],
                      [tensor_info("y", carried_elem_type)], initializers=[cond], name="loop")


def identity_model():
    """y = Identity(x), x and y float tensors."""
    from onnx import helper

    return onnx_model([helper.make_node("Identity", ["x"], ["y"])], [tensor_info("x")], [tensor_info("y")],
                      name="identity")


def endless_loop_model():
    """A Loop of 10^12 trips with no inputs (M, cond and x are initializers): runs until stopped."""
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c2"]), helper.make_node("Identity", ["x"], ["x2"])],
        "body",
        [tensor_info("i", TensorProto.INT64, []), tensor_info("c", TensorProto.BOOL, []), tensor_info("x")],
        [tensor_info("c2", TensorProto.BOOL, []), tensor_info("x2")],
    )
    inits = [helper.make_tensor("M", TensorProto.INT64, [], [10**12]),
             helper.make_tensor("cond", TensorProto.BOOL, [], [True]),
             helper.make_tensor("x0", TensorProto.FLOAT, [1], [0.0])]
    loop = helper.make_node("Loop", ["M", "cond", "x0"], ["y"], body=body)
    return onnx_model([loop], [], [tensor_info("y")], initializers=inits, name="endless")


@pytest.fixture
def arrays3():
    """Three float32 arrays of different shapes and values."""
    return [np.full((2,), 1.0, np.float32), np.arange(6, dtype=np.float32).reshape(2, 3),
            np.full((1, 1, 4), 3.0, np.float32)]


def double_last(s):
    """Multiprocessing worker (importable by a spawned child): `s` with its last tensor doubled
    appended, and the sum of all its elements."""
    last = np.asarray(s[-1])
    total = float(sum(np.asarray(t).sum() for t in s))
    return s.append(last * 2), total
