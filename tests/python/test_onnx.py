"""tseq.onnx: Session from bytes and from a path, declared inputs/outputs, feeds of every kind
(numpy, torch, tseq.Tensor, tseq.Sequence, lists, None for an empty optional) and their
errors, payload sharing through a run, SessionOptions and its limits, RunStopped from the time
limit, KeyboardInterrupt during a long run, and ONNX's 33 sequence conformance cases
(../shared/onnx-tests, or $TSEQ_ONNX_TESTS_DIR) compared with numpy."""

import _thread
import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from onnx import OptionalProto, SequenceProto, TensorProto, helper, numpy_helper

import tseq
import tseq.onnx
from conftest import (ONNX_NAME_BY_CODE, REPO, assert_sequence_is, assert_tensor_equals, loop_model, onnx_model, ptr,
                      seq_info, tensor_info)

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64


def insert_model():
    """out = SequenceInsert(s, t) (append); n = SequenceLength(out)."""
    nodes = [helper.make_node("SequenceInsert", ["s", "t"], ["out"]),
             helper.make_node("SequenceLength", ["out"], ["n"])]
    return onnx_model(nodes, [seq_info("s", FLOAT), tensor_info("t", FLOAT)],
                      [seq_info("out", FLOAT), tensor_info("n", INT64, [])], name="insert")


def optional_model():
    """out = Identity(o) for an optional(seq(tensor(float))) o; has = OptionalHasElement(o)."""
    opt = helper.make_optional_type_proto(helper.make_sequence_type_proto(helper.make_tensor_type_proto(FLOAT, None)))
    nodes = [helper.make_node("Identity", ["o"], ["out"]), helper.make_node("OptionalHasElement", ["o"], ["has"])]
    return onnx_model(nodes, [helper.make_value_info("o", opt)],
                      [helper.make_value_info("out", opt), tensor_info("has", TensorProto.BOOL, [])],
                      name="optional")


# --- sessions, declared types, feeds ----------------------------------------------------------

def test_session_from_bytes_and_declared_types():
    s = tseq.onnx.Session(insert_model())
    assert s.inputs == [("s", "seq(tensor(float))"), ("t", "tensor(float)")]
    assert s.outputs == [("out", "seq(tensor(float))"), ("n", "tensor(int64)")]
    assert s.opset == 17


def test_session_from_path(tmp_path):
    p = tmp_path / "m.onnx"
    p.write_bytes(insert_model())
    for path in (p, str(p)):
        s = tseq.onnx.Session(path)
        assert [name for name, _ in s.inputs] == ["s", "t"]
    with pytest.raises(tseq.Error):
        tseq.onnx.Session(tmp_path / "missing.onnx")


def test_run_with_every_feed_kind_shares_payloads():
    sess = tseq.onnx.Session(insert_model())
    xs = [np.arange(3, dtype=np.float32), np.ones((2, 2), np.float32)]
    t = np.full((4,), 5.0, np.float32)
    for seq_feed in (tseq.Sequence(xs), xs, tuple(xs)):
        for t_feed in (t, tseq.Tensor(t), torch.from_numpy(t)):
            out = sess.run({"s": seq_feed, "t": t_feed})
            assert set(out) == {"out", "n"}
            assert isinstance(out["out"], tseq.Sequence)
            assert_sequence_is(out["out"], xs + [t])  # handles moved, payloads never copied
            assert isinstance(out["n"], tseq.Tensor)
            assert np.asarray(out["n"]).item() == 3
            assert out["n"].dtype == np.int64


def test_outputs_outlive_the_session_and_the_feeds():
    import weakref

    from conftest import collect

    sess = tseq.onnx.Session(insert_model())
    a = np.arange(3, dtype=np.float32)
    wa = weakref.ref(a)
    out = sess.run({"s": [a], "t": np.zeros(1, np.float32)})["out"]
    del a, sess
    collect()
    assert wa() is not None
    assert np.asarray(out[0]).tolist() == [0.0, 1.0, 2.0]
    del out
    collect()
    assert wa() is None


