"""tseq.Sequence: construction and element-type inference, indexing and Python slice
semantics, iteration, persistent updates (append/insert/erase/set/+, each returning a new
version and leaving the old one unchanged), payload sharing (elements keep the data pointer of
the array put in), errors and their messages, equality, repr, and a Hypothesis state machine
checking many live versions against list models after every step."""

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import tseq
from conftest import assert_sequence_is, collect, ptr


def f32(*values):
    return np.array(values, dtype=np.float32)


# --- construction -----------------------------------------------------------------------------

def test_empty_default_is_float():
    s = tseq.Sequence()
    assert len(s) == 0
    assert s.dtype == np.float32
    assert s.onnx_dtype == "float"
    assert list(s) == []
    assert tseq.Sequence([]).dtype == np.float32


def test_dtype_inferred_from_first_element(arrays3):
    s = tseq.Sequence(arrays3)
    assert s.dtype == np.float32 and len(s) == 3
    assert_sequence_is(s, arrays3)
    i = tseq.Sequence([np.arange(3, dtype=np.int64)])
    assert i.dtype == np.int64 and i.onnx_dtype == "int64"


def test_explicit_dtype():
    assert tseq.Sequence([], dtype="int64").dtype == np.int64
    assert tseq.Sequence([], dtype=np.int32).dtype == np.int32
    assert tseq.Sequence([], dtype="double").dtype == np.float64
    assert tseq.Sequence([], dtype="string").dtype == np.dtype(object)
    s = tseq.Sequence([np.zeros(2, np.uint8)], dtype="uint8")
    assert s.dtype == np.uint8 and len(s) == 1
    with pytest.raises(tseq.TypeError):
        tseq.Sequence([np.zeros(2, np.float32)], dtype="int64")


def test_mixed_dtypes_raise():
    with pytest.raises(tseq.TypeError) as info:
        tseq.Sequence([np.zeros(2, np.float32), np.zeros(2, np.int64)])
    assert isinstance(info.value, TypeError)
    with pytest.raises(tseq.TypeError):
        tseq.Sequence([np.zeros(2, np.float32), np.zeros(2, np.float32), np.zeros(2, np.float64)])


def test_bad_elements_raise():
    with pytest.raises(tseq.TypeError):
        tseq.Sequence([np.zeros(2, np.float32), None])
    with pytest.raises(tseq.TypeError):
        tseq.Sequence([[1.0, 2.0]])
    with pytest.raises(TypeError):
        tseq.Sequence(5)  # not iterable


def test_shapes_may_differ_and_iterables_accepted(arrays3):
    s = tseq.Sequence(a for a in arrays3)  # a generator
    assert_sequence_is(s, arrays3)
    t = tseq.Sequence(tuple(arrays3))
    assert_sequence_is(t, arrays3)
    assert [e.shape for e in s] == [(2,), (2, 3), (1, 1, 4)]


def test_elements_are_tensors_sharing_the_payload(arrays3):
    s = tseq.Sequence(arrays3)
    for i, a in enumerate(arrays3):
        assert isinstance(s[i], tseq.Tensor)
        assert s[i].data_ptr == ptr(a)
        assert ptr(np.asarray(s[i])) == ptr(a)
    x = torch.arange(4, dtype=torch.float32)
    u = s.append(x)
    assert u[-1].data_ptr == x.data_ptr()
    t = tseq.Tensor(np.ones(3, np.float32))
    assert s.append(t)[3].data_ptr == t.data_ptr


def test_non_contiguous_element_raises():
    with pytest.raises(tseq.ShapeError):
        tseq.Sequence([np.arange(12.0).reshape(3, 4)[:, ::2]])
    with pytest.raises(tseq.ShapeError):
        tseq.Sequence([np.zeros(3)]).append(np.arange(12.0).reshape(3, 4).T)


# --- indexing ---------------------------------------------------------------------------------

