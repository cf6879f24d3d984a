"""tseq.Tensor: conversion from numpy, the buffer protocol and DLPack (torch), the 15 element
types, zero copy in both directions (same data pointer), read-only views, the lifetime of the
source object (released exactly once, when the last holder goes), equality, pickling (also
across processes) and the errors for objects tseq cannot take."""

import ctypes
import multiprocessing
import pickle
import sys
import weakref

import numpy as np
import pytest
import torch
import torch.utils.dlpack

import tseq
from conftest import DTYPE_IDS, DTYPES, assert_tensor_equals, collect, double_last, ptr, sample

NON_STRING = [(n, d, c) for n, d, c in DTYPES if n != "string"]
DLPACK_TYPES = [(n, d, c) for n, d, c in NON_STRING if n != "bool"]


# --- the exception hierarchy ------------------------------------------------------------------

def test_exception_hierarchy():
    assert issubclass(tseq.Error, RuntimeError)
    for cls, builtin in [(tseq.TypeError, TypeError), (tseq.ShapeError, ValueError),
                         (tseq.IndexError, IndexError), (tseq.DeviceError, ValueError)]:
        assert issubclass(cls, tseq.Error)
        assert issubclass(cls, builtin)
        assert cls is not builtin
    assert issubclass(tseq.RunStopped, tseq.Error)
    assert not issubclass(tseq.RunStopped, (TypeError, ValueError, IndexError))


# --- the 15 element types ---------------------------------------------------------------------

@pytest.mark.parametrize("name,np_dtype,code", DTYPES, ids=DTYPE_IDS)
def test_dtype_table(name, np_dtype, code):
    a = sample(np_dtype, (2, 3), seed=code)
    t = tseq.Tensor(a)
    assert t.onnx_dtype == name
    assert t.dtype == np_dtype
    assert isinstance(t.dtype, np.dtype)
    assert t.shape == (2, 3)
    assert isinstance(t.shape, tuple)
    assert t.ndim == 2
    assert t.size == 6
    assert t.device == "cpu:0"
    assert_tensor_equals(t, a)
    assert t.tolist() == a.tolist()
    if name == "string":
        assert not t.is_adopted  # strings are copied into std::string
    else:
        assert t.nbytes == a.nbytes
        assert t.is_adopted
        assert t.data_ptr == ptr(a)
        view = np.asarray(t)
        assert ptr(view) == ptr(a)
        assert view.dtype == np_dtype


@pytest.mark.parametrize("name,np_dtype,code", DTYPES, ids=DTYPE_IDS)
def test_dtype_names_accepted_by_sequence(name, np_dtype, code):
    # An element type may be given by its ONNX name or by its numpy dtype.
    for spelling in (name, np_dtype):
        s = tseq.Sequence([], dtype=spelling)
        assert s.dtype == np_dtype
        assert s.onnx_dtype == name
        assert len(s) == 0


@pytest.mark.parametrize("np_dtype,name", [(np.longlong, "int64"), (np.ulonglong, "uint64"), (np.intc, "int32"),
                                           (np.uintc, "uint32"), (np.int_, "int64"), (np.single, "float")])
def test_platform_aliases(np_dtype, name):
    # numpy exports these with other buffer format characters ('q' and 'l' are both int64).
    a = np.arange(5).astype(np_dtype)
    t = tseq.Tensor(a)
    assert t.onnx_dtype == name
    assert t.data_ptr == ptr(a)
    np.testing.assert_array_equal(np.asarray(t), a)


def test_shapes_scalar_empty_and_high_rank():
    s = tseq.Tensor(np.array(2.5, dtype=np.float64))
    assert s.shape == () and s.ndim == 0 and s.size == 1
    assert np.asarray(s).item() == 2.5
    e = tseq.Tensor(np.zeros((0, 3), np.int32))
    assert e.shape == (0, 3) and e.size == 0 and e.nbytes == 0
    assert np.asarray(e).shape == (0, 3)
    h = np.arange(2 * 1 * 3 * 1 * 2 * 1 * 2 * 2, dtype=np.int16).reshape(2, 1, 3, 1, 2, 1, 2, 2)  # rank 8 > 6 inline
    t = tseq.Tensor(h)
    assert t.shape == h.shape and t.ndim == 8
    np.testing.assert_array_equal(np.asarray(t), h)


