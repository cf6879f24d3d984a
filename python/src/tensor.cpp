// tseq.Tensor: conversions from and to Python objects (buffer protocol, DLPack, numpy strings)
// and the class itself. The zero-copy rules are in docs/python.md.

#include <dlpack/dlpack.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "convert.hpp"
#include "tseq/detail/checked.hpp"
#include "tseq/dlpack.hpp"

namespace tseq::python {

namespace {

// Runs release(arg) with the GIL held (skipped once the interpreter is finalising: the process
// is ending) and without nesting: a release that happens inside another one on this thread (an
// adopted array whose base is a tseq.Tensor whose source is an array ..., one level per round
// trip through numpy) is queued and run by the outermost, so that freeing a chain of any length
// takes constant stack. Every owner of a Python object releases through here.
void release_python(void (*release)(void*), void* arg) noexcept {
  with_gil([release, arg] {
    struct Pending {
      void (*release)(void*);
      void* arg;
    };
    thread_local bool releasing = false;
    thread_local std::vector<Pending> pending;
    if (releasing) {
      try {
        pending.push_back({release, arg});
      } catch (...) {  // no memory for the queue: release now, nested (correct, only deeper)
        release(arg);
      }
      return;
    }
    releasing = true;
    release(arg);
    while (!pending.empty()) {
      const Pending p = pending.back();
      pending.pop_back();
      p.release(p.arg);  // may queue more
    }
    releasing = false;
  });
}

void decref(void* o) noexcept { Py_DECREF(static_cast<PyObject*>(o)); }
void release_buffer(void* v) noexcept {
  PyBuffer_Release(static_cast<Py_buffer*>(v));
  delete static_cast<Py_buffer*>(v);  // (at interpreter exit: left, with its exporter)
}

// The owner of an adopted payload that Python keeps alive: a pointer released once, through
// release_python, when the last handle goes. Move-only.
template <void (*Release)(void*) noexcept>
class PythonOwner {
 public:
  explicit PythonOwner(void* p) noexcept : p_(p) {}
  PythonOwner(PythonOwner&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  PythonOwner(const PythonOwner&) = delete;
  PythonOwner& operator=(const PythonOwner&) = delete;
  PythonOwner& operator=(PythonOwner&&) = delete;
  ~PythonOwner() {
    if (p_ != nullptr) release_python(Release, p_);
  }

 private:
  void* p_;
};
using BufferOwner = PythonOwner<&release_buffer>;  // holds a Py_buffer (and so its exporter)
using ObjectOwner = PythonOwner<&decref>;          // holds a reference to an ndarray

// A DLManagedTensor in front of a producer's: its deleter calls the producer's with the GIL
// held (numpy's deleter, for one, decrements a Python reference without taking the GIL).
struct GilShim {
  DLManagedTensor managed;  // first: the shim's address is the managed tensor's
  DLManagedTensor* original;
};
static_assert(std::is_standard_layout_v<GilShim>);

void delete_shim(DLManagedTensor* m) noexcept {
  auto* shim = reinterpret_cast<GilShim*>(m);
  DLManagedTensor* o = shim->original;
  delete shim;
  if (o->deleter != nullptr) {
    release_python([](void* m) { static_cast<DLManagedTensor*>(m)->deleter(static_cast<DLManagedTensor*>(m)); }, o);
  }
}

// The deleter tseq::to_dlpack gives its exports: those need no GIL, and tseq::from_dlpack gives
// the original tensor back for them, without an allocation.
auto tseq_export_deleter() {
  static const auto deleter = [] {
    DLManagedTensor* probe = to_dlpack(Tensor::scalar(0.f));
    auto d = probe->deleter;
    d(probe);
    return d;
  }();
  return deleter;
}

std::string type_name(py::handle obj) { return py::str(py::type::handle_of(obj).attr("__name__")); }

// The element type of a buffer's struct format and item size; TypeError for the rest.
DataType dtype_from_format(const char* format, Py_ssize_t itemsize, std::string_view what) {
  std::string_view f = format == nullptr ? "B" : format;
  const std::string shown(f);
  auto bad = [&](const std::string& why) -> DataType {
    throw TypeError(std::string(what) + ": a buffer of format '" + shown + "' (item size " + std::to_string(itemsize) +
                    ") " + why + "; tseq takes the 15 ONNX element types: " + valid_dtypes());
  };
  if (!f.empty() && (f[0] == '>' || f[0] == '!') && itemsize > 1) return bad("is big-endian");
  if (!f.empty() && (f[0] == '@' || f[0] == '=' || f[0] == '<' || f[0] == '>' || f[0] == '!')) f.remove_prefix(1);
  DataType t{};
  if (f == "?") {
    t = DataType::Bool;
  } else if (f == "e") {
    t = DataType::Float16;
  } else if (f == "f") {
    t = DataType::Float;
  } else if (f == "d") {
    t = DataType::Double;
  } else if (f == "Zf") {
    t = DataType::Complex64;
  } else if (f == "Zd") {
    t = DataType::Complex128;
  } else if (f.size() == 1 && std::string_view("bhilq").find(f[0]) != std::string_view::npos) {
    t = dtype_with(DTypeKind::signed_integer, static_cast<std::size_t>(itemsize));
  } else if (f.size() == 1 && std::string_view("BHILQ").find(f[0]) != std::string_view::npos) {
    t = dtype_with(DTypeKind::unsigned_integer, static_cast<std::size_t>(itemsize));
  }
  if (!is_valid(t)) return bad("is not one of them");
  if (static_cast<Py_ssize_t>(dtype_size(t)) != itemsize) return bad("has an item size that does not match it");
  return t;
}

// numpy arrays of kind U (str), S (bytes) or O (objects that must be str or bytes): copied
// into a string tensor, UTF-8.
Tensor strings_from_array(const py::array& a, std::string_view what) {
  std::vector<std::int64_t> dims(a.shape(), a.shape() + a.ndim());
  TensorBuffer b(DataType::String, Shape(std::span<const std::int64_t>(dims)));
  // ndarray's own methods, not a subclass's (whose tolist could return anything).
  const py::object ndarray = py::module_::import("numpy").attr("ndarray");
  const py::object items = ndarray.attr("tolist")(ndarray.attr("ravel")(a, "C"));
  auto out = b.values<std::string>();
  if (!PyList_CheckExact(items.ptr()) || static_cast<std::size_t>(PyList_GET_SIZE(items.ptr())) != out.size()) {
    throw TypeError(std::string(what) + ": the array's elements could not be listed");
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    PyObject* item = PyList_GET_ITEM(items.ptr(), static_cast<Py_ssize_t>(i));
    Py_ssize_t n = 0;
    if (PyUnicode_Check(item)) {
      const char* s = PyUnicode_AsUTF8AndSize(item, &n);
      if (s == nullptr) throw py::error_already_set();
      out[i].assign(s, static_cast<std::size_t>(n));
    } else if (PyBytes_Check(item)) {
      char* s = nullptr;
      if (PyBytes_AsStringAndSize(item, &s, &n) != 0) throw py::error_already_set();
      out[i].assign(s, static_cast<std::size_t>(n));
    } else {
      throw TypeError(std::string(what) + ": element " + std::to_string(i) + " of an object array is a " +
                      type_name(item) + "; a string tensor holds str or bytes");
    }
  }
  return std::move(b).freeze();
}

// A tseq-owned copy of t's payload (host memory).
Tensor deep_copy(const Tensor& t) {
  TensorBuffer b(t.dtype(), t.shape());
  if (t.dtype() == DataType::String) {
    std::copy(t.values<std::string>().begin(), t.values<std::string>().end(), b.values<std::string>().begin());
  } else if (t.size() > 0) {
    const auto bytes = t.raw_data();
    std::memcpy(b.data(), bytes.data(), bytes.size());
  }
  return std::move(b).freeze();
}

// A torch.Tensor of dtype torch.bool (checked by name: torch need not be imported).
bool is_torch_bool(py::handle obj) {
  if (py::str(py::type::handle_of(obj).attr("__module__")).cast<std::string>().rfind("torch", 0) != 0) return false;
  return py::hasattr(obj, "dtype") && py::str(obj.attr("dtype")).cast<std::string>() == "torch.bool";
}

void check_bools(const void* data, std::size_t n, std::string_view what) {
  tseq::detail::check_bool_bytes(data, n, what, " (copy=True normalises it)");
}

// Host memory must be aligned for its element type to be adopted.
void check_aligned(const void* data, DataType t, std::string_view what) {
  const std::size_t a = dtype_alignment(t);
  if (reinterpret_cast<std::uintptr_t>(data) % a != 0) {
    throw ShapeError(std::string(what) + ": the memory is not aligned for " + dtype_name(t) + " (" + std::to_string(a) +
                     " bytes); copy=True copies it");
  }
}

Tensor from_buffer(py::handle obj, bool copy, std::string_view what) {
  auto view = std::make_unique<Py_buffer>();
  if (PyObject_GetBuffer(obj.ptr(), view.get(), PyBUF_RECORDS_RO) != 0) throw py::error_already_set();
  BufferOwner owner(view.get());  // releases the view on every path below
  Py_buffer* v = view.release();
  const DataType t = dtype_from_format(v->format, v->itemsize, what);
  std::vector<std::int64_t> dims(static_cast<std::size_t>(v->ndim));
  for (int d = 0; d < v->ndim; ++d) dims[static_cast<std::size_t>(d)] = v->shape[d];
  Shape shape{std::span<const std::int64_t>(dims)};
  const bool contiguous = PyBuffer_IsContiguous(v, 'C') != 0;
  if (copy) {
    TensorBuffer b(t, std::move(shape));
    if (v->len > 0 && PyBuffer_ToContiguous(b.data(), v, v->len, 'C') != 0) throw py::error_already_set();
    if (t == DataType::Bool) {
      for (bool& x : b.values<bool>()) x = reinterpret_cast<const unsigned char&>(x) != 0;  // bytes 0/1
    }
    return std::move(b).freeze();
  }
  if (!contiguous) {
    std::string strides;
    for (int d = 0; d < v->ndim; ++d) strides += (d > 0 ? ", " : "") + std::to_string(v->strides[d]);
    throw ShapeError(std::string(what) + ": the " + type_name(obj) + " is not C-contiguous (shape " + to_string(shape) +
                     ", strides in bytes [" + strides +
                     "]); tseq adopts only compact row-major memory: pass copy=True, or numpy.ascontiguousarray()");
  }
  if (v->len > 0) check_aligned(v->buf, t, what);
  if (t == DataType::Bool) check_bools(v->buf, static_cast<std::size_t>(v->len), what);
  return Tensor::adopt(t, std::move(shape), v->buf, Device::cpu(), std::move(owner));
}

// A numpy array, read through numpy's own struct (no buffer-protocol round trip): the common
// input, so its cost is one header allocation. Strided arrays and copies take the buffer path.
Tensor from_ndarray(const py::array& a, bool copy, std::string_view what) {
  const auto* arr = py::detail::array_proxy(a.ptr());
  const auto* descr = py::detail::array_descriptor_proxy(arr->descr);
  const DataType t = dtype_from_kind(descr->kind, static_cast<std::size_t>(descr->elsize));
  if (!is_valid(t) || descr->names != nullptr) {
    throw TypeError(std::string(what) + ": numpy dtype " + py::str(a.dtype()).cast<std::string>() +
                    " is not an ONNX element type; tseq takes " + valid_dtypes());
  }
  const bool native = descr->byteorder != '>' || descr->elsize == 1;
  const bool c_contiguous = (arr->flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) != 0;
  if (copy || !c_contiguous || !native) return from_buffer(a, copy, what);  // its checks and messages
  static_assert(sizeof(Py_intptr_t) == sizeof(std::int64_t));
  const Shape shape{std::span<const std::int64_t>(reinterpret_cast<const std::int64_t*>(arr->dimensions),
                                                  static_cast<std::size_t>(arr->nd))};
  const auto n = static_cast<std::size_t>(detail::num_elements(shape, what));
  if (n > 0) check_aligned(arr->data, t, what);
  if (t == DataType::Bool) check_bools(arr->data, n, what);
  return Tensor::adopt(t, shape, arr->data, Device::cpu(), ObjectOwner(a.inc_ref().ptr()));
}

}  // namespace

DataType dtype_from_kind(char kind, std::size_t size) noexcept {
  switch (kind) {
    case 'f':
      return dtype_with(DTypeKind::floating, size);
    case 'i':
      return dtype_with(DTypeKind::signed_integer, size);
    case 'u':
      return dtype_with(DTypeKind::unsigned_integer, size);
    case 'b':
      return dtype_with(DTypeKind::boolean, size);
    case 'c':
      return dtype_with(DTypeKind::complex, size);
    case 'O':
    case 'U':
    case 'S':
      return DataType::String;  // of any item size
    default:
      return DataType{};  // not a numpy kind tseq takes
  }
}

Tensor from_capsule(py::handle capsule, std::string_view what) {
  PyObject* cap = capsule.ptr();
  if (PyCapsule_IsValid(cap, "used_dltensor") != 0) {
    throw Error(std::string(what) + ": this DLPack capsule was already consumed (a capsule can be taken once)");
  }
  if (PyCapsule_IsValid(cap, "dltensor") == 0) {
    throw TypeError(std::string(what) + ": a " + type_name(capsule) + " is not a DLPack capsule (named 'dltensor')");
  }
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
  if (m == nullptr) throw py::error_already_set();
  Tensor t;
  if (m->deleter == tseq_export_deleter()) {
    t = from_dlpack(m);  // one of ours: the original tensor, no allocation
  } else {
    auto* shim = new GilShim{*m, m};
    shim->managed.deleter = &delete_shim;
    try {
      t = from_dlpack(&shim->managed);
    } catch (...) {
      delete shim;  // the capsule still owns the producer's tensor
      throw;
    }
  }
  if (PyCapsule_SetName(cap, "used_dltensor") != 0) throw py::error_already_set();
  return t;
}

Tensor to_tensor(py::handle obj, bool copy, std::string_view what) {
  if (is_tensor(obj)) {
    const Tensor& t = tensor_of(obj);
    return copy ? deep_copy(t) : t;
  }
  if (py::isinstance<py::array>(obj)) {
    const auto a = py::reinterpret_borrow<py::array>(obj);
    if (Py_TYPE(obj.ptr()) != py::detail::npy_api::get().PyArray_Type_ && py::hasattr(obj, "mask") &&
        py::isinstance(obj, py::module_::import("numpy.ma").attr("MaskedArray"))) {  // subclasses only
      throw TypeError(std::string(what) + ": a numpy masked array's mask would be lost; numpy.ma.filled() first");
    }
    const char kind = py::detail::array_descriptor_proxy(py::detail::array_proxy(a.ptr())->descr)->kind;
    if (kind == 'U' || kind == 'S' || kind == 'O') return strings_from_array(a, what);
    return from_ndarray(a, copy, what);
  }
  if (PyObject_CheckBuffer(obj.ptr()) != 0) return from_buffer(obj, copy, what);
  if (py::hasattr(obj, "__dlpack__")) {
    Tensor t;
    try {
      t = from_capsule(obj.attr("__dlpack__")(), what);
    } catch (py::error_already_set& e) {
      // torch 1.13 exports no bool tensor through DLPack ("Bool type is not supported"); its
      // numpy() is a view of the same host memory (kept alive by the array): take that. Only
      // for that case: any other refusal is the producer's word.
      if (!e.matches(PyExc_RuntimeError) || !is_torch_bool(obj)) throw;
      py::object view;
      try {
        view = obj.attr("numpy")();
      } catch (py::error_already_set&) {
        throw e;  // the producer's first word (a device tensor, one that requires grad, ...)
      }
      if (!py::isinstance<py::array>(view)) throw;
      return from_ndarray(py::reinterpret_borrow<py::array>(view), copy, what);
    } catch (const ShapeError& e) {
      // Strided memory: with copy=True, a framework's own compact copy (torch's contiguous()).
      if (!copy) throw ShapeError(std::string(e.what()) + " (" + std::string(what) + ": copy=True copies it)");
      if (!py::hasattr(obj, "contiguous")) throw;
      t = from_capsule(obj.attr("contiguous")().attr("__dlpack__")(), what);
    }
    return copy ? deep_copy(t) : t;
  }
  if (PyCapsule_CheckExact(obj.ptr()) != 0) {
    Tensor t = from_capsule(obj, what);
    return copy ? deep_copy(t) : t;
  }
  throw TypeError(std::string(what) + ": cannot take a tensor from a " + type_name(obj) +
                  " (it has neither the buffer protocol nor __dlpack__); numpy.asarray() converts lists and "
                  "Python numbers");
}

py::dtype numpy_dtype(DataType t) {
  // numpy's names are the kind and the bits: float32, int8, uint64, complex128, ...
  const std::string bits = std::to_string(8 * dtype_size(t));  // throws TypeError for an invalid t
  switch (dtype_kind(t)) {
    case DTypeKind::floating:
      return py::dtype("float" + bits);
    case DTypeKind::signed_integer:
      return py::dtype("int" + bits);
    case DTypeKind::unsigned_integer:
      return py::dtype("uint" + bits);
    case DTypeKind::complex:
      return py::dtype("complex" + bits);
    case DTypeKind::boolean:
      return py::dtype("bool");
    case DTypeKind::string:
      return py::dtype("O");
  }
  detail::throw_invalid_dtype(t);
}

DataType dtype_from_python(py::handle obj, std::string_view what) {
  if (PyUnicode_Check(obj.ptr())) {
    const auto name = obj.cast<std::string>();
    for (const DataType t : all_dtypes) {
      if (dtype_name(t) == name) return t;
    }
  }
  py::dtype d;
  try {
    d = py::dtype::from_args(py::reinterpret_borrow<py::object>(obj));
  } catch (const py::error_already_set&) {
    throw TypeError(std::string(what) + ": " + py::repr(obj).cast<std::string>() +
                    " is not an element type; give an ONNX name or a numpy dtype of " + valid_dtypes());
  }
  const DataType t = d.has_fields() ? DataType{} : dtype_from_kind(d.kind(), static_cast<std::size_t>(d.itemsize()));
  if (!is_valid(t)) {
    throw TypeError(std::string(what) + ": numpy dtype " + py::str(d).cast<std::string>() +
                    " is not an ONNX element type; tseq takes " + valid_dtypes());
  }
  return t;
}

namespace {

// Row-major strides in bytes.
std::vector<Py_ssize_t> byte_strides(const Shape& s, std::size_t itemsize) {
  std::vector<Py_ssize_t> st(s.rank());
  static_assert(sizeof(Py_ssize_t) == sizeof(std::int64_t), "a stride that fits int64 fits Py_ssize_t");
  auto acc = static_cast<std::int64_t>(itemsize);
  bool overflowed = false;  // only a tensor with no elements gets here (its strides are unused)
  for (std::size_t d = s.rank(); d-- > 0;) {
    st[d] = overflowed ? 0 : static_cast<Py_ssize_t>(acc);
    std::int64_t next = 0;
    overflowed = overflowed || detail::mul_overflow(acc, std::max<std::int64_t>(s[d], 1), next);
    acc = next;
  }
  return st;
}

py::object string_array(const Tensor& t) {
  const auto values = t.values<std::string>();
  py::list flat(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    PyObject* s = PyUnicode_DecodeUTF8(values[i].data(), static_cast<Py_ssize_t>(values[i].size()), "strict");
    if (s == nullptr) {  // not UTF-8: the bytes themselves
      PyErr_Clear();
      s = PyBytes_FromStringAndSize(values[i].data(), static_cast<Py_ssize_t>(values[i].size()));
      if (s == nullptr) throw py::error_already_set();
    }
    PyList_SET_ITEM(flat.ptr(), static_cast<Py_ssize_t>(i), s);
  }
  py::tuple dims(t.rank());
  for (std::size_t d = 0; d < t.rank(); ++d) dims[d] = py::int_(t.shape()[d]);
  const py::module_ np = py::module_::import("numpy");
  return np.attr("array")(flat, py::arg("dtype") = py::dtype("O")).attr("reshape")(dims);
}

py::object numpy_view(const Tensor& t, py::handle base) {
  if (t.dtype() == DataType::String) return string_array(t);
  if (!t.device().is_host_readable()) detail::throw_not_host("numpy", "the tensor", t.device());
  std::vector<Py_ssize_t> dims(t.shape().dims().begin(), t.shape().dims().end());
  static const std::int64_t empty = 0;
  const void* data = t.size() > 0 ? t.data() : &empty;
  py::array a(numpy_dtype(t.dtype()), dims, byte_strides(t.shape(), dtype_size(t.dtype())), data, base);
  // Read-only: tseq tensors are immutable (numpy refuses writes through the view).
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

// The buffer protocol, by hand: read-only, C-contiguous, refused (BufferError, never a C++
// exception through C) for string tensors, device memory and writable requests.
struct BufferInfo {
  std::string format;
  std::vector<Py_ssize_t> shape;
  std::vector<Py_ssize_t> strides;
};

const char* buffer_format(DataType t) {
  switch (t) {
    case DataType::Float:
      return "f";
    case DataType::Uint8:
      return "B";
    case DataType::Int8:
      return "b";
    case DataType::Uint16:
      return "H";
    case DataType::Int16:
      return "h";
    case DataType::Int32:
      return "i";
    case DataType::Int64:
      return "q";
    case DataType::Bool:
      return "?";
    case DataType::Float16:
      return "e";
    case DataType::Double:
      return "d";
    case DataType::Uint32:
      return "I";
    case DataType::Uint64:
      return "Q";
    case DataType::Complex64:
      return "Zf";
    case DataType::Complex128:
      return "Zd";
    case DataType::String:
      break;
  }
  return nullptr;
}

extern "C" int tensor_getbuffer(PyObject* obj, Py_buffer* view, int flags) {
  view->obj = nullptr;
  try {
    if (!is_tensor(obj)) {
      PyErr_SetString(PyExc_BufferError, "tseq.Tensor: not a tensor");
      return -1;
    }
    const Tensor& t = tensor_of(obj);
    const char* format = buffer_format(t.dtype());
    if (format == nullptr) {
      PyErr_SetString(PyExc_BufferError,
                      "tseq.Tensor: a string tensor has no buffer (numpy.asarray gives an object array)");
      return -1;
    }
    if (!t.device().is_host_readable()) {
      const std::string m = "tseq.Tensor: the tensor is on " + to_string(t.device()) + "; a buffer is host memory";
      PyErr_SetString(PyExc_BufferError, m.c_str());
      return -1;
    }
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE) {
      PyErr_SetString(PyExc_BufferError, "tseq.Tensor: tensors are immutable; their buffers are read-only");
      return -1;
    }
    // The memory is C-contiguous; it is Fortran-contiguous too only when at most one
    // dimension has more than one element.
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS) {
      const auto dims = t.shape().dims();
      if (std::count_if(dims.begin(), dims.end(), [](std::int64_t d) { return d > 1; }) > 1) {
        PyErr_SetString(PyExc_BufferError, "tseq.Tensor: the memory is C-contiguous, not Fortran-contiguous");
        return -1;
      }
    }
    auto info = std::make_unique<BufferInfo>();
    info->format = format;
    info->shape.assign(t.shape().dims().begin(), t.shape().dims().end());
    info->strides = byte_strides(t.shape(), dtype_size(t.dtype()));
    static std::int64_t empty = 0;
    view->buf = t.size() > 0 ? const_cast<void*>(t.data()) : &empty;
    view->itemsize = static_cast<Py_ssize_t>(dtype_size(t.dtype()));
    view->len = static_cast<Py_ssize_t>(t.size()) * view->itemsize;
    view->readonly = 1;
    view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? info->format.data() : nullptr;
    if ((flags & PyBUF_ND) == PyBUF_ND) {
      view->ndim = static_cast<int>(t.rank());
      view->shape = info->shape.data();
      view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? info->strides.data() : nullptr;
    } else {  // a plain byte buffer
      view->ndim = 1;
      view->shape = nullptr;
      view->strides = nullptr;
      if (view->format == nullptr) view->itemsize = 1;
    }
    view->suboffsets = nullptr;
    view->internal = info.release();
    view->obj = obj;
    Py_INCREF(obj);
    return 0;
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_BufferError, e.what());
    return -1;
  } catch (...) {
    PyErr_SetString(PyExc_BufferError, "tseq.Tensor: no buffer");
    return -1;
  }
}

extern "C" void tensor_releasebuffer(PyObject*, Py_buffer* view) { delete static_cast<BufferInfo*>(view->internal); }

void capsule_destructor(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor") == 0) return;  // consumed ("used_dltensor")
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
  if (m != nullptr && m->deleter != nullptr) m->deleter(m);
}

py::object tolist(const Tensor& t, py::handle self) { return numpy_view(t, self).attr("tolist")(); }

}  // namespace