def test_indexing_and_negative_indices(arrays3):
    s = tseq.Sequence(arrays3)
    for i in range(-3, 3):
        assert s[i].data_ptr == ptr(arrays3[i])
    assert s[np.int64(1)].data_ptr == ptr(arrays3[1])  # any __index__


@pytest.mark.parametrize("i", [3, 4, -4, 100, -100, 2**62])
def test_index_out_of_range(arrays3, i):
    s = tseq.Sequence(arrays3)
    with pytest.raises(tseq.IndexError) as info:
        s[i]
    assert isinstance(info.value, IndexError)
    assert str(i) in str(info.value)


def test_index_on_empty():
    with pytest.raises(IndexError):
        tseq.Sequence()[0]
    with pytest.raises(IndexError):
        tseq.Sequence()[-1]


def test_index_type_errors(arrays3):
    s = tseq.Sequence(arrays3)
    with pytest.raises(TypeError):
        s[1.0]
    with pytest.raises(TypeError):
        s["0"]


def test_iteration_and_reversed(arrays3):
    s = tseq.Sequence(arrays3)
    assert [t.data_ptr for t in s] == [ptr(a) for a in arrays3]
    assert [t.data_ptr for t in reversed(s)] == [ptr(a) for a in reversed(arrays3)]
    assert len(list(iter(tseq.Sequence()))) == 0
    it = iter(s)
    next(it)
    s2 = s.erase(0)  # an update does not disturb an iterator on the old version
    assert [t.data_ptr for t in it] == [ptr(a) for a in arrays3[1:]]
    assert len(s2) == 2


def test_iterators_keep_their_sequence_alive(arrays3):
    it = iter(tseq.Sequence(arrays3))  # the only reference to the sequence
    rit = reversed(tseq.Sequence(arrays3).append(arrays3[0]))
    collect()
    assert [t.data_ptr for t in it] == [ptr(a) for a in arrays3]
    assert [t.data_ptr for t in rit] == [ptr(a) for a in [arrays3[0]] + arrays3[::-1]]


BOUNDS = [None, -7, -4, -3, -2, -1, 0, 1, 2, 3, 4, 7]


def test_slices_match_python_lists():
    arrays = [np.full(2, k, np.float32) for k in range(5)]
    s = tseq.Sequence(arrays)
    for step in (None, 1, 2, 3, -1, -2, 6, -6):
        for a in BOUNDS:
            for b in BOUNDS:
                got = s[a:b:step]
                expected = arrays[a:b:step]
                assert isinstance(got, tseq.Sequence)
                assert got.dtype == np.float32
                assert [t.data_ptr for t in got] == [ptr(x) for x in expected], (a, b, step)


def test_slice_of_empty_and_huge_bounds():
    e = tseq.Sequence([], dtype="int32")
    assert len(e[1:5]) == 0 and e[1:5].dtype == np.int32
    arrays = [np.arange(k + 1) for k in range(4)]
    s = tseq.Sequence(arrays)
    assert_sequence_is(s[-(2**70):2**70], arrays)
    assert_sequence_is(s[2**63:], [])
    assert_sequence_is(s[::-(2**70)], arrays[::-(2**70)])
    assert_sequence_is(s[3:1], [])
    emptied = s[2:2]
    assert emptied.dtype == np.int64 and len(emptied) == 0


def test_slice_step_zero(arrays3):
    with pytest.raises(ValueError):
        tseq.Sequence(arrays3)[::0]


def test_contains(arrays3):
    s = tseq.Sequence(arrays3)
    assert tseq.Tensor(arrays3[1]) in s
    assert tseq.Tensor(arrays3[1].copy()) in s  # value equality, like list
    assert tseq.Tensor(np.full((2,), 9.0, np.float32)) not in s


# --- persistent updates -----------------------------------------------------------------------