def test_feed_errors():
    sess = tseq.onnx.Session(insert_model())
    good = {"s": [np.zeros(1, np.float32)], "t": np.zeros(1, np.float32)}
    with pytest.raises(tseq.Error):
        sess.run({"s": good["s"]})                                        # missing input
    with pytest.raises(tseq.Error):
        sess.run(dict(good, nope=np.zeros(1, np.float32)))                # unknown name
    with pytest.raises(tseq.TypeError) as info:
        sess.run(dict(good, t=np.zeros(1, np.int64)))                     # wrong element type
    assert "t" in str(info.value)
    with pytest.raises(tseq.TypeError) as info:
        sess.run(dict(good, s=tseq.Sequence([np.zeros(1, np.int64)])))    # wrong sequence type
    assert "seq(tensor(float))" in str(info.value)
    with pytest.raises(tseq.TypeError):
        sess.run(dict(good, s=np.zeros(1, np.float32)))                   # tensor for a sequence
    with pytest.raises(tseq.TypeError):
        sess.run(dict(good, t=tseq.Sequence([np.zeros(1, np.float32)])))  # sequence for a tensor
    with pytest.raises(tseq.TypeError):
        sess.run(dict(good, s=[np.zeros(1, np.float32), np.zeros(1, np.int32)]))  # mixed list
    with pytest.raises(tseq.Error):
        sess.run(dict(good, t=None))                                      # None for a tensor
    with pytest.raises(TypeError):
        sess.run([good["s"], good["t"]])                                  # not a mapping
    out = sess.run(good)  # still usable
    assert len(out["out"]) == 2


def test_run_accepts_any_mapping():
    import collections.abc
    import types

    class Feeds(collections.abc.Mapping):
        def __init__(self, d):
            self.d = d

        def __getitem__(self, k):
            return self.d[k]

        def __iter__(self):
            return iter(self.d)

        def __len__(self):
            return len(self.d)

    sess = tseq.onnx.Session(insert_model())
    feeds = {"s": [np.zeros(1, np.float32)], "t": np.ones(2, np.float32)}
    for mapping in (types.MappingProxyType(feeds), Feeds(feeds)):
        out = sess.run(mapping)
        assert len(out["out"]) == 2 and out["out"][1].data_ptr == ptr(feeds["t"])


def test_failed_runs_release_their_feeds():
    import sys

    from conftest import collect

    sess = tseq.onnx.Session(insert_model())
    loop = tseq.onnx.Session(loop_model(), tseq.onnx.SessionOptions(max_loop_iterations=2))
    a = np.zeros(3, np.float32)
    base = sys.getrefcount(a)
    for _ in range(10):
        with pytest.raises(tseq.TypeError):
            sess.run({"s": [a, a], "t": np.zeros(1, np.int64)})
        with pytest.raises(tseq.Error):
            sess.run({"s": [a], "t": a, "extra": a})
        with pytest.raises(tseq.Error):
            loop.run({"M": np.array(5, np.int64), "x": a})
        sess.run({"s": [a], "t": a})
    collect()
    assert sys.getrefcount(a) == base


def test_empty_list_feed_takes_the_declared_type():
    sess = tseq.onnx.Session(insert_model())
    out = sess.run({"s": [], "t": np.zeros(2, np.float32)})
    assert out["out"].dtype == np.float32 and len(out["out"]) == 1


def test_optional_feeds_and_outputs():
    sess = tseq.onnx.Session(optional_model())
    assert sess.inputs == [("o", "optional(seq(tensor(float)))")]
    out = sess.run({"o": None})
    assert out["out"] is None
    assert np.asarray(out["has"]).item() is False
    xs = [np.arange(2, dtype=np.float32)]
    out = sess.run({"o": tseq.Sequence(xs)})
    assert_sequence_is(out["out"], xs)
    assert np.asarray(out["has"]).item() is True


def test_bad_models():
    with pytest.raises(tseq.Error):
        tseq.onnx.Session(b"this is not a model")
    relu = onnx_model([helper.make_node("Relu", ["x"], ["y"])], [tensor_info("x")], [tensor_info("y")])
    with pytest.raises(tseq.Error) as info:
        tseq.onnx.Session(relu)
    assert "Relu" in str(info.value)
    with pytest.raises(TypeError):
        tseq.onnx.Session(12345)