def test_numpy_scalars_and_memoryview():
    t = tseq.Tensor(np.float32(3.5))
    assert t.shape == () and t.onnx_dtype == "float"
    assert np.asarray(t).item() == 3.5
    t = tseq.Tensor(np.int64(-7))
    assert t.onnx_dtype == "int64" and np.asarray(t).item() == -7
    t = tseq.Tensor(np.bool_(True))
    assert t.onnx_dtype == "bool" and np.asarray(t).item() is True

    buf = bytearray(b"\x01\x02\x03\x04")
    t = tseq.Tensor(memoryview(buf))
    assert t.onnx_dtype == "uint8" and t.shape == (4,)
    assert t.data_ptr == ptr(np.frombuffer(buf, np.uint8))
    assert np.asarray(t).tolist() == [1, 2, 3, 4]

    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = tseq.Tensor(memoryview(a))
    assert t.onnx_dtype == "int32" and t.shape == (2, 3)
    assert t.data_ptr == ptr(a)

    t = tseq.Tensor(b"xyz")
    assert t.onnx_dtype == "uint8" and np.asarray(t).tolist() == list(b"xyz")


def test_tensor_from_tensor_shares_payload():
    a = np.arange(4.0)
    t = tseq.Tensor(a)
    u = tseq.Tensor(t)
    assert u.data_ptr == t.data_ptr == ptr(a)
    c = tseq.Tensor(t, copy=True)
    assert c.data_ptr != t.data_ptr
    assert c == t


# --- zero copy in and out ---------------------------------------------------------------------

def test_zero_copy_from_numpy_and_copy_flag():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = tseq.Tensor(a)
    assert t.is_adopted
    assert t.data_ptr == a.ctypes.data == a.__array_interface__["data"][0]
    c = tseq.Tensor(a, copy=True)
    assert c.data_ptr != a.ctypes.data
    assert not c.is_adopted
    assert_tensor_equals(c, a)
    # A copy does not follow later writes to the source; the adopted view does.
    a[0, 0] = 100.0
    assert np.asarray(t)[0, 0] == 100.0
    assert np.asarray(c)[0, 0] == 0.0


def test_offset_slice_is_zero_copy():
    base = np.arange(20, dtype=np.int64)
    a = base[5:15]  # C-contiguous, starts inside base's buffer
    t = tseq.Tensor(a)
    assert t.data_ptr == ptr(a) == ptr(base) + 5 * 8
    np.testing.assert_array_equal(np.asarray(t), np.arange(5, 15))


def test_read_only_source_is_taken_without_copy():
    a = np.arange(6, dtype=np.float64)
    a.flags.writeable = False
    t = tseq.Tensor(a)
    assert t.data_ptr == ptr(a)
    assert t.is_adopted


@pytest.mark.parametrize("make", [
    lambda: np.arange(12.0).reshape(3, 4)[:, ::2],
    lambda: np.arange(12, dtype=np.int32).reshape(3, 4).T,
    lambda: np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
    lambda: np.arange(10, dtype=np.int16)[::-1],
], ids=["strided", "transposed", "fortran", "reversed"])
def test_non_contiguous(make):
    a = make()
    assert not a.flags.c_contiguous
    with pytest.raises(tseq.ShapeError, match="(?i)contiguous") as info:
        tseq.Tensor(a)
    assert isinstance(info.value, ValueError)
    t = tseq.Tensor(a, copy=True)
    assert t.data_ptr != ptr(a)
    assert_tensor_equals(t, np.ascontiguousarray(a))


def test_numpy_out_is_a_read_only_view():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = tseq.Tensor(a)
    for view in (np.asarray(t), t.numpy(), np.array(t, copy=False)):
        assert ptr(view) == ptr(a)
        assert not view.flags.writeable
        assert view.shape == (2, 3) and view.dtype == np.int32
        with pytest.raises(ValueError):
            view[0, 0] = 1
        with pytest.raises(ValueError):
            view.flags.writeable = True
    assert a[0, 0] == 0
    # An explicit dtype converts.
    f = np.asarray(t, dtype=np.float64)
    assert f.dtype == np.float64
    np.testing.assert_array_equal(f, a)