def test_append_leaves_original(arrays3):
    s = tseq.Sequence(arrays3[:2])
    t = s.append(arrays3[2])
    assert_sequence_is(s, arrays3[:2])
    assert_sequence_is(t, arrays3)
    assert not t.is_same(s)
    with pytest.raises(tseq.TypeError):
        s.append(np.zeros(2, np.int64))
    assert_sequence_is(s, arrays3[:2])


def test_type_error_messages_name_the_python_operation():
    # Like the IndexErrors ("Sequence.insert: position 7 is out of range [-3, 3] ..."), the
    # TypeErrors of the Sequence methods name the Python method and both element types.
    s = tseq.Sequence([np.zeros(1, np.float32)])
    bad = np.zeros(1, np.int64)
    for method, call in [("Sequence.append", lambda: s.append(bad)), ("Sequence.insert", lambda: s.insert(0, bad)),
                         ("Sequence.set", lambda: s.set(0, bad))]:
        with pytest.raises(tseq.TypeError) as info:
            call()
        message = str(info.value)
        assert "int64" in message and "float" in message, message
        assert method in message, message


def test_append_to_typed_empty():
    e = tseq.Sequence([], dtype="int64")
    with pytest.raises(tseq.TypeError):
        e.append(np.zeros(1, np.float32))
    a = np.arange(3)
    assert_sequence_is(e.append(a), [a], dtype=np.int64)
    assert len(e) == 0


@pytest.mark.parametrize("i", list(range(-3, 4)))
def test_insert_positions(arrays3, i):
    s = tseq.Sequence(arrays3)
    x = np.full((5,), 7.0, np.float32)
    model = list(arrays3)
    model.insert(i + 3 if i < 0 else i, x)  # ONNX: p < 0 means p + n; -1 inserts before the last
    assert_sequence_is(s.insert(i, x), model)
    assert_sequence_is(s, arrays3)


@pytest.mark.parametrize("i", [4, -4, 10, -10])
def test_insert_out_of_range(arrays3, i):
    s = tseq.Sequence(arrays3)
    with pytest.raises(tseq.IndexError) as info:
        s.insert(i, np.zeros(1, np.float32))
    assert str(i) in str(info.value)
    assert "[-3, 3]" in str(info.value)
    assert_sequence_is(s, arrays3)


def test_insert_into_empty():
    e = tseq.Sequence()
    a = np.zeros(2, np.float32)
    assert_sequence_is(e.insert(0, a), [a])
    for i in (1, -1):
        with pytest.raises(IndexError):
            e.insert(i, a)


@pytest.mark.parametrize("i", list(range(-3, 3)))
def test_erase_positions(arrays3, i):
    s = tseq.Sequence(arrays3)
    model = list(arrays3)
    del model[i]
    assert_sequence_is(s.erase(i), model)
    assert_sequence_is(s, arrays3)


def test_erase_default_is_last(arrays3):
    s = tseq.Sequence(arrays3)
    assert_sequence_is(s.erase(), arrays3[:2])
    assert_sequence_is(s.erase().erase().erase(), [])
    assert s.erase().erase().erase().dtype == np.float32


@pytest.mark.parametrize("i", [3, -4, 50])
def test_erase_out_of_range(arrays3, i):
    s = tseq.Sequence(arrays3)
    with pytest.raises(tseq.IndexError) as info:
        s.erase(i)
    assert str(i) in str(info.value)
    assert "[-3, 2]" in str(info.value)


def test_erase_on_empty():
    with pytest.raises(tseq.IndexError):
        tseq.Sequence().erase()
    with pytest.raises(tseq.IndexError):
        tseq.Sequence().erase(0)


@pytest.mark.parametrize("i", list(range(-3, 3)))
def test_set_positions(arrays3, i):
    s = tseq.Sequence(arrays3)
    x = np.full((1,), 4.0, np.float32)
    model = list(arrays3)
    model[i] = x
    assert_sequence_is(s.set(i, x), model)
    assert_sequence_is(s, arrays3)


