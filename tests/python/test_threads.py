"""Threads: several threads reading and deriving from shared versions of one tseq.Sequence at
once (each thread updating its own derived versions and checking them against a list model),
shared versions left unchanged, payloads of numpy arrays released exactly once when the last
holder goes on any thread (also inside tseq.onnx runs that drop fed tensors), and concurrent
runs of sessions."""

import random
import sys
import threading
import weakref

import numpy as np

import tseq
import tseq.onnx
from conftest import collect, onnx_model, ptr, seq_info, tensor_info

N_THREADS = 8


def run_threads(target, n=N_THREADS):
    """Runs target(k) in n threads started together; re-raises the first failure."""
    barrier = threading.Barrier(n)
    errors = []

    def body(k):
        try:
            barrier.wait(timeout=30)
            target(k)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append((k, e))

    threads = [threading.Thread(target=body, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    if errors:
        k, e = errors[0]
        raise AssertionError("thread %d failed: %r" % (k, e)) from e


def check(s, model):
    assert len(s) == len(model)
    assert [t.data_ptr for t in s] == [ptr(x) for x in model]


def test_threads_derive_from_shared_versions():
    pool = [np.full((2,), k, np.float32) for k in range(2000)]
    base_model = pool[:300]
    base = tseq.Sequence(base_model)
    shared = [(base, base_model), (base[50:250], base_model[50:250]),
              (base.erase(0).append(pool[300]), base_model[1:] + [pool[300]]),
              (base + base, base_model + base_model)]

    def work(k):
        rng = random.Random(k)
        s, m = shared[k % len(shared)]
        fresh = iter(pool[400 + 200 * k:400 + 200 * (k + 1)])
        for step in range(400):
            op = rng.randrange(6)
            n = len(m)
            if op == 0:
                x = next(fresh, pool[0])
                s, m = s.append(x), m + [x]
            elif op == 1:
                i = rng.randint(-n, n)
                x = next(fresh, pool[1])
                s = s.insert(i, x)
                m = list(m)
                m.insert(i + n if i < 0 else i, x)
            elif op == 2 and n:
                i = rng.randint(-n, n - 1)
                s = s.erase(i)
                m = list(m)
                del m[i]
            elif op == 3 and n:
                i = rng.randint(-n, n - 1)
                x = pool[rng.randrange(len(pool))]
                s = s.set(i, x)
                m = list(m)
                m[i] = x
            elif op == 4:
                a, b = sorted(rng.randint(0, n) for _ in range(2))
                s, m = s[a:b], m[a:b]
                if len(m) < 20:  # grow again from a shared version
                    s2, m2 = shared[rng.randrange(len(shared))]
                    s, m = s + s2, m + m2
            else:
                i = rng.randint(0, n - 1) if n else 0
                if n:
                    assert s[i].data_ptr == ptr(m[i])
                # Read a shared version while others derive from it.
                s2, m2 = shared[rng.randrange(len(shared))]
                j = rng.randrange(len(m2))
                assert s2[j].data_ptr == ptr(m2[j])
            if step % 25 == 0:
                check(s, m)
        check(s, m)

    run_threads(work)
    for s, m in shared:
        check(s, m)


def test_last_holder_on_another_thread_releases_once():
    state = {"arrays": [np.arange(4, dtype=np.int64) + k for k in range(N_THREADS)],
             "one": np.arange(3, dtype=np.int64)}
    refs = [weakref.ref(a) for a in state["arrays"]]
    bases = [sys.getrefcount(a) for a in state["arrays"]]
    one_base = sys.getrefcount(state["one"])
    state["seqs"] = [tseq.Sequence([a, state["one"]]) for a in state["arrays"]]

    def work(k):
        a = state["arrays"][k]
        versions = [state["seqs"][k]]
        for i in range(200):
            versions.append(versions[-1].append(a).erase(0))
        assert all(v[-1].data_ptr == ptr(a) for v in versions[1:])
        # This thread drops the last handles of its versions.

    run_threads(work)
    del state["seqs"]
    collect()
    counts = [sys.getrefcount(a) for a in state["arrays"]]
    one_count = sys.getrefcount(state["one"])  # (not inside assert: its rewriting keeps temporaries)
    assert counts == bases
    assert one_count == one_base
    state.clear()
    collect()
    assert all(r() is None for r in refs)


def test_concurrent_session_runs_dropping_fed_tensors():
    # SequenceLength reads the sequence and drops it inside the run: the fed arrays' handles are
    # released there, maybe without the GIL held by the caller's thread.
    model = onnx_model([helper_node("SequenceLength", ["s"], ["n"])], [seq_info("s")],
                       [tensor_info("n", 7, [])], name="length")
    arrays = [np.full((3,), k, np.float32) for k in range(16)]
    bases = [sys.getrefcount(a) for a in arrays]

    def work(k):
        sess = tseq.onnx.Session(model)
        for i in range(200):
            feed = arrays[: 1 + (i + k) % len(arrays)]
            out = sess.run({"s": feed})
            assert np.asarray(out["n"]).item() == len(feed)
            out = sess.run({"s": tseq.Sequence(feed)})
            assert np.asarray(out["n"]).item() == len(feed)

    run_threads(work, n=4)
    collect()
    assert [sys.getrefcount(a) for a in arrays] == bases


ONE_SESSION_SCRIPT = r"""
import threading, numpy as np, tseq, tseq.onnx
from onnx import helper, TensorProto
g = helper.make_graph([helper.make_node("SequenceInsert", ["s", "t"], ["out"])], "g",
                      [helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None),
                       helper.make_tensor_value_info("t", TensorProto.FLOAT, None)],
                      [helper.make_tensor_sequence_value_info("out", TensorProto.FLOAT, None)])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
sess = tseq.onnx.Session(m.SerializeToString())
base = [np.full((2,), k, np.float32) for k in range(10)]
bad, refused = [], []
def work(k):
    t = np.full((1,), 100 + k, np.float32)
    for _ in range(300):
        try:
            out = sess.run({"s": base, "t": t})["out"]
        except tseq.Error as e:  # a clean refusal of concurrent use is acceptable
            refused.append(str(e))
            continue
        if [x.data_ptr for x in out] != [a.ctypes.data for a in base + [t]]:
            bad.append(k)
threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
print("bad", len(bad), "refused", len(refused))
assert not bad
"""


def test_one_session_from_several_threads_does_not_crash():
    # tseq::onnx::Session is not for concurrent use in C++; the Python object must still be
    # safe: either the runs are serialised and correct, or they are refused with tseq.Error.
    # Run in a child process so that a crash fails this test instead of the whole session.
    import os
    import subprocess

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", ONE_SESSION_SCRIPT], capture_output=True, text=True, timeout=120,
                       env=env)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-2000:])
    assert "bad 0" in r.stdout


def helper_node(op, inputs, outputs, **attrs):
    from onnx import helper

    return helper.make_node(op, inputs, outputs, **attrs)


EXIT_SCRIPT = r"""
import threading, time, numpy as np, torch, tseq
KEEP = tseq.Sequence([np.arange(5.0), np.ones(3)])
TORCH = tseq.Tensor(torch.arange(4.0))
VIEW = np.asarray(tseq.Tensor(np.arange(3)))
class Cycle:
    pass
c = Cycle()
c.me = c
c.s = tseq.Sequence([np.zeros(2)])
def churn():
    local = tseq.Sequence([np.arange(7)])
    while True:
        local = local.append(np.arange(7)).erase(0)
threading.Thread(target=churn, daemon=True).start()
time.sleep(0.2)
print("done")
"""


def test_interpreter_exit_with_live_objects():
    # Tensors holding numpy arrays and torch tensors alive at exit, in cycles and in a daemon
    # thread still updating sequences: the process must end cleanly.
    import os
    import subprocess

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], capture_output=True, text=True, timeout=120,
                           env=env)
        assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
        assert r.stdout.strip() == "done"