def test_owned_tensor_view_is_read_only_too():
    t = tseq.Tensor(np.arange(3.0), copy=True)
    view = np.asarray(t)
    assert ptr(view) == t.data_ptr
    assert not view.flags.writeable


@pytest.mark.parametrize("name,np_dtype,code", DLPACK_TYPES, ids=[n for n, _, _ in DLPACK_TYPES])
def test_dlpack_out_to_numpy_and_torch(name, np_dtype, code):
    a = sample(np_dtype, (3, 2), seed=code)
    t = tseq.Tensor(a)
    assert t.__dlpack_device__() == (1, 0)  # kDLCPU, device 0
    n = np.from_dlpack(t)
    assert ptr(n) == ptr(a)
    np.testing.assert_array_equal(n, a)
    if name in ("uint16", "uint32", "uint64"):
        return  # torch 1.13 has no such types
    x = torch.from_dlpack(t)
    assert x.data_ptr() == ptr(a)
    assert tuple(x.shape) == (3, 2)
    np.testing.assert_array_equal(x.numpy(), a)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.int8, torch.int16,
                                   torch.int32, torch.int64, torch.uint8, torch.complex64, torch.complex128])
def test_torch_round_trip_zero_copy(dtype):
    x = (torch.arange(12) % 7).to(dtype).reshape(3, 4)
    t = tseq.Tensor(x)
    assert t.data_ptr == x.data_ptr()
    assert t.shape == (3, 4)
    assert t.is_adopted
    assert t.dtype == torch.empty(0, dtype=dtype).numpy().dtype
    y = torch.from_dlpack(t)
    assert y.data_ptr() == x.data_ptr()
    assert y.dtype == dtype
    assert torch.equal(y, x)
    np.testing.assert_array_equal(np.asarray(t), x.numpy())


def test_torch_copy_flag_and_non_contiguous():
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    c = tseq.Tensor(x, copy=True)
    assert c.data_ptr != x.data_ptr()
    np.testing.assert_array_equal(np.asarray(c), x.numpy())
    with pytest.raises(tseq.ShapeError):
        tseq.Tensor(x.t())


def test_torch_strides_and_bool():
    e = torch.zeros(3).expand(2, 3)  # stride 0
    with pytest.raises(tseq.ShapeError):
        tseq.Tensor(e)
    np.testing.assert_array_equal(np.asarray(tseq.Tensor(e, copy=True)), np.zeros((2, 3)))
    b = torch.tensor([True, False, True])  # torch 1.13 exports no bool through DLPack
    t = tseq.Tensor(b)
    assert t.onnx_dtype == "bool" and np.asarray(t).tolist() == [True, False, True]
    assert t.data_ptr == b.data_ptr()


def test_numpy_relaxed_and_zero_strides():
    # Strides of dimensions of extent 1 do not matter (numpy calls this C-contiguous).
    r = np.lib.stride_tricks.as_strided(np.arange(3.0), shape=(3, 1), strides=(8, 1000))
    assert r.flags.c_contiguous
    t = tseq.Tensor(r)
    assert t.data_ptr == ptr(r) and np.asarray(t).tolist() == [[0.0], [1.0], [2.0]]
    b = np.broadcast_to(np.arange(3.0), (2, 3))  # stride 0
    with pytest.raises(tseq.ShapeError):
        tseq.Tensor(b)
    np.testing.assert_array_equal(np.asarray(tseq.Tensor(b, copy=True)), b)
    z = np.lib.stride_tricks.as_strided(np.arange(3.0), shape=(0, 3), strides=(999, 8))
    assert tseq.Tensor(z).shape == (0, 3)


def test_torch_bfloat16_is_refused():
    with pytest.raises(tseq.TypeError):
        tseq.Tensor(torch.zeros(3, dtype=torch.bfloat16))


