// The extension module tseq._torch (python/tseq/torch.py re-exports it): links libtseq_torch, so
// importing it registers torch.classes.tseq.TensorSequence and torch.ops.tseq.*, and converts
// between tseq.Sequence and the TorchScript class, sharing the tree (docs/torch.md).
// Uses libtorch_python's IValue <-> Python conversions, and _tseq's C API (capi.hpp) for
// tseq.Sequence.

#include <torch/csrc/jit/python/pybind_utils.h>

#include <string>

#include "../capi.hpp"
#include "tseq/error.hpp"
#include "tseq/torch.hpp"

namespace py = pybind11;

namespace {

const tseq::python::CApi* capi = nullptr;

// tseq.TypeError (from the _tseq module), raised with `message`.
[[noreturn]] void raise_type_error(const std::string& message) {
  PyErr_SetString(py::module_::import("tseq._tseq").attr("TypeError").ptr(), message.c_str());
  throw py::error_already_set();
}

py::object to_script(py::handle seq) {
  tseq::TensorSequence s(tseq::DataType::Float);
  if (capi->unwrap_sequence(seq.ptr(), &s) != 0) {
    PyErr_Clear();
    raise_type_error(std::string("tseq.torch.to_script: expected a tseq.Sequence, got ") + Py_TYPE(seq.ptr())->tp_name);
  }
  return torch::jit::toPyObject(tseq::torch::to_ivalue(std::move(s)));
}

py::object from_script(py::handle obj) {
  static const c10::TypePtr type = c10::getCustomClassType<c10::intrusive_ptr<tseq::torch::ScriptSequence>>();
  c10::IValue v;
  try {
    v = torch::jit::toIValue(obj, type);
  } catch (const std::exception&) {
    raise_type_error(std::string("tseq.torch.from_script: expected a torch.classes.tseq.TensorSequence, got ") +
                     Py_TYPE(obj.ptr())->tp_name);
  }
  PyObject* out = capi->wrap_sequence(tseq::torch::from_ivalue(v));
  if (out == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(out);
}

}  // namespace

PYBIND11_MODULE(_torch, m) {
  m.doc() = "tseq's TorchScript bridge; import tseq.torch (docs/torch.md).";
  py::module_::import("tseq._tseq");
  capi = static_cast<const tseq::python::CApi*>(PyCapsule_Import(tseq::python::capi_capsule_name, 0));
  if (capi == nullptr) throw py::error_already_set();
  if (capi->abi != tseq::python::capi_abi) {
    throw py::import_error("tseq._torch was built with another tseq._tseq (C API mismatch): rebuild the package");
  }
  tseq::torch::register_library();
  m.def("to_script", &to_script, py::arg("seq"),
        "The torch.classes.tseq.TensorSequence holding seq's tensors (shares the tree: O(1)).");
  m.def("from_script", &from_script, py::arg("obj"),
        "The tseq.Sequence holding a torch.classes.tseq.TensorSequence's tensors (shares the tree: O(1)).");
}