def test_split_concat_model_matches_numpy():
    nodes = [helper.make_node("SplitToSequence", ["x"], ["s"], axis=1),
             helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0, new_axis=1)]
    sess = tseq.onnx.Session(onnx_model(nodes, [tensor_info("x", FLOAT, [2, 3])], [tensor_info("y", FLOAT)]))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = sess.run({"x": x})["y"]
    assert_tensor_equals(y, np.stack(np.split(x, 3, axis=1), axis=0))


def test_stats_count_the_last_run():
    sess = tseq.onnx.Session(insert_model())
    assert all(v == 0 for v in sess.stats.values())  # nothing ran yet
    sess.run({"s": [np.zeros(1, np.float32)], "t": np.zeros(1, np.float32)})
    stats = sess.stats
    assert isinstance(stats, dict) and stats
    assert all(isinstance(k, str) and isinstance(v, int) and v >= 0 for k, v in stats.items())
    assert any(v > 0 for v in stats.values())
    if "nodes" in stats:
        assert stats["nodes"] == 2
    sess.run({"s": [np.zeros(1, np.float32)], "t": np.zeros(1, np.float32)})
    assert sess.stats == stats  # of the last run, not accumulated


# --- options and limits -----------------------------------------------------------------------

LIMIT_FIELDS = ["max_loop_iterations", "max_tensor_elements", "max_tensor_bytes", "max_run_bytes",
                "max_sequence_length"]


def test_session_options_fields():
    o = tseq.onnx.SessionOptions(max_loop_iterations=5, max_tensor_elements=6, max_tensor_bytes=7,
                                 max_run_bytes=8, max_sequence_length=9, time_limit=1.5)
    assert [getattr(o, f) for f in LIMIT_FIELDS] == [5, 6, 7, 8, 9]
    assert o.time_limit == pytest.approx(1.5)
    o.max_loop_iterations = 11
    assert o.max_loop_iterations == 11
    o.time_limit = 0.25
    assert o.time_limit == pytest.approx(0.25)
    with pytest.raises(TypeError):
        tseq.onnx.SessionOptions(no_such_limit=1)


def test_untrusted_options():
    u = tseq.onnx.SessionOptions.untrusted()
    assert u.max_loop_iterations == 10**7
    assert u.max_tensor_elements == 2**28
    assert u.max_tensor_bytes == 2**30
    assert u.max_run_bytes == 4 * 2**30
    assert u.max_sequence_length == 10**7
    assert u.time_limit == pytest.approx(600.0)


def test_loop_runs_and_loop_limit():
    x = np.arange(3, dtype=np.float32)
    sess = tseq.onnx.Session(loop_model())
    y = sess.run({"M": np.array(10, np.int64), "x": x})["y"]
    np.testing.assert_array_equal(np.asarray(y), x)
    limited = tseq.onnx.Session(loop_model(), tseq.onnx.SessionOptions(max_loop_iterations=5))
    limited.run({"M": np.array(5, np.int64), "x": x})
    with pytest.raises(tseq.Error) as info:
        limited.run({"M": np.array(6, np.int64), "x": x})
    assert "Loop" in str(info.value)


def test_sequence_length_limit():
    nodes = [helper.make_node("SplitToSequence", ["x"], ["s"])]
    model = onnx_model(nodes, [tensor_info("x", FLOAT, [None])], [seq_info("s", FLOAT)])
    sess = tseq.onnx.Session(model, tseq.onnx.SessionOptions(max_sequence_length=4))
    assert len(sess.run({"x": np.zeros(4, np.float32)})["s"]) == 4
    with pytest.raises(tseq.Error) as info:
        sess.run({"x": np.zeros(5, np.float32)})
    assert "SplitToSequence" in str(info.value)