def test_bool_and_string_cannot_cross_dlpack():
    b = tseq.Tensor(np.array([True, False, True]))
    with pytest.raises(tseq.TypeError):
        b.__dlpack__()
    with pytest.raises(TypeError):
        torch.from_dlpack(b)
    assert np.asarray(b).tolist() == [True, False, True]  # the buffer route still works
    s = tseq.Tensor(np.array(["a", "b"]))
    with pytest.raises(tseq.TypeError):
        s.__dlpack__()


def test_from_dlpack_object_and_capsule():
    x = torch.arange(5, dtype=torch.int64)
    t = tseq.from_dlpack(x)
    assert t.data_ptr == x.data_ptr() and t.onnx_dtype == "int64"
    cap = torch.utils.dlpack.to_dlpack(x)
    u = tseq.from_dlpack(cap)
    assert u.data_ptr == x.data_ptr()
    np.testing.assert_array_equal(np.asarray(u), np.arange(5))
    with pytest.raises((tseq.Error, ValueError, TypeError)):
        tseq.from_dlpack(cap)  # consumed
    del cap
    collect()
    np.testing.assert_array_equal(np.asarray(u), np.arange(5))  # the capsule's deleter did not run
    # tseq's own export comes back as the same payload; tseq.Tensor takes capsules too.
    assert tseq.from_dlpack(u).data_ptr == u.data_ptr
    assert tseq.Tensor(torch.utils.dlpack.to_dlpack(x)).data_ptr == x.data_ptr()
    # A numpy array has __dlpack__ too.
    a = np.arange(3.0)
    assert tseq.from_dlpack(a).data_ptr == ptr(a)
    with pytest.raises((tseq.TypeError, TypeError)):
        tseq.from_dlpack([1, 2, 3])


def test_dlpack_capsule_released_once():
    x = torch.arange(4, dtype=torch.float32)
    wx = weakref.ref(x)
    cap = torch.utils.dlpack.to_dlpack(x)
    del x
    t = tseq.from_dlpack(cap)
    del cap
    collect()
    assert wx() is not None
    assert np.asarray(t).tolist() == [0.0, 1.0, 2.0, 3.0]
    del t
    collect()
    assert wx() is None


# --- the buffer protocol out ------------------------------------------------------------------

class PyBuffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.py_object), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p), ("shape", ctypes.POINTER(ctypes.c_ssize_t)),
                ("strides", ctypes.POINTER(ctypes.c_ssize_t)), ("suboffsets", ctypes.POINTER(ctypes.c_ssize_t)),
                ("internal", ctypes.c_void_p)]


_get_buffer = ctypes.pythonapi.PyObject_GetBuffer
_get_buffer.argtypes = [ctypes.py_object, ctypes.POINTER(PyBuffer), ctypes.c_int]
_get_buffer.restype = ctypes.c_int
_release_buffer = ctypes.pythonapi.PyBuffer_Release
_release_buffer.argtypes = [ctypes.POINTER(PyBuffer)]
PyBUF_STRIDES = 0x0010 | 0x0008
PyBUF_C_CONTIGUOUS = 0x0020 | PyBUF_STRIDES
PyBUF_F_CONTIGUOUS = 0x0040 | PyBUF_STRIDES
PyBUF_ANY_CONTIGUOUS = 0x0080 | PyBUF_STRIDES


def buffer_request(obj, flags):
    """(ndim, strides) of the buffer obj exports for `flags`, or the exception it raises."""
    view = PyBuffer()
    try:
        _get_buffer(obj, ctypes.byref(view), flags)
    except Exception as e:  # noqa: BLE001 - the refusal is the answer
        return e
    try:
        return view.ndim, [view.strides[i] for i in range(view.ndim)] if view.strides else None
    finally:
        _release_buffer(ctypes.byref(view))