def test_set_errors(arrays3):
    s = tseq.Sequence(arrays3)
    for i in (3, -4):
        with pytest.raises(tseq.IndexError) as info:
            s.set(i, np.zeros(1, np.float32))
        assert str(i) in str(info.value)
        assert "[-3, 2]" in str(info.value)
    with pytest.raises(tseq.TypeError):
        s.set(0, np.zeros(1, np.int32))
    with pytest.raises(IndexError):
        tseq.Sequence().set(0, np.zeros(1, np.float32))
    assert_sequence_is(s, arrays3)


def test_concatenation(arrays3):
    a = tseq.Sequence(arrays3[:1])
    b = tseq.Sequence(arrays3[1:])
    assert_sequence_is(a + b, arrays3)
    assert_sequence_is(b + a, arrays3[1:] + arrays3[:1])
    assert_sequence_is(a + a, arrays3[:1] * 2)
    assert_sequence_is(a + tseq.Sequence(), arrays3[:1])
    assert_sequence_is(tseq.Sequence() + b, arrays3[1:])
    assert_sequence_is(a, arrays3[:1])
    with pytest.raises(tseq.TypeError):
        a + tseq.Sequence([np.zeros(1, np.int64)])
    with pytest.raises(tseq.TypeError):
        tseq.Sequence([], dtype="int64") + tseq.Sequence()
    with pytest.raises(TypeError):
        a + [np.zeros(1, np.float32)]


def test_concatenation_past_the_maximum_size_is_a_length_error():
    # Sharing makes a sequence of 2^k tensors cost k concatenations; past max_size the
    # concatenation names both sizes (tseq::LengthError, also a builtin OverflowError).
    s = tseq.Sequence([np.zeros(1, np.float32)])
    with pytest.raises(tseq.LengthError, match=r"exceed max_size\(\)") as e:
        for _ in range(80):
            s = s + s
    assert isinstance(e.value, OverflowError) and isinstance(e.value, tseq.Error)
    assert len(s) >= 2**50


def test_is_same(arrays3):
    s = tseq.Sequence(arrays3)
    assert s.is_same(s)
    alias = s
    assert alias.is_same(s)
    copy = tseq.Sequence(list(s))
    assert copy == s
    assert not copy.is_same(s)
    assert not s.append(arrays3[0]).is_same(s)
    assert not s.erase().is_same(s)
    assert not tseq.Sequence().is_same(tseq.Sequence([], dtype="int64"))


def test_sequence_is_immutable(arrays3):
    s = tseq.Sequence(arrays3)
    with pytest.raises(TypeError):
        s[0] = np.zeros(2, np.float32)
    with pytest.raises(TypeError):
        del s[0]
    with pytest.raises(AttributeError):
        s.dtype = np.int64
    assert_sequence_is(s, arrays3)


def test_updates_accept_index_like(arrays3):
    s = tseq.Sequence(arrays3)
    x = np.zeros(1, np.float32)
    assert_sequence_is(s.insert(np.int32(1), x), [arrays3[0], x] + arrays3[1:])
    assert_sequence_is(s.erase(np.int64(0)), arrays3[1:])
    with pytest.raises(TypeError):
        s.erase(1.5)


# --- equality and repr ------------------------------------------------------------------------

def test_equality():
    a = [np.arange(3, dtype=np.int64), np.arange(4, dtype=np.int64)]
    s = tseq.Sequence(a)
    assert (s == tseq.Sequence([x.copy() for x in a])) is True
    assert (s != tseq.Sequence([x.copy() for x in a])) is False
    assert s != tseq.Sequence(a[:1])
    assert s != tseq.Sequence(a[::-1])
    assert s != tseq.Sequence([x.astype(np.int32) for x in a])
    b = [x.copy() for x in a]
    b[1][0] = -1
    assert s != tseq.Sequence(b)
    assert tseq.Sequence() == tseq.Sequence()
    assert tseq.Sequence() != tseq.Sequence([], dtype="int64")
    assert s == s.append(a[0]).erase()
    assert not (s == a)  # a list is not a Sequence


