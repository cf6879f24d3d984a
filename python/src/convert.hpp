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

#include <new>
#include <string>
#include <string_view>

#include "tseq/dtype.hpp"
#include "tseq/sequence.hpp"
#include "tseq/tensor.hpp"

namespace tseq::python {

namespace py = pybind11;

// Runs f() with the GIL held, unless the interpreter is gone or finalising (then not at all).
template <class F>
void with_gil(F&& f) noexcept {
  if (Py_IsInitialized() == 0 || _Py_IsFinalizing() != 0) return;
  const PyGILState_STATE state = PyGILState_Ensure();
  f();
  PyGILState_Release(state);
}

// tseq.Tensor is a plain CPython type (not a pybind11 class): a handle in the object itself, so
// that making one (s[i], iteration) is one allocation and one atomic increment. pybind11 sees
// tseq::Tensor through the type_caster at the end of this header.
struct TensorObject {
  PyObject_HEAD PyObject* weakrefs;
  alignas(Tensor) unsigned char storage[sizeof(Tensor)];  // a Tensor, constructed in place
};
extern PyTypeObject* tensor_type;  // set by bind_tensor
[[nodiscard]] inline bool is_tensor(py::handle o) noexcept { return Py_TYPE(o.ptr()) == tensor_type; }
// The handle inside a tseq.Tensor object (precondition: is_tensor(o)); lives as long as o.
[[nodiscard]] inline const Tensor& tensor_of(py::handle o) noexcept {
  return *std::launder(reinterpret_cast<const Tensor*>(reinterpret_cast<TensorObject*>(o.ptr())->storage));
}
// A new tseq.Tensor object holding t: a new reference, or nullptr with a Python error set.
PyObject* new_tensor_object(Tensor t) noexcept;
// Sets the Python error for the exception being handled (tseq's classes, pybind11's, the
// standard ones); for raw CPython slots, which must not let a C++ exception out.
void set_python_error() noexcept;

// numpy's dtype for t (numpy.dtype(object) for strings).
py::dtype numpy_dtype(DataType t);
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
TensorSequence sequence_of(py::handle iterable, DataType dtype, const char* what);
std::int64_t int_position(py::handle i, const char* what);

// The binding's parts, in module.cpp's order.
void bind_errors(py::module_& m);
void bind_tensor(py::module_& m);
void bind_sequence(py::module_& m);
void bind_ops(py::module_& m);
void bind_onnx(py::module_& m);

}  // namespace tseq::python

namespace pybind11::detail {

// tseq::Tensor arguments and results as tseq.Tensor objects (tensor.cpp's type).
template <>
struct type_caster<tseq::Tensor> {
  PYBIND11_TYPE_CASTER(tseq::Tensor, const_name("tseq.Tensor"));
  bool load(handle src, bool /*convert*/) {
    if (!tseq::python::is_tensor(src)) return false;
    value = tseq::python::tensor_of(src);
    return true;
  }
  static handle cast(const tseq::Tensor& t, return_value_policy /*policy*/, handle /*parent*/) {
    PyObject* o = tseq::python::new_tensor_object(t);
    if (o == nullptr) throw error_already_set();
    return o;
  }
  static handle cast(tseq::Tensor&& t, return_value_policy /*policy*/, handle /*parent*/) {
    PyObject* o = tseq::python::new_tensor_object(std::move(t));
    if (o == nullptr) throw error_already_set();
    return o;
  }
};

}  // namespace pybind11::detail