def test_buffer_export_is_read_only():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = tseq.Tensor(a)
    m = memoryview(t)
    assert m.readonly
    assert m.format in ("i", "<i", "=i") and m.itemsize == 4
    assert m.shape == (2, 3) and m.strides == (12, 4)
    assert m.tolist() == a.tolist()
    assert bytes(t) == a.tobytes()
    assert np.frombuffer(t, dtype=np.int32).tolist() == list(range(6))
    with pytest.raises(TypeError):
        (ctypes.c_char * 24).from_buffer(t)  # a writable buffer is refused
    with pytest.raises(BufferError):
        memoryview(tseq.Tensor(np.array(["a", "b"])))  # strings have no plain memory
    m.release()


def test_buffer_export_honours_contiguity_requests():
    # A 2x3 row-major payload is C-contiguous, not Fortran-contiguous: a consumer asking for
    # Fortran order (Cython's double[::1, :], ...) must be refused, as numpy refuses it, or
    # it reads the elements in the wrong order.
    t = tseq.Tensor(np.zeros((2, 3)))
    assert buffer_request(t, PyBUF_C_CONTIGUOUS) == (2, [24, 8])
    assert buffer_request(t, PyBUF_ANY_CONTIGUOUS) == (2, [24, 8])
    assert isinstance(buffer_request(np.zeros((2, 3)), PyBUF_F_CONTIGUOUS), Exception)  # numpy's answer
    refused = buffer_request(t, PyBUF_F_CONTIGUOUS)
    assert isinstance(refused, (BufferError, ValueError)), refused
    # One dimension (or all but one of extent 1) is both.
    assert buffer_request(tseq.Tensor(np.zeros(3)), PyBUF_F_CONTIGUOUS) == (1, [8])


# --- a DLPack producer written with ctypes ---------------------------------------------------

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

KDL_CPU, KDL_CUDA = 1, 2
KDL_INT, KDL_BFLOAT = 0, 4


class Producer:
    """A DLManagedTensor over `array`'s memory (which must outlive it), on any DLPack device,
    in a capsule without a destructor; counts the calls of its deleter."""

    def __init__(self, array, shape, device_type=KDL_CPU, code=KDL_INT, bits=32, strides=None, byte_offset=0):
        self.calls = 0
        self.array = array
        self.shape = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * len(shape))(*strides)
        self.managed = DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = ptr(array)
        t.device = DLDevice(device_type, 0)
        t.ndim = len(shape)
        t.dtype = DLDataType(code, bits, 1)
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        if self.strides is not None:
            t.strides = ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = byte_offset

        def deleter(_):
            self.calls += 1

        self._deleter = DELETER(deleter)
        self.managed.deleter = self._deleter

    def capsule(self):
        return _capsule_new(ctypes.addressof(self.managed), b"dltensor", None)


def test_dlpack_producer_deleter_called_exactly_once():
    buf = np.arange(6, dtype=np.int32)
    p = Producer(buf, (2, 3))
    t = tseq.from_dlpack(p.capsule())
    assert t.data_ptr == ptr(buf) and t.shape == (2, 3) and t.onnx_dtype == "int32"
    assert np.asarray(t).tolist() == [[0, 1, 2], [3, 4, 5]]
    s = tseq.Sequence([t, t]).append(t)
    v = np.asarray(s[1])
    x = torch.from_dlpack(s[2])
    del t, s
    collect()
    assert p.calls == 0
    del v
    collect()
    assert p.calls == 0
    del x
    collect()
    assert p.calls == 1


def test_dlpack_producer_byte_offset_and_compact_strides():
    buf = np.arange(6, dtype=np.int32)
    p = Producer(buf, (2,), byte_offset=8)
    t = tseq.from_dlpack(p.capsule())
    assert t.data_ptr == ptr(buf) + 8
    assert np.asarray(t).tolist() == [2, 3]
    q = Producer(buf, (2, 3), strides=(3, 1))  # explicit row-major strides
    assert np.asarray(tseq.from_dlpack(q.capsule())).tolist() == [[0, 1, 2], [3, 4, 5]]
    collect()
    assert q.calls == 1


