// tseq.ops: the ONNX sequence operators with ONNX's semantics and defaults (tseq::ops).

#include <optional>

#include "convert.hpp"
#include "tseq/ops.hpp"

namespace tseq::python {

namespace {

using Seq = TensorSequence;

// A position: None (the operator's default), a Python int, or a tensor-like holding one
// int32/int64 element (checked by tseq::ops, as ONNX's position input).
struct Position {
  std::optional<std::int64_t> value;
  std::optional<Tensor> tensor;
};

Position position_of(py::handle p, const char* what) {
  if (p.is_none()) return {};
  if (PyLong_Check(p.ptr()) != 0 && PyBool_Check(p.ptr()) == 0) return {int_position(p, what), std::nullopt};
  return {std::nullopt, to_tensor(p, false, what)};
}

// A tensor operand that ONNX makes an int64 tensor (split): Python ints and lists of ints are
// taken as int64 (a small copy), the rest as tseq.Tensor takes it.
Tensor int64_operand(py::handle o, const char* what) {
  if ((PyLong_Check(o.ptr()) != 0 && PyBool_Check(o.ptr()) == 0) || PyList_Check(o.ptr()) != 0 ||
      PyTuple_Check(o.ptr()) != 0) {
    const py::object a = py::module_::import("numpy").attr("asarray")(o);
    const char kind = py::reinterpret_borrow<py::array>(a).dtype().kind();
    if (kind != 'i' && kind != 'u') {
      throw TypeError(std::string(what) + ": " + py::repr(o).cast<std::string>() + " is not a list of ints");
    }
    return to_tensor(a, false, what);
  }
  return to_tensor(o, false, what);
}

}  // namespace

void bind_ops(py::module_& m) {
  m.def(
      "sequence_empty",
      [](py::handle dtype) {
        return ops::sequence_empty(dtype.is_none() ? DataType::Float : dtype_from_python(dtype, "SequenceEmpty"));
      },
      py::arg("dtype") = "float", "SequenceEmpty: an empty sequence of dtype (default float32). O(1).");
  m.def(
      "sequence_construct",
      [](py::handle inputs) {
        std::vector<Tensor> ts;
        for (py::handle t : py::iter(inputs)) ts.push_back(to_tensor(t, false, "SequenceConstruct"));
        return ops::sequence_construct(ts);
      },
      py::arg("inputs"),
      "SequenceConstruct: the tensors in order, sharing their memory. tseq.Error for none, tseq.TypeError when "
      "their element types differ.");
  m.def(
      "sequence_insert",
      [](py::handle seq, py::handle tensor, py::handle position) {
        const Seq& s = sequence_argument(seq, "SequenceInsert");
        const Tensor t = to_tensor(tensor, false, "SequenceInsert");
        const Position p = position_of(position, "SequenceInsert");
        return p.value ? ops::sequence_insert(s, t, *p.value) : ops::sequence_insert(s, t, p.tensor);
      },
      py::arg("seq"), py::arg("tensor"), py::arg("position") = py::none(),
      "SequenceInsert: tensor placed at position in [-n, n] (default: appended). O(log n).");
  m.def(
      "sequence_erase",
      [](py::handle seq, py::handle position) {
        const Seq& s = sequence_argument(seq, "SequenceErase");
        const Position p = position_of(position, "SequenceErase");
        return p.value ? ops::sequence_erase(s, *p.value) : ops::sequence_erase(s, p.tensor);
      },
      py::arg("seq"), py::arg("position") = py::none(),
      "SequenceErase: the sequence without the tensor at position in [-n, n-1] (default: the last). O(log n).");
  m.def(
      "sequence_at",
      [](py::handle seq, py::handle position) {
        const Seq& s = sequence_argument(seq, "SequenceAt");
        const Position p = position_of(position, "SequenceAt");
        if (!p.value && !p.tensor) throw TypeError("SequenceAt: position is required");
        return p.value ? ops::sequence_at(s, *p.value) : ops::sequence_at(s, *p.tensor);
      },
      py::arg("seq"), py::arg("position"), "SequenceAt: the tensor at position in [-n, n-1]. O(log n).");
  m.def(
      "sequence_length", [](py::handle seq) { return ops::sequence_length(sequence_argument(seq, "SequenceLength")); },
      py::arg("seq"), "SequenceLength: the length as a 0-d int64 tensor.");
  m.def(
      "split_to_sequence",
      [](py::handle input, py::handle split, std::int64_t axis, std::int64_t keepdims) {
        const Tensor in = to_tensor(input, false, "SplitToSequence");
        std::optional<Tensor> sp;
        if (!split.is_none()) sp = int64_operand(split, "SplitToSequence split");
        py::gil_scoped_release unlocked;  // copies the payload once
        return ops::split_to_sequence(in, sp, axis, keepdims);
      },
      py::arg("input"), py::arg("split") = py::none(), py::arg("axis") = 0, py::arg("keepdims") = 1,
      "SplitToSequence: input cut along axis into new tensors (ONNX's rules for split and keepdims). Copies the "
      "payload once; releases the GIL while it does.");
  m.def(
      "concat_from_sequence",
      [](py::handle seq, std::int64_t axis, std::int64_t new_axis) {
        const Seq s = sequence_argument(seq, "ConcatFromSequence");
        py::gil_scoped_release unlocked;  // copies every payload once
        return ops::concat_from_sequence(s, axis, new_axis);
      },
      py::arg("seq"), py::arg("axis"), py::arg("new_axis") = 0,
      "ConcatFromSequence: the tensors joined along axis, or stacked along a new axis (new_axis=1). Copies every "
      "payload once; releases the GIL while it does.");
}

}  // namespace tseq::python
