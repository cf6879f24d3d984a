"""Regression tests for hostile or unusual Python input found by a review of the binding: each
of these once crashed, hung, read out of bounds or silently did the wrong thing."""

import ctypes
import gc
import os
import signal
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import tseq
from conftest import identity_model

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_python(code, timeout=60):
    """Runs code in a fresh interpreter with this test's environment; returns the process."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ))


@pytest.mark.parametrize("name", ["numpy", "tolist", "__dlpack__", "__dlpack_device__", "__reduce__", "__array__"])
@pytest.mark.parametrize("bad", [42, "abc", None, 1.5])
def test_tensor_methods_called_on_other_objects_raise(name, bad):
    # Once read `bad` as a tseq.Tensor: a segmentation fault.
    with pytest.raises(TypeError):
        getattr(tseq.Tensor, name)(bad)


def test_a_process_that_ran_a_session_exits_cleanly():
    # A Python object in a C++ static was destroyed after the interpreter: exit code 139.
    p = run_python(f"""
        import sys; sys.path.insert(0, {os.path.join(REPO, 'tests', 'python')!r})
        import numpy as np, tseq
        from conftest import identity_model
        s = tseq.onnx.Session(identity_model())
        s.run({{"x": np.zeros(2, np.float32)}})
        print("ran")
    """)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "ran" in p.stdout


def test_freeing_a_long_chain_of_numpy_round_trips_takes_constant_stack():
    # Each tseq.Tensor(np.asarray(t)) holds the one before; freeing 200,000 levels once
    # recursed once per level and overflowed the C stack.
    p = run_python("""
        import numpy as np, tseq
        t = tseq.Tensor(np.zeros(4, np.float32))
        first = t.data_ptr
        for i in range(200_000):
            t = tseq.Tensor(np.asarray(t).reshape(2, 2).ravel())
        assert t.data_ptr == first
        m = memoryview(t)
        for i in range(50_000):
            t = tseq.Tensor(memoryview(t))
        del t, m
        print("freed")
    """, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "freed" in p.stdout


def test_a_string_array_subclass_cannot_shorten_its_elements():
    class Short(np.ndarray):
        def tolist(self):
            return []

        def ravel(self, order="C"):
            return np.array(["x"])

    a = np.array(["a", "b", "c"]).view(Short)
    t = tseq.Tensor(a)  # ndarray's own ravel and tolist: the three elements
    assert np.asarray(t).tolist() == ["a", "b", "c"]


def test_a_masked_array_is_refused():
    m = np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False])
    with pytest.raises(tseq.TypeError, match="mask"):
        tseq.Tensor(m)
    assert np.asarray(tseq.Tensor(np.ma.filled(m, 0.0))).tolist() == [1.0, 0.0, 3.0]


def test_a_dlpack_producer_that_refuses_is_not_retried_through_numpy():
    class X:
        def __dlpack__(self, stream=None):
            raise RuntimeError("no")

        def numpy(self):
            return self  # once: unbounded recursion

    with pytest.raises(RuntimeError, match="no"):
        tseq.Tensor(X())

    class Interrupting:
        def __dlpack__(self, stream=None):
            raise KeyboardInterrupt

        def numpy(self):
            return np.zeros(2)

    with pytest.raises(KeyboardInterrupt):
        tseq.Tensor(Interrupting())


def test_a_signal_handler_rerunning_the_session_gets_an_error_not_a_deadlock():
    p = run_python(f"""
        import sys, signal; sys.path.insert(0, {os.path.join(REPO, 'tests', 'python')!r})
        import numpy as np, tseq
        from conftest import endless_loop_model, identity_model
        sess = tseq.onnx.Session(endless_loop_model(), tseq.onnx.SessionOptions(time_limit=20))
        seen = []
        def handler(signum, frame):
            try:
                sess.run({{}})
            except tseq.Error as e:
                seen.append(str(e))
                raise KeyboardInterrupt
        signal.signal(signal.SIGALRM, handler)
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        try:
            sess.run({{}})
        except KeyboardInterrupt:
            pass
        assert seen and "called again" in seen[0], seen
        print("ok")
    """, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "ok" in p.stdout


def test_pysequence_getitem_does_not_count_from_the_back_twice():
    s = tseq.Sequence([np.full(1, i, np.float32) for i in range(3)])
    get = ctypes.pythonapi.PySequence_GetItem
    get.restype = ctypes.py_object
    get.argtypes = [ctypes.py_object, ctypes.c_ssize_t]
    assert get(s, -1).tolist() == [2.0]
    for i in (-4, -5, -6, 3):
        with pytest.raises(IndexError):
            get(s, i)


def test_bool_bytes_other_than_0_and_1_are_refused_or_normalised():
    raw = np.array([2, 255, 1, 0], np.uint8).view(np.bool_)
    with pytest.raises(tseq.Error, match="byte 2"):
        tseq.Tensor(raw)
    t = tseq.Tensor(raw, copy=True)
    assert t == tseq.Tensor(np.array([True, True, True, False]))
    assert bytes(memoryview(t)) == b"\x01\x01\x01\x00"


def test_misaligned_memory_is_a_shape_error_with_a_hint():
    buf = bytearray(17)
    view = memoryview(buf)[1:].cast("d")
    with pytest.raises(tseq.ShapeError, match="copy=True"):
        tseq.Tensor(view)
    assert tseq.Tensor(view, copy=True).shape == (2,)


def test_session_takes_bytearray_and_memoryview_models_and_refuses_nul_in_paths(tmp_path):
    model = identity_model()
    for m in (bytearray(model), memoryview(model)):
        out = tseq.onnx.Session(m).run({"x": np.ones(2, np.float32)})
        assert np.asarray(out["y"]).tolist() == [1.0, 1.0]
    p = tmp_path / "m.onnx"
    p.write_bytes(model)
    with pytest.raises(ValueError, match="NUL"):
        tseq.onnx.Session(str(p) + "\0/etc/passwd")


def test_huge_positions_are_index_errors():
    s = tseq.Sequence([np.zeros(1, np.float32)])
    for i in (10**5000, -(10**5000), 2**63, -(2**63) - 1):
        with pytest.raises(tseq.IndexError, match="64 bits"):
            s.erase(i)
        with pytest.raises(tseq.IndexError):
            s[i]


def test_float_splits_are_refused_not_truncated():
    with pytest.raises(tseq.TypeError):
        tseq.ops.split_to_sequence(np.arange(4, dtype=np.float32), [1.5, 2.5])
    pieces = tseq.ops.split_to_sequence(np.arange(4, dtype=np.float32), [1, 3])
    assert [np.asarray(p).tolist() for p in pieces] == [[0.0], [1.0, 2.0, 3.0]]


def test_a_sub_nanosecond_time_limit_is_still_a_limit():
    o = tseq.onnx.SessionOptions(time_limit=1e-10)
    assert o.time_limit > 0


def test_sequence_empty_of_none_is_float():
    assert tseq.ops.sequence_empty(None).onnx_dtype == "float"


def test_star_import_does_not_shadow_the_builtins():
    ns = {}
    exec("from tseq import *", ns)
    assert "TypeError" not in ns and "IndexError" not in ns
    assert "Sequence" in ns and "Error" in ns


def test_source_released_after_a_deep_round_trip_chain():
    a = np.zeros(8, np.float32)
    w = weakref.ref(a)
    t = tseq.Tensor(a)
    del a
    for _ in range(100):
        t = tseq.Tensor(np.asarray(t))
    gc.collect()
    assert w() is not None
    del t
    gc.collect()
    assert w() is None


def test_interrupt_handler_is_restored():
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


# ---- issue 28: loading from Python is bounded as from C++ --------------------------------------

def chain_model(n, name_bytes=1):
    """x -> Identity -> ... -> y, n nodes with names of about name_bytes bytes."""
    from onnx import helper
    from conftest import onnx_model, tensor_info

    pad = "v" * name_bytes
    names = ["x"] + [pad + str(k) for k in range(1, n)] + ["y"]
    nodes = [helper.make_node("Identity", [names[k]], [names[k + 1]], name=names[k + 1]) for k in range(n)]
    return onnx_model(nodes, [tensor_info("x")], [tensor_info("y")], name="chain")


def test_load_options_bound_nodes_names_size_and_time(tmp_path):
    model = chain_model(50, name_bytes=100)
    ok = tseq.onnx.Session(model, load_options=tseq.onnx.LoadOptions(max_nodes=50))
    assert np.asarray(ok.run({"x": np.ones(2, np.float32)})["y"]).tolist() == [1.0, 1.0]
    with pytest.raises(tseq.Error, match="over LoadOptions::max_nodes of 49"):
        tseq.onnx.Session(model, load_options=tseq.onnx.LoadOptions(max_nodes=49))
    with pytest.raises(tseq.Error, match="over LoadOptions::max_name_bytes of 64"):
        tseq.onnx.Session(model, load_options=tseq.onnx.LoadOptions(max_name_bytes=64))
    with pytest.raises(tseq.Error, match="over LoadOptions::max_file_bytes of 100"):
        tseq.onnx.Session(model, load_options=tseq.onnx.LoadOptions(max_file_bytes=100))
    path = tmp_path / "chain.onnx"
    path.write_bytes(model)
    with pytest.raises(tseq.Error, match="over the limit of 100 bytes for this file"):
        tseq.onnx.Session(path, load_options=tseq.onnx.LoadOptions(max_file_bytes=100))
    with pytest.raises(tseq.Error, match="LoadOptions::time_limit"):
        tseq.onnx.Session(chain_model(3000), load_options=tseq.onnx.LoadOptions(time_limit=1e-9))


def test_load_options_fields_and_untrusted_values():
    u = tseq.onnx.LoadOptions.untrusted()
    assert (u.max_file_bytes, u.max_bytes, u.max_nodes, u.max_name_bytes, u.time_limit) == (
        2**30, 4 * 2**30, 10**6, 4096, 60.0)
    assert "max_nodes=1000000" in repr(u)
    with pytest.raises(TypeError, match="no limit named 'max_node'"):
        tseq.onnx.LoadOptions(max_node=1)
    with pytest.raises(tseq.Error, match="LoadOptions.max_nodes: -1 is negative"):
        tseq.onnx.LoadOptions(max_nodes=-1)
    with pytest.raises(tseq.Error, match="LoadOptions.time_limit"):
        tseq.onnx.LoadOptions(time_limit=float("nan"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_model_path_is_refused_without_blocking(tmp_path):
    # Was read until its writer closed it: a Session on a FIFO nobody writes blocked forever.
    fifo = tmp_path / "model.onnx"
    os.mkfifo(fifo)
    with pytest.raises(tseq.Error, match="is a FIFO, not a regular file"):
        tseq.onnx.Session(str(fifo))
    if os.path.exists("/dev/zero"):
        with pytest.raises(tseq.Error, match="is a character device, not a regular file"):
            tseq.onnx.Session("/dev/zero")