@pytest.mark.parametrize("kwargs,error", [
    (dict(shape=(3, 2), strides=(1, 3)), tseq.ShapeError),
    (dict(shape=(2, 3), code=KDL_BFLOAT, bits=16), tseq.TypeError),
    (dict(shape=(2, 3), code=KDL_INT, bits=12), tseq.TypeError),
    (dict(shape=(2, -3)), tseq.ShapeError),
], ids=["strided", "bfloat16", "bits-12", "negative-dim"])
def test_dlpack_producer_refused_keeps_ownership(kwargs, error):
    buf = np.arange(6, dtype=np.int32)
    p = Producer(buf, **kwargs)
    cap = p.capsule()
    with pytest.raises(error):
        tseq.from_dlpack(cap)
    collect()
    assert p.calls == 0  # on a refusal the producer still owns the tensor


def test_tensor_on_another_device():
    buf = np.arange(6, dtype=np.int32)  # host memory posing as cuda:0, so a wrong read cannot crash
    p = Producer(buf, (2, 3), device_type=KDL_CUDA)
    g = tseq.from_dlpack(p.capsule())
    assert g.device == "cuda:0"
    assert g.__dlpack_device__() == (KDL_CUDA, 0)
    assert g.shape == (2, 3) and g.onnx_dtype == "int32"
    assert repr(g)
    for read in (np.asarray, lambda t: t.numpy(), lambda t: t.tolist(), pickle.dumps,
                 lambda t: tseq.Tensor(t, copy=True)):
        with pytest.raises(tseq.DeviceError) as info:
            read(g)
        assert "cuda:0" in str(info.value)
    # Sequences move handles only: any device is fine, and one sequence may mix devices.
    s = tseq.Sequence([g, np.zeros((1,), np.int32)]).append(g)
    assert [t.device for t in s] == ["cuda:0", "cpu:0", "cuda:0"]
    assert s[0].data_ptr == ptr(buf)
    with pytest.raises(tseq.DeviceError):
        tseq.ops.concat_from_sequence(s, axis=0)
    with pytest.raises(tseq.DeviceError):
        tseq.ops.split_to_sequence(g)
    del g, s, info  # (info's traceback holds g in a frame)
    collect()
    assert p.calls == 1


# --- lifetime of the source object ------------------------------------------------------------

def test_numpy_source_lives_while_a_tensor_holds_it():
    a = np.arange(10, dtype=np.float32)
    wa = weakref.ref(a)
    t = tseq.Tensor(a)
    del a
    collect()
    assert wa() is not None
    np.testing.assert_array_equal(np.asarray(t), np.arange(10))
    del t
    collect()
    assert wa() is None


def test_source_released_exactly_once_refcount():
    a = np.arange(8, dtype=np.int32)
    base = sys.getrefcount(a)
    tensors = [tseq.Tensor(a) for _ in range(5)]
    s = tseq.Sequence(tensors + [a, a])
    s2 = s.append(a).erase(0)
    views = [np.asarray(t) for t in tensors]
    assert sys.getrefcount(a) > base
    del tensors, s, s2, views
    collect()
    assert sys.getrefcount(a) == base
    # A copy does not hold the source at all.
    c = tseq.Tensor(a, copy=True)
    assert sys.getrefcount(a) == base
    del c


def test_source_lives_while_a_sequence_holds_it():
    a = np.arange(3, dtype=np.int64)
    wa = weakref.ref(a)
    t = tseq.Tensor(a)
    del a
    s = tseq.Sequence([t])
    s2 = s.append(t)
    del t
    collect()
    assert wa() is not None
    del s
    collect()
    assert wa() is not None  # s2 still holds it twice
    e = s2.erase(0)
    del s2
    collect()
    assert wa() is not None
    assert np.asarray(e[0]).tolist() == [0, 1, 2]
    del e
    collect()
    assert wa() is None


def test_numpy_view_keeps_tensor_and_source_alive():
    a = np.arange(4, dtype=np.float64)
    wa = weakref.ref(a)
    v = np.asarray(tseq.Tensor(a))
    del a
    collect()
    assert wa() is not None
    assert v.tolist() == [0.0, 1.0, 2.0, 3.0]
    w = np.asarray(tseq.Sequence([v])[0])  # the view itself is taken without copy
    assert ptr(w) == ptr(v)
    del v
    collect()
    assert wa() is not None
    del w
    collect()
    assert wa() is None