def test_repr_contains_dtype():
    r = repr(tseq.Sequence([np.zeros(2, np.int64)]))
    assert r and "int64" in r
    r = repr(tseq.Sequence([], dtype="uint16"))
    assert r and "uint16" in r
    r = repr(tseq.Sequence([np.zeros(2, np.float32)]))
    assert "float" in r


def test_pickle_sequence():
    import pickle

    arrays = [np.arange(3, dtype=np.uint16), np.zeros((0, 2), np.uint16), np.full((2, 2), 9, np.uint16)]
    s = tseq.Sequence(arrays)
    u = pickle.loads(pickle.dumps(s))
    assert isinstance(u, tseq.Sequence)
    assert u == s and not u.is_same(s)
    assert u.dtype == np.uint16
    assert [t.shape for t in u] == [(3,), (0, 2), (2, 2)]
    assert all(x.data_ptr != ptr(a) for x, a in zip(u, arrays) if a.size)
    e = pickle.loads(pickle.dumps(tseq.Sequence([], dtype="complex64")))
    assert len(e) == 0 and e.dtype == np.complex64
    strings = tseq.Sequence([np.array(["a", "bc"]), np.array([["d"]])])
    assert pickle.loads(pickle.dumps(strings)) == strings


def test_many_versions_share_without_leaking():
    import weakref

    a = np.arange(5, dtype=np.float32)
    wa = weakref.ref(a)
    s = tseq.Sequence([a])
    del a
    versions = [s]
    for k in range(200):
        versions.append(versions[-1].append(versions[0][0]))
    assert len(versions[-1]) == 201
    assert all(t.data_ptr == s[0].data_ptr for t in versions[-1])
    del versions, s
    collect()
    assert wa() is None


# --- the state machine ------------------------------------------------------------------------

# Positions near the ends of short sequences, and anywhere in the deep ones (up to 2,500).
POSITIONS = st.one_of(st.integers(-40, 40), st.integers(-2600, 2600))