def test_tensor_limits():
    nodes = [helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)]
    model = onnx_model(nodes, [seq_info("s", FLOAT)], [tensor_info("y", FLOAT)])
    feed = {"s": [np.zeros(10, np.float32)] * 3}
    assert tseq.onnx.Session(model).run(feed)["y"].shape == (30,)
    for opts in (tseq.onnx.SessionOptions(max_tensor_elements=29), tseq.onnx.SessionOptions(max_tensor_bytes=100),
                 tseq.onnx.SessionOptions(max_run_bytes=100)):
        with pytest.raises(tseq.Error) as info:
            tseq.onnx.Session(model, opts).run(feed)
        assert "ConcatFromSequence" in str(info.value)
    assert tseq.onnx.Session(model, tseq.onnx.SessionOptions(max_tensor_elements=30)).run(feed)["y"].size == 30


def test_time_limit_raises_run_stopped():
    sess = tseq.onnx.Session(loop_model(), tseq.onnx.SessionOptions(time_limit=0.2))
    start = time.monotonic()
    with pytest.raises(tseq.RunStopped) as info:
        sess.run({"M": np.array(2**63 - 1, np.int64), "x": np.zeros(1, np.float32)})
    elapsed = time.monotonic() - start
    assert isinstance(info.value, tseq.Error)
    assert "time limit" in str(info.value) and "Loop" in str(info.value)
    assert 0.15 < elapsed < 5.0, elapsed
    # The session is still usable.
    assert sess.run({"M": np.array(3, np.int64), "x": np.ones(1, np.float32)})["y"] == tseq.Tensor(
        np.ones(1, np.float32))


def interrupted_run(trigger, backstop=30.0):
    """Runs a Loop of 10^9 iterations (time limit `backstop`) with trigger() called from a timer
    thread after 0.3 s. Returns (outcome, seconds). A KeyboardInterrupt never escapes (it would
    stop the whole test session), however late it comes."""
    sess = tseq.onnx.Session(loop_model(), tseq.onnx.SessionOptions(time_limit=backstop))
    feed = {"M": np.array(10**9, np.int64), "x": np.zeros(1, np.float32)}
    timer = threading.Timer(0.3, trigger)
    outcome = None
    start = time.monotonic()
    elapsed = None
    try:
        timer.start()
        try:
            sess.run(feed)
            outcome = "returned"
        except tseq.RunStopped:
            outcome = "stopped by the time limit (the interrupt was not seen)"
        elapsed = time.monotonic() - start
    except KeyboardInterrupt:
        elapsed = time.monotonic() - start  # a late interrupt shows as a long time
        outcome = outcome or "interrupted"
    finally:
        timer.cancel()
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:  # swallow an interrupt that comes later still
            try:
                time.sleep(0.05)
            except KeyboardInterrupt:
                pass
    return sess, outcome, elapsed


def test_keyboard_interrupt_stops_a_long_run():
    sess, outcome, elapsed = interrupted_run(_thread.interrupt_main)
    assert outcome == "interrupted", (outcome, elapsed)
    assert elapsed < 3.0, elapsed
    out = sess.run({"M": np.array(2, np.int64), "x": np.full(2, 4.0, np.float32)})  # still usable
    assert np.asarray(out["y"]).tolist() == [4.0, 4.0]


def test_sigint_stops_a_long_run():
    # A real SIGINT (as Ctrl-C sends), not only _thread.interrupt_main.
    import signal

    sess, outcome, elapsed = interrupted_run(lambda: os.kill(os.getpid(), signal.SIGINT))
    assert outcome == "interrupted", (outcome, elapsed)
    assert elapsed < 3.0, elapsed


class Alarm(Exception):
    pass