def test_torch_source_lifetime():
    x = torch.arange(6, dtype=torch.float32)
    wx = weakref.ref(x)
    t = tseq.Tensor(x)
    del x
    collect()
    assert wx() is not None
    s = tseq.Sequence([t])
    del t
    collect()
    assert wx() is not None
    y = torch.from_dlpack(s[0])
    del s
    collect()
    assert wx() is not None
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    del y
    collect()
    assert wx() is None


def test_dlpack_consumer_keeps_source_alive():
    a = np.arange(5, dtype=np.int32)
    wa = weakref.ref(a)
    x = torch.from_dlpack(tseq.Tensor(a))
    n = np.from_dlpack(tseq.Tensor(a))
    del a
    collect()
    assert wa() is not None
    del x
    collect()
    assert wa() is not None
    assert n.tolist() == [0, 1, 2, 3, 4]
    del n
    collect()
    assert wa() is None


# --- strings ----------------------------------------------------------------------------------

@pytest.mark.parametrize("a", [np.array(["alpha", "", "gamma-ray", "δ"]),
                               np.array(["x", "yy", "zzz", "w"], dtype=object).reshape(2, 2)],
                         ids=["unicode", "object"])
def test_strings_are_copied(a):
    t = tseq.Tensor(a)
    assert t.onnx_dtype == "string"
    assert t.dtype == np.dtype(object)
    assert t.shape == a.shape
    assert not t.is_adopted
    out = np.asarray(t)
    assert out.dtype == np.dtype(object)
    assert out.tolist() == a.tolist()
    assert all(isinstance(v, str) for v in out.ravel())
    a[0] = "changed"  # t owns its strings
    assert np.asarray(t).ravel()[0] != "changed"


def test_string_equality_and_sequence():
    a = tseq.Tensor(np.array(["a", "b"]))
    b = tseq.Tensor(np.array(["a", "b"], dtype=object))
    assert a == b
    assert a != tseq.Tensor(np.array(["a", "c"]))
    s = tseq.Sequence([a, b])
    assert s.onnx_dtype == "string" and s.dtype == np.dtype(object)


# --- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("obj", [[1, 2, 3], 3, 2.5, None, object(), "text", {"a": 1}],
                         ids=["list", "int", "float", "None", "object", "str", "dict"])
def test_objects_without_a_protocol(obj):
    with pytest.raises(tseq.TypeError) as info:
        tseq.Tensor(obj)
    assert isinstance(info.value, TypeError)
    assert str(info.value)


@pytest.mark.parametrize("a", [
    np.array(["2020-01-01"], dtype="datetime64[D]"),
    np.array([1], dtype="timedelta64[s]"),
    np.zeros(2, dtype=[("x", np.int32), ("y", np.float32)]),
    np.arange(3, dtype=">i4"),
    np.arange(3, dtype=">f8"),
    np.zeros(2, dtype=np.longdouble),
    np.array([1, None], dtype=object),
], ids=["datetime64", "timedelta64", "structured", "big-endian-i4", "big-endian-f8", "longdouble", "object-non-str"])
def test_unsupported_numpy_dtypes(a):
    with pytest.raises(tseq.TypeError):
        tseq.Tensor(a)
    with pytest.raises(tseq.TypeError):
        tseq.Tensor(a, copy=True)


def test_misaligned_buffer_is_refused_or_correct():
    raw = np.zeros(4 * 4 + 1, dtype=np.uint8)
    a = raw[1:].view(np.int32)  # misaligned int32 (numpy allows it)
    a[:] = [1, 2, 3, 4]
    try:
        t = tseq.Tensor(a)
    except tseq.Error:
        pass
    else:
        assert np.asarray(t).tolist() == [1, 2, 3, 4]
    t = tseq.Tensor(a, copy=True)
    assert np.asarray(t).tolist() == [1, 2, 3, 4]


# --- equality ---------------------------------------------------------------------------------