class VersionsMachine(RuleBasedStateMachine):
    """Several live versions, each derived from a random live one; every version is checked
    against its list model (element identity by data pointer) after every step."""

    MAX_VERSIONS = 8

    def __init__(self):
        super().__init__()
        self.counter = 0
        self.versions = [(tseq.Sequence([], dtype="float"), [])]

    def fresh(self, n=3):
        self.counter += 1
        return np.full((n,), self.counter, dtype=np.float32)

    def pick(self, k):
        return self.versions[k % len(self.versions)]

    def keep(self, seq, model):
        self.versions.append((seq, model))
        if len(self.versions) > self.MAX_VERSIONS:
            self.versions.pop(0)

    @rule(k=st.integers(0, 63), n=st.integers(1, 4))
    def append(self, k, n):
        s, m = self.pick(k)
        x = self.fresh(n)
        self.keep(s.append(x), m + [x])

    @rule(k=st.integers(0, 63), count=st.integers(0, 12))
    def construct(self, k, count):
        xs = [self.fresh() for _ in range(count)]
        self.keep(tseq.Sequence(xs), xs)

    @rule(count=st.integers(33, 1100))
    def construct_deep(self, count):
        # Past one leaf (32 tensors) and, above 1,024, past two levels: updates then copy
        # inner nodes too. Rows of one array: contiguous, each with its own data pointer.
        self.counter += 1
        rows = list(np.full((count, 2), self.counter, dtype=np.float32))
        self.keep(tseq.Sequence(rows), rows)

    @rule(k=st.integers(0, 63), i=POSITIONS)
    def insert(self, k, i):
        s, m = self.pick(k)
        x = self.fresh()
        n = len(m)
        if -n <= i <= n:
            mm = list(m)
            mm.insert(i + n if i < 0 else i, x)
            self.keep(s.insert(i, x), mm)
        else:
            with pytest.raises(tseq.IndexError):
                s.insert(i, x)

    @rule(k=st.integers(0, 63), i=POSITIONS)
    def erase(self, k, i):
        s, m = self.pick(k)
        n = len(m)
        if -n <= i < n:
            mm = list(m)
            del mm[i]
            self.keep(s.erase(i), mm)
        else:
            with pytest.raises(tseq.IndexError):
                s.erase(i)

    @rule(k=st.integers(0, 63))
    def erase_last(self, k):
        s, m = self.pick(k)
        if m:
            self.keep(s.erase(), m[:-1])
        else:
            with pytest.raises(tseq.IndexError):
                s.erase()

    @rule(k=st.integers(0, 63), i=POSITIONS)
    def set(self, k, i):
        s, m = self.pick(k)
        x = self.fresh(1)
        n = len(m)
        if -n <= i < n:
            mm = list(m)
            mm[i] = x
            self.keep(s.set(i, x), mm)
        else:
            with pytest.raises(tseq.IndexError):
                s.set(i, x)

    @rule(k=st.integers(0, 63), a=st.one_of(st.none(), st.integers(-45, 45)),
          b=st.one_of(st.none(), st.integers(-45, 45)),
          step=st.one_of(st.none(), st.sampled_from([1, 1, 2, 3, -1, -2])))
    def slice(self, k, a, b, step):
        s, m = self.pick(k)
        self.keep(s[a:b:step], m[a:b:step])

    @rule(j=st.integers(0, 63), k=st.integers(0, 63))
    def concat(self, j, k):
        s1, m1 = self.pick(j)
        s2, m2 = self.pick(k)
        if len(m1) + len(m2) <= 2500:
            self.keep(s1 + s2, m1 + m2)

    @rule(k=st.integers(0, 63), i=POSITIONS)
    def read(self, k, i):
        s, m = self.pick(k)
        n = len(m)
        if -n <= i < n:
            t = s[i]
            assert t.data_ptr == ptr(m[i])
            np.testing.assert_array_equal(np.asarray(t), m[i])
        else:
            with pytest.raises(tseq.IndexError):
                s[i]

    @precondition(lambda self: len(self.versions) > 1)
    @rule(k=st.integers(0, 63))
    def drop(self, k):
        del self.versions[k % len(self.versions)]

    @invariant()
    def every_version_matches_its_model(self):
        for s, m in self.versions:
            assert len(s) == len(m)
            assert s.dtype == np.float32
            assert [t.data_ptr for t in s] == [ptr(x) for x in m]

    @invariant()
    def equality_follows_the_models(self):
        if len(self.versions) >= 2:
            (s1, m1), (s2, m2) = self.versions[-2], self.versions[-1]
            same = len(m1) == len(m2) and all(np.array_equal(x, y) for x, y in zip(m1, m2))
            assert (s1 == s2) == same


VersionsMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None,
                                             database=None,  # no example database in the tree
                                             suppress_health_check=[HealthCheck.too_slow])
TestVersions = VersionsMachine.TestCase


def test_updates_on_a_long_sequence_are_cheap():
    # Persistent updates are O(log n): 1,000 updates in the middle of 10^6 tensors must not
    # copy the sequence (an O(n) copy per update would take many seconds).
    import time

    t = tseq.Tensor(np.zeros(1, np.float32))
    big = tseq.Sequence([t] * 1_000_000)
    x = np.ones(1, np.float32)
    start = time.monotonic()
    s = big
    for i in range(1000):
        s = s.insert(500_000 + i, x).erase(1000 + i)
        s = s.set(-1 - i, x)
    middle = s[200_000:800_000]
    elapsed = time.monotonic() - start
    assert len(s) == 1_000_000 and len(big) == 1_000_000 and len(middle) == 600_000
    assert s[500_000 - 1000].data_ptr == ptr(x) and big[500_000].data_ptr == t.data_ptr
    assert elapsed < 2.0, elapsed
