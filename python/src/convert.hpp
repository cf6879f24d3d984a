#pragma once

// The Python boundary of tseq (not installed): element types to and from numpy, tensors from
// Python objects without copying (buffer protocol, DLPack), and back out.
//
// Ownership: a tensor taken from a Python object holds that object (a Py_buffer, or the
// producer's DLManagedTensor) and releases it exactly once, when its last handle goes, with
// the GIL taken on whatever thread that is. After the interpreter has begun to finalise, the
// release is skipped (the process is ending; touching Python then would crash it).

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <structmember.h>  // after Python.h: PyMemberDef, T_PYSSIZET

#include <cstddef>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "tseq/dtype.hpp"
#include "tseq/sequence.hpp"
#include "tseq/tensor.hpp"

namespace tseq::python {

namespace py = pybind11;

// Runs f() with the GIL held, unless the interpreter is gone or finalising (then not at all).
template <class F>
void with_gil(F&& f) noexcept {
#if PY_VERSION_HEX >= 0x030D0000
  if (Py_IsInitialized() == 0 || Py_IsFinalizing() != 0) return;
#else
  if (Py_IsInitialized() == 0 || _Py_IsFinalizing() != 0) return;
#endif
  const PyGILState_STATE state = PyGILState_Ensure();
  f();
  PyGILState_Release(state);
}

// tseq.Tensor and tseq.Sequence are plain CPython types, not pybind11 classes: the C++ value
// lives in the object itself, so that making one (s[i], iteration, every update's result) is
// one allocation and one atomic increment, and pybind11 reaches them through the type_casters
// at the end of this header (no type registry in the way). They cannot be subclassed.
template <class T>
struct Boxed {
  PyObject_HEAD PyObject* weakrefs;
  alignas(T) unsigned char storage[sizeof(T)];  // a T, constructed in place
};
template <class T>
struct boxed_type {
  static inline PyTypeObject* type = nullptr;  // set when the module is initialised
};
template <class T>
[[nodiscard]] bool is_boxed(py::handle o) noexcept {
  return Py_TYPE(o.ptr()) == boxed_type<T>::type;
}
// The value inside an object of T's type (precondition: is_boxed<T>(o)); lives as long as o.
template <class T>
[[nodiscard]] const T& unbox(py::handle o) noexcept {
  return *std::launder(reinterpret_cast<const T*>(reinterpret_cast<Boxed<T>*>(o.ptr())->storage));
}
// A new object of T's type holding v: a new reference, or nullptr with a Python error set.
template <class T>
PyObject* box(T v) noexcept {
  PyTypeObject* type = boxed_type<T>::type;
  PyObject* o = type->tp_alloc(type, 0);  // zeroed: weakrefs = nullptr
  if (o == nullptr) return nullptr;
  new (reinterpret_cast<Boxed<T>*>(o)->storage) T(std::move(v));
  return o;
}
template <class T>
void boxed_dealloc(PyObject* self) noexcept {
  PyTypeObject* type = Py_TYPE(self);
  auto* o = reinterpret_cast<Boxed<T>*>(self);
  if (o->weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  std::launder(reinterpret_cast<T*>(o->storage))->~T();  // may release adopted sources (GIL held)
  type->tp_free(self);
  Py_DECREF(type);
}
// Creates T's type from `slots` (tp_new and the rest, ending with {0, nullptr}; dealloc, weak
// references and "unhashable" are added here) and adds it to `m` as `name`. Once per T.
template <class T>
void make_boxed_type(py::module_& m, const char* name, const char* qualified, const PyType_Slot* slots) {
  bool has_new = false;
  for (const PyType_Slot* s = slots; s->slot != 0; ++s) has_new = has_new || s->slot == Py_tp_new;
  static PyMemberDef members[] = {
      {"__weaklistoffset__", T_PYSSIZET, static_cast<Py_ssize_t>(offsetof(Boxed<T>, weakrefs)), READONLY, nullptr},
      {nullptr, 0, 0, 0, nullptr}};
  static std::vector<PyType_Slot> all;
  for (const PyType_Slot* s = slots; s->slot != 0; ++s) all.push_back(*s);
  all.push_back({Py_tp_dealloc, reinterpret_cast<void*>(&boxed_dealloc<T>)});
  all.push_back({Py_tp_members, members});
  all.push_back({Py_tp_hash, reinterpret_cast<void*>(&PyObject_HashNotImplemented)});
  all.push_back({0, nullptr});
  // Without a tp_new the type is made only here (its objects would otherwise hold no T).
  const unsigned long flags = Py_TPFLAGS_DEFAULT | (has_new ? 0UL : Py_TPFLAGS_DISALLOW_INSTANTIATION);
  static PyType_Spec spec = {qualified, static_cast<int>(sizeof(Boxed<T>)), 0, static_cast<unsigned int>(flags),
                             all.data()};
  PyObject* type = PyType_FromSpec(&spec);
  if (type == nullptr) throw py::error_already_set();
  boxed_type<T>::type = reinterpret_cast<PyTypeObject*>(type);  // the module's attribute keeps it
  m.attr(name) = py::reinterpret_steal<py::object>(type);
}

[[nodiscard]] inline bool is_tensor(py::handle o) noexcept { return is_boxed<Tensor>(o); }
[[nodiscard]] inline const Tensor& tensor_of(py::handle o) noexcept { return unbox<Tensor>(o); }
[[nodiscard]] inline bool is_sequence(py::handle o) noexcept { return is_boxed<TensorSequence>(o); }
[[nodiscard]] inline const TensorSequence& sequence_of(py::handle o) noexcept { return unbox<TensorSequence>(o); }

// Sets the Python error for the exception being handled (tseq's classes, pybind11's, the
// standard ones); for raw CPython slots, which must not let a C++ exception out.
void set_python_error() noexcept;
// The same for tseq's exceptions only: false (and no error set) for any other.
bool set_tseq_error() noexcept;

// numpy's dtype for t (numpy.dtype(object) for strings).
py::dtype numpy_dtype(DataType t);
// The element type of a numpy dtype kind ('f', 'i', 'u', 'b', 'c'; 'O', 'U', 'S' for strings)
// and item size; DataType{} (invalid) for the rest.
DataType dtype_from_kind(char kind, std::size_t size) noexcept;
// The element type `obj` names: an ONNX name ("float", "int64", "string", ...), or anything
// numpy.dtype() accepts (numpy.float32, "float32", ...). TypeError naming `what` and obj.
DataType dtype_from_python(py::handle obj, std::string_view what);

// A tensor from `obj` (tseq.Tensor, the buffer protocol, __dlpack__, a numpy array of strings).
// Without `copy` the payload is `obj`'s memory, held until the tensor's last handle goes;
// non-contiguous memory is then a ShapeError. `what` starts error messages.
Tensor to_tensor(py::handle obj, bool copy, std::string_view what);
// A tensor from a DLPack capsule ("dltensor"; renamed "used_dltensor" once taken).
Tensor from_capsule(py::handle capsule, std::string_view what);

// A read-only numpy view of t's memory that keeps t alive (strings: an object array, a copy).
py::object to_numpy(const Tensor& t);

// The Python wrapper of a sequence / tensor handle (the registered classes).
py::object wrap(Tensor t);
py::object wrap(TensorSequence s);

// sequence.cpp's helpers for ops.cpp and onnx.cpp: a tseq.Sequence argument (TypeError
// otherwise), a sequence of `dtype` from an iterable of tensor-likes, a Python int position.
TensorSequence sequence_argument(py::handle o, const char* what);
TensorSequence sequence_from(py::handle iterable, DataType dtype, const char* what);
std::int64_t int_position(py::handle i, const char* what);

// The binding's parts, in module.cpp's order.
void bind_errors(py::module_& m);
void bind_tensor(py::module_& m);
void bind_sequence(py::module_& m);
void bind_ops(py::module_& m);
void bind_onnx(py::module_& m);
void bind_capi(py::module_& m);  // tseq._tseq._C_API (capi.hpp)

}  // namespace tseq::python

namespace pybind11::detail {

// tseq::Tensor and tseq::TensorSequence arguments and results as tseq.Tensor and tseq.Sequence
// objects (a copy of the handle: one atomic increment).
#define TSEQ_BOXED_CASTER(T, Name)                                                      \
  template <>                                                                           \
  struct type_caster<T> {                                                               \
    PYBIND11_TYPE_CASTER(T, const_name(Name));                                          \
    bool load(handle src, bool /*convert*/) {                                           \
      if (!tseq::python::is_boxed<T>(src)) return false;                                \
      value = tseq::python::unbox<T>(src);                                              \
      return true;                                                                      \
    }                                                                                   \
    static handle cast(const T& v, return_value_policy /*policy*/, handle /*parent*/) { \
      PyObject* o = tseq::python::box<T>(v);                                            \
      if (o == nullptr) throw error_already_set();                                      \
      return o;                                                                         \
    }                                                                                   \
    static handle cast(T&& v, return_value_policy /*policy*/, handle /*parent*/) {      \
      PyObject* o = tseq::python::box<T>(std::move(v));                                 \
      if (o == nullptr) throw error_already_set();                                      \
      return o;                                                                         \
    }                                                                                   \
  };
TSEQ_BOXED_CASTER(tseq::Tensor, "tseq.Tensor")
TSEQ_BOXED_CASTER(tseq::TensorSequence, "tseq.Sequence")
#undef TSEQ_BOXED_CASTER

}  // namespace pybind11::detail