py::object to_numpy(const Tensor& t) { return numpy_view(t, wrap(t)); }

py::object wrap(Tensor t) { return py::cast(std::move(t)); }

namespace {

PyObject* tensor_new(PyTypeObject* /*type*/, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"obj", "copy", nullptr};
  PyObject* obj = nullptr;
  int copy = 0;
  if (PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:Tensor", const_cast<char**>(keywords), &obj, &copy) == 0) {
    return nullptr;
  }
  try {
    return box(to_tensor(obj, copy != 0, "tseq.Tensor"));
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

PyObject* tensor_repr(PyObject* self) {
  try {
    const Tensor& t = tensor_of(self);
    const std::string r =
        t.device().is_host_readable()
            ? "tseq.Tensor(" + to_string(t) + ")"
            : "tseq.Tensor(" + dtype_name(t.dtype()) + to_string(t.shape()) + " on " + to_string(t.device()) + ")";
    return PyUnicode_FromStringAndSize(r.data(), static_cast<Py_ssize_t>(r.size()));
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

// == is value equality (tseq::equal): one bool, not numpy's element-wise array.
PyObject* tensor_richcompare(PyObject* a, PyObject* b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !is_tensor(a) || !is_tensor(b)) Py_RETURN_NOTIMPLEMENTED;
  try {
    const bool same = tensor_of(a).identical_to(tensor_of(b)) || equal(tensor_of(a), tensor_of(b));
    return PyBool_FromLong((same == (op == Py_EQ)) ? 1 : 0);
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

const char* const tensor_doc = R"doc(Tensor(obj, copy=False)
--

An immutable tensor of one of the 15 ONNX element types.

Tensor(obj, copy=False) takes obj's memory without copying: any object with the buffer
protocol (numpy arrays and scalars, memoryview, bytes) or __dlpack__ (torch tensors). The
tensor keeps obj (its buffer, or the producer's DLPack tensor) alive and releases it exactly
once, when the last Tensor or Sequence holding it is gone. Memory that is not C-contiguous is
refused (tseq.ShapeError) unless copy=True, which always copies into memory tseq owns.
numpy arrays of str, bytes or str/bytes objects become string tensors (always a copy).

Out: numpy.asarray(t) (the buffer protocol), numpy.from_dlpack(t) and torch.from_dlpack(t)
are views of the same memory, no copy. Buffers are read-only; DLPack 0.6 has no read-only flag,
so writing through a DLPack view is not prevented, and is not allowed: it would change every
sequence holding the tensor. Do not write to obj either while tseq holds it.
== compares values (same element type, shape and elements); tensors are not hashable.
)doc";

// `self` of a method called through the class (tseq.Tensor.numpy(x)): checked, since the
// function is not a method descriptor that would check it.
const Tensor& self_tensor(py::handle self) {
  if (!is_tensor(self)) throw TypeError("tseq.Tensor: a method of tensors called on a " + type_name(self));
  return tensor_of(self);
}

// A method or read-only property of the plain type, as a pybind11 function of `self`.
template <class F>
void method(py::handle type, const char* name, F&& f, const char* doc) {
  type.attr(name) = py::cpp_function(std::forward<F>(f), py::name(name), py::is_method(type),
                                     py::sibling(py::getattr(type, name, py::none())), doc);
}
template <class F>
void property(py::handle type, const char* name, F&& f, const char* doc) {
  const py::object make = py::module_::import("builtins").attr("property");  // no static: see onnx.cpp
  type.attr(name) = make(py::cpp_function(std::forward<F>(f)), py::none(), py::none(), doc);
}

}  // namespace

void bind_tensor(py::module_& m) {
  static const PyType_Slot slots[] = {{Py_tp_new, reinterpret_cast<void*>(&tensor_new)},
                                      {Py_tp_repr, reinterpret_cast<void*>(&tensor_repr)},
                                      {Py_tp_richcompare, reinterpret_cast<void*>(&tensor_richcompare)},
                                      {Py_bf_getbuffer, reinterpret_cast<void*>(&tensor_getbuffer)},
                                      {Py_bf_releasebuffer, reinterpret_cast<void*>(&tensor_releasebuffer)},
                                      {Py_tp_doc, const_cast<char*>(tensor_doc)},
                                      {0, nullptr}};
  make_boxed_type<Tensor>(m, "Tensor", "tseq.Tensor", slots);
  const py::handle t(reinterpret_cast<PyObject*>(boxed_type<Tensor>::type));

  property(
      t, "shape",
      [](const Tensor& x) {
        py::tuple r(x.rank());
        for (std::size_t d = 0; d < x.rank(); ++d) r[d] = py::int_(x.shape()[d]);
        return r;
      },
      "The dimensions, a tuple of ints (() for a scalar).");
  property(
      t, "dtype", [](const Tensor& x) { return numpy_dtype(x.dtype()); },
      "The element type as a numpy.dtype (numpy.dtype(object) for strings).");
  property(
      t, "onnx_dtype", [](const Tensor& x) { return dtype_name(x.dtype()); },
      "The element type's ONNX name: 'float', 'int64', 'string', ...");
  property(
      t, "device", [](const Tensor& x) { return to_string(x.device()); },
      "Where the payload lives: 'cpu:0' for host memory, 'cuda:1', ...");
  property(
      t, "ndim", [](const Tensor& x) { return x.rank(); }, "The number of dimensions.");
  property(
      t, "size", [](const Tensor& x) { return x.size(); }, "The number of elements.");
  property(
      t, "nbytes", [](const Tensor& x) { return x.size() * dtype_size(x.dtype()); },
      "Bytes of the payload (for strings: of the string objects, not their characters).");
  property(
      t, "data_ptr", [](const Tensor& x) { return reinterpret_cast<std::uintptr_t>(x.data()); },
      "The address of the first element: the same as the source's for a tensor taken without copying.");
  property(
      t, "is_adopted", [](const Tensor& x) { return x.is_adopted(); },
      "True when the memory is another object's (taken without copying), False when tseq owns it.");
  method(
      t, "numpy", [](py::handle self) { return numpy_view(self_tensor(self), self); },
      "A read-only numpy view of the same memory (strings: an object array, a copy).");
  // __array__(dtype=None) and __dlpack__(stream=None): defaults, so cpp_function directly.
  t.attr("__array__") = py::cpp_function(
      [](py::handle self, const py::object& dtype) {
        py::object a = numpy_view(self_tensor(self), self);
        return dtype.is_none() ? a : a.attr("astype")(dtype);
      },
      py::name("__array__"), py::is_method(t), py::arg("dtype") = py::none(),
      "numpy's conversion: a read-only view (or, with a dtype, numpy's astype of it).");
  method(
      t, "tolist", [](py::handle self) { return tolist(self_tensor(self), self); },
      "The elements as nested Python lists (numpy.ndarray.tolist).");
  t.attr("__dlpack__") = py::cpp_function(
      [](py::handle self, const py::object& stream) {
        const Tensor& x = self_tensor(self);
        if (!stream.is_none() && !py::isinstance<py::int_>(stream)) {
          throw TypeError("tseq.Tensor.__dlpack__: stream must be None or an int");
        }
        DLManagedTensor* dl = to_dlpack(x);
        PyObject* cap = PyCapsule_New(dl, "dltensor", &capsule_destructor);
        if (cap == nullptr) {
          dl->deleter(dl);
          throw py::error_already_set();
        }
        return py::reinterpret_steal<py::object>(cap);
      },
      py::name("__dlpack__"), py::is_method(t), py::arg("stream") = py::none(),
      "A DLPack capsule sharing the payload (numpy.from_dlpack, torch.from_dlpack call this).");
  method(
      t, "__dlpack_device__",
      [](py::handle self) {
        const Tensor& x = self_tensor(self);
        return py::make_tuple(static_cast<int>(x.device().type), x.device().id);
      },
      "(DLPack device type, device id): (1, 0) for host memory.");
  method(
      t, "__reduce__",
      [](py::handle self) {
        // Payloads are copied: the pickle holds a numpy array, unpickled without another copy.
        py::object a = numpy_view(self_tensor(self), self).attr("copy")();
        return py::make_tuple(py::type::handle_of(self), py::make_tuple(a));
      },
      "Pickling: the payload as a numpy array (a copy).");

  m.def(
      "from_dlpack",
      [](py::handle obj) {
        if (PyCapsule_CheckExact(obj.ptr()) != 0) return from_capsule(obj, "tseq.from_dlpack");
        if (!py::hasattr(obj, "__dlpack__")) {
          throw TypeError("tseq.from_dlpack: a " + type_name(obj) + " has no __dlpack__ and is not a DLPack capsule");
        }
        return from_capsule(obj.attr("__dlpack__")(), "tseq.from_dlpack");
      },
      py::arg("obj"),
      "A tensor sharing obj's memory: obj has __dlpack__ (numpy, torch) or is a DLPack capsule "
      "('dltensor', consumed: a capsule can be taken once). No copy.");
}

}  // namespace tseq::python