def test_value_equality():
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    t = tseq.Tensor(a)
    same = tseq.Tensor(a.copy())
    assert (t == same) is True
    assert (t != same) is False
    assert t == t
    assert (t == tseq.Tensor(a.astype(np.int32))) is False          # dtype differs
    assert (t == tseq.Tensor(a.reshape(3, 2))) is False             # shape differs
    assert (t == tseq.Tensor(a.reshape(1, 2, 3))) is False          # rank differs
    b = a.copy()
    b[1, 2] = 99
    assert (t == tseq.Tensor(b)) is False                           # one value differs
    assert t != tseq.Tensor(b)
    assert tseq.Tensor(np.zeros((0, 2))) == tseq.Tensor(np.zeros((0, 2)))
    assert tseq.Tensor(np.zeros((0, 2))) != tseq.Tensor(np.zeros((2, 0)))


def test_equality_with_other_objects_is_false():
    t = tseq.Tensor(np.arange(3))
    assert not (t == "abc")
    assert t != None  # noqa: E711


def test_repr():
    t = tseq.Tensor(np.arange(3, dtype=np.int16))
    r = repr(t)
    assert r and "int16" in r


# --- pickling ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name,np_dtype,code", DTYPES, ids=DTYPE_IDS)
def test_pickle_round_trip(name, np_dtype, code):
    a = sample(np_dtype, (3, 2), seed=code + 10)
    t = tseq.Tensor(a)
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        u = pickle.loads(pickle.dumps(t, protocol=protocol))
        assert isinstance(u, tseq.Tensor)
        assert u == t
        assert u.onnx_dtype == name and u.shape == (3, 2)
        assert_tensor_equals(u, a)
        if name != "string":
            assert u.data_ptr != t.data_ptr  # the payload was copied


def test_pickle_scalar_and_empty():
    for a in (np.array(7, dtype=np.uint32), np.zeros((0, 4), np.float16)):
        u = pickle.loads(pickle.dumps(tseq.Tensor(a)))
        assert u.shape == a.shape and u.dtype == a.dtype
        assert u == tseq.Tensor(a)


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_pickle_through_multiprocessing(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip("no %s start method here" % method)
    s = tseq.Sequence([np.arange(3, dtype=np.float64), np.full((2, 2), 0.5)])
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(1) as pool:
        out, total = pool.apply_async(double_last, (s,)).get(timeout=60)
    assert total == 0 + 1 + 2 + 4 * 0.5
    assert isinstance(out, tseq.Sequence)
    assert len(out) == 3
    assert out[:2] == s
    np.testing.assert_array_equal(np.asarray(out[2]), np.full((2, 2), 1.0))


# --- no reference leaks on error paths ----------------------------------------------------------

F32 = np.zeros(2, np.float32)
I64 = np.zeros(2, np.int64)
NON_CONTIGUOUS = np.zeros((4, 4))[:, ::2]
BAD_OBJECTS = np.array(["a", 1], dtype=object)
SPLIT = np.array([5])


@pytest.mark.parametrize("obj,fail", [
    (NON_CONTIGUOUS, lambda: tseq.Tensor(NON_CONTIGUOUS)),
    (BAD_OBJECTS, lambda: tseq.Tensor(BAD_OBJECTS)),
    (F32, lambda: tseq.Sequence([F32, F32, I64])),
    (I64, lambda: tseq.Sequence([F32, I64])),
    (I64, lambda: tseq.Sequence([F32]).append(I64)),
    (F32, lambda: tseq.Sequence([F32]).insert(9, F32)),
    (F32, lambda: tseq.Sequence([F32]).set(-9, F32)),
    (F32, lambda: tseq.ops.sequence_insert(tseq.Sequence([F32]), F32, np.array([1.0]))),
    (SPLIT, lambda: tseq.ops.split_to_sequence(F32, SPLIT)),
], ids=["non-contiguous", "object-array", "mixed-first", "mixed-second", "append", "insert", "set",
        "bad-position", "bad-split"])
def test_failed_calls_release_their_arguments(obj, fail):
    base = sys.getrefcount(obj)
    for _ in range(20):
        with pytest.raises(tseq.Error):
            fail()
    collect()
    assert sys.getrefcount(obj) == base