def test_signal_handlers_run_during_a_run():
    # Python signal handlers run while the model runs: one that raises stops the run with its
    # exception; one that returns lets the run go on to its normal result.
    import signal

    if not hasattr(signal, "setitimer"):
        pytest.skip("no setitimer")
    sess = tseq.onnx.Session(loop_model(), tseq.onnx.SessionOptions(time_limit=30.0))
    calls = []

    def raising(signum, frame):
        raise Alarm()

    def counting(signum, frame):
        calls.append(time.monotonic())

    previous = signal.signal(signal.SIGALRM, raising)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        start = time.monotonic()
        with pytest.raises(Alarm):
            sess.run({"M": np.array(10**9, np.int64), "x": np.zeros(1, np.float32)})
        assert time.monotonic() - start < 3.0
        signal.signal(signal.SIGALRM, counting)
        signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)
        start = time.monotonic()
        y = sess.run({"M": np.array(3_000_000, np.int64), "x": np.full(2, 7.0, np.float32)})["y"]
        end = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, 0)
        assert np.asarray(y).tolist() == [7.0, 7.0]
        if end - start > 0.3:  # long enough for the timer to fire during the run
            assert any(start < c < end for c in calls), (calls, start, end)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_run_releases_the_gil():
    # A long run in one thread must not stop another thread running Python code.
    sess = tseq.onnx.Session(loop_model(), tseq.onnx.SessionOptions(time_limit=1.0))
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    th = threading.Thread(target=ticker)
    th.start()
    try:
        with pytest.raises(tseq.RunStopped):
            sess.run({"M": np.array(2**62, np.int64), "x": np.zeros(1, np.float32)})
    finally:
        stop.set()
        th.join()
    assert len(ticks) > 20, len(ticks)


# --- ONNX conformance -------------------------------------------------------------------------

def conformance_dir():
    env = os.environ.get("TSEQ_ONNX_TESTS_DIR")
    return Path(env) if env else REPO.parent / "shared" / "onnx-tests"


def find_cases(root):
    """Case folders (holding model.onnx) under root, sorted; links followed once."""
    cases, seen = [], set()

    def walk(d):
        real = d.resolve()
        if real in seen:
            return
        seen.add(real)
        if (d / "model.onnx").is_file():
            cases.append(d)
            return
        for sub in sorted(p for p in d.iterdir() if p.is_dir()):
            walk(sub)

    if root.is_dir():
        walk(root)
    return cases


CASES_DIR = conformance_dir()
CASES = find_cases(CASES_DIR)
needs_cases = pytest.mark.skipif(not CASES_DIR.is_dir(), reason="no ONNX conformance cases at %s (set "
                                 "TSEQ_ONNX_TESTS_DIR; they live beside the checkout in ../shared)" % CASES_DIR)


def declared_kind(type_proto):
    return type_proto.WhichOneof("value")


def read_value(path, type_proto):
    """The python value of a .pb file, read by the declared type: an ndarray (tensor), a list of
    ndarrays (sequence), or ("optional", value-or-None)."""
    data = Path(path).read_bytes()
    kind = declared_kind(type_proto)
    if kind == "tensor_type":
        p = TensorProto()
        p.ParseFromString(data)
        return numpy_helper.to_array(p)
    if kind == "sequence_type":
        p = SequenceProto()
        p.ParseFromString(data)
        return [numpy_helper.to_array(t) for t in p.tensor_values]
    if kind == "optional_type":
        p = OptionalProto()
        p.ParseFromString(data)
        if p.elem_type == OptionalProto.UNDEFINED:
            return ("optional", None)
        if p.elem_type == OptionalProto.TENSOR:
            return ("optional", numpy_helper.to_array(p.tensor_value))
        if p.elem_type == OptionalProto.SEQUENCE:
            return ("optional", [numpy_helper.to_array(t) for t in p.sequence_value.tensor_values])
        raise AssertionError("unexpected optional element type %d in %s" % (p.elem_type, path))
    raise AssertionError("unexpected declared type %s for %s" % (kind, path))


def sequence_elem_code(type_proto):
    kind = declared_kind(type_proto)
    if kind == "optional_type":
        return sequence_elem_code(type_proto.optional_type.elem_type)
    assert kind == "sequence_type"
    return type_proto.sequence_type.elem_type.tensor_type.elem_type


