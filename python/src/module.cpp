// The extension module tseq._tseq; the package (python/tseq/__init__.py) re-exports it.

#include "capi.hpp"
#include "convert.hpp"
#include "tseq/onnx/executor.hpp"

namespace tseq::python {

namespace {

// The Python classes of tseq's errors (module attributes, alive as long as the module).
PyObject* error_class = nullptr;
PyObject* type_error_class = nullptr;
PyObject* shape_error_class = nullptr;
PyObject* index_error_class = nullptr;
PyObject* device_error_class = nullptr;
PyObject* length_error_class = nullptr;
PyObject* run_stopped_class = nullptr;

PyObject* make_error(py::module_& m, const char* name, py::tuple bases, const char* doc) {
  py::dict ns;
  ns["__module__"] = "tseq";
  ns["__doc__"] = doc;
  py::object cls = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&PyType_Type))(name, bases, ns);
  m.attr(name) = cls;
  return cls.release().ptr();
}

}  // namespace

void bind_errors(py::module_& m) {
  const auto builtins = py::module_::import("builtins");
  error_class = make_error(m, "Error", py::make_tuple(builtins.attr("RuntimeError")),
                           "Base of every tseq error (tseq::Error): the message names the operation, the bad value "
                           "and the valid range.");
  const py::handle base(error_class);
  type_error_class = make_error(m, "TypeError", py::make_tuple(base, builtins.attr("TypeError")),
                                "A value of the wrong element type, or an object tseq cannot take (tseq::TypeError).");
  shape_error_class = make_error(m, "ShapeError", py::make_tuple(base, builtins.attr("ValueError")),
                                 "Shapes that do not fit, or memory that is not C-contiguous (tseq::ShapeError).");
  index_error_class = make_error(m, "IndexError", py::make_tuple(base, builtins.attr("IndexError")),
                                 "A position or axis outside its valid range (tseq::IndexError).");
  length_error_class = make_error(m, "LengthError", py::make_tuple(base, builtins.attr("OverflowError")),
                                  "A result longer than a sequence's maximum size (tseq::LengthError).");
  device_error_class =
      make_error(m, "DeviceError", py::make_tuple(base, builtins.attr("ValueError")),
                 "An operation that reads payload met memory the host cannot read (tseq::DeviceError).");
  run_stopped_class =
      make_error(m, "RunStopped", py::make_tuple(base),
                 "A tseq.onnx run stopped by its time limit or its cancellation (tseq::onnx::RunStopped).");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (...) {
      if (!set_tseq_error()) throw;  // not tseq's: pybind11's own translators
    }
  });
}

bool set_tseq_error() noexcept {
  try {
    throw;
  } catch (const onnx::RunStopped& e) {
    PyErr_SetString(run_stopped_class, e.what());
  } catch (const IndexError& e) {
    PyErr_SetString(index_error_class, e.what());
  } catch (const TypeError& e) {
    PyErr_SetString(type_error_class, e.what());
  } catch (const ShapeError& e) {
    PyErr_SetString(shape_error_class, e.what());
  } catch (const DeviceError& e) {
    PyErr_SetString(device_error_class, e.what());
  } catch (const LengthError& e) {
    PyErr_SetString(length_error_class, e.what());
  } catch (const Error& e) {
    PyErr_SetString(error_class, e.what());
  } catch (...) {
    return false;
  }
  return true;
}

void set_python_error() noexcept {
  try {
    throw;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (...) {
    if (set_tseq_error()) return;
    try {
      throw;
    } catch (const std::bad_alloc&) {
      PyErr_SetString(PyExc_MemoryError, "out of memory (std::bad_alloc)");
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (...) {
      PyErr_SetString(PyExc_RuntimeError, "an unknown C++ exception");
    }
  }
}

namespace {

PyObject* capi_wrap_sequence(const TensorSequence& s) noexcept {
  try {
    return wrap(s).release().ptr();
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

int capi_unwrap_sequence(PyObject* obj, TensorSequence* out) noexcept {
  if (!is_sequence(obj)) {
    PyErr_Format(type_error_class, "expected a tseq.Sequence, got %s", Py_TYPE(obj)->tp_name);
    return -1;
  }
  *out = sequence_of(obj);
  return 0;
}

const CApi capi = {capi_abi, &capi_wrap_sequence, &capi_unwrap_sequence};

}  // namespace

void bind_capi(py::module_& m) {
  PyObject* capsule = PyCapsule_New(const_cast<CApi*>(&capi), capi_capsule_name, nullptr);
  if (capsule == nullptr) throw py::error_already_set();
  m.attr("_C_API") = py::reinterpret_steal<py::object>(capsule);
}

}  // namespace tseq::python

PYBIND11_MODULE(_tseq, m) {
  namespace tp = tseq::python;
  m.doc() = "tseq's extension module; import tseq (docs/python.md).";
  tp::bind_errors(m);
  tp::bind_tensor(m);
  tp::bind_sequence(m);
  auto ops = m.def_submodule("ops", "The ONNX sequence operators (tseq::ops).");
  tp::bind_ops(ops);
  auto onnx = m.def_submodule("onnx", "A small ONNX executor over tseq values (tseq::onnx).");
  tp::bind_onnx(onnx);
  tp::bind_capi(m);
}