def to_feed(value, type_proto, as_list=False):
    """The feed for a value read by read_value: sequences as tseq.Sequence (or a plain list)."""
    kind = declared_kind(type_proto)
    if kind == "optional_type":
        inner = value[1]
        if inner is None:
            return None
        return to_feed(inner, type_proto.optional_type.elem_type, as_list)
    if kind == "sequence_type":
        if as_list:
            return list(value)  # an empty list takes the declared element type
        return tseq.Sequence(value, dtype=ONNX_NAME_BY_CODE[sequence_elem_code(type_proto)])
    return value


def assert_close_tensor(got, expected, what):
    assert isinstance(got, tseq.Tensor), "%s: expected a tensor, got %r" % (what, type(got))
    expected = np.asarray(expected)
    g = np.asarray(got)
    assert g.shape == expected.shape, "%s: shape %s, expected %s" % (what, g.shape, expected.shape)
    if expected.dtype == np.dtype(object):
        assert got.onnx_dtype == "string", what
        decoded = [v.decode() if isinstance(v, bytes) else v for v in expected.ravel()]
        assert g.ravel().tolist() == decoded, what
        return
    assert got.dtype == expected.dtype, "%s: dtype %s, expected %s" % (what, got.dtype, expected.dtype)
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(g, expected, rtol=1e-3, atol=1e-7, err_msg=what)
    else:
        np.testing.assert_array_equal(g, expected, err_msg=what)


def assert_close_value(got, expected, type_proto, what):
    kind = declared_kind(type_proto)
    if kind == "optional_type":
        inner = expected[1]
        if inner is None:
            assert got is None, "%s: expected an empty optional, got %r" % (what, got)
            return
        assert got is not None, "%s: expected a value, got an empty optional" % what
        assert_close_value(got, inner, type_proto.optional_type.elem_type, what)
        return
    if kind == "sequence_type":
        assert isinstance(got, tseq.Sequence), "%s: expected a sequence, got %r" % (what, type(got))
        assert len(got) == len(expected), "%s: length %d, expected %d" % (what, len(got), len(expected))
        assert got.onnx_dtype == ONNX_NAME_BY_CODE[sequence_elem_code(type_proto)], what
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_close_tensor(g, e, "%s[%d]" % (what, i))
        return
    assert_close_tensor(got, expected, what)


@needs_cases
def test_conformance_finds_33_cases():
    names = sorted("%s/%s" % (c.parent.name, c.name) for c in CASES)
    assert len(CASES) == 33, names
    assert "simple/test_sequence_model8" in names and "node/test_loop16_seq_none" in names


@needs_cases
@pytest.mark.parametrize("feed_kind", ["Sequence", "list"])
@pytest.mark.parametrize("case", CASES, ids=["%s/%s" % (c.parent.name, c.name) for c in CASES])
def test_conformance_case(case, feed_kind):
    import onnx

    model = onnx.load(str(case / "model.onnx"))
    graph = model.graph
    sets = sorted(p for p in case.iterdir() if p.is_dir() and p.name.startswith("test_data_set_"))
    assert sets, "no test_data_set_* in %s" % case
    limits = tseq.onnx.SessionOptions(time_limit=60.0, max_loop_iterations=10**6)
    sess = tseq.onnx.Session((case / "model.onnx").read_bytes(), limits)
    assert [name for name, _ in sess.inputs] == [i.name for i in graph.input]
    assert [name for name, _ in sess.outputs] == [o.name for o in graph.output]
    for data_set in sets:
        feeds = {}
        i = 0
        while (data_set / ("input_%d.pb" % i)).exists():
            declared = graph.input[i]
            value = read_value(data_set / ("input_%d.pb" % i), declared.type)
            feeds[declared.name] = to_feed(value, declared.type, as_list=feed_kind == "list")
            i += 1
        outputs = sess.run(feeds)  # inputs without a file have an initializer
        assert set(outputs) == {o.name for o in graph.output}
        checked = 0
        while (data_set / ("output_%d.pb" % checked)).exists():
            declared = graph.output[checked]
            expected = read_value(data_set / ("output_%d.pb" % checked), declared.type)
            assert_close_value(outputs[declared.name], expected, declared.type,
                               "%s output '%s'" % (data_set.name, declared.name))
            checked += 1
        assert checked > 0
