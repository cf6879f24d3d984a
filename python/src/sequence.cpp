// tseq.Sequence: TensorSequence as an immutable, list-like Python value.

#include <pybind11/stl.h>

#include <limits>
#include <optional>

#include "convert.hpp"

namespace tseq::python {

namespace {

using Seq = TensorSequence;

// A Python position as a C++ int64; TypeError naming `what` for other objects, IndexError for
// an int that does not fit.
std::int64_t position_of(py::handle i, const char* what) {
  if (PyBool_Check(i.ptr()) != 0 || PyIndex_Check(i.ptr()) == 0) {
    throw TypeError(std::string(what) + ": a position must be an int, not " +
                    py::str(py::type::handle_of(i).attr("__name__")).cast<std::string>());
  }
  int overflow = 0;
  const py::object n = py::reinterpret_steal<py::object>(PyNumber_Index(i.ptr()));
  if (!n) throw py::error_already_set();
  const long long v = PyLong_AsLongLongAndOverflow(n.ptr(), &overflow);
  if (overflow != 0) {  // (not printed: a huge int may be too long for str())
    throw IndexError(
        std::string(what) + ": the position does not fit in 64 bits (" +
        (PyObject_RichCompareBool(n.ptr(), py::int_(0).ptr(), Py_LT) == 1 ? "below -2^63" : "2^63 or more") + ")");
  }
  if (v == -1 && PyErr_Occurred() != nullptr) throw py::error_already_set();
  return v;
}

// Position p in [lo, hi] relative to n, with negative positions counting from the back (as
// ONNX and Python); IndexError naming the method, the position and the range otherwise.
std::size_t resolve(const char* what, std::int64_t p, std::size_t n, bool end_allowed) {
  const auto size = static_cast<std::int64_t>(n);  // a sequence's size fits: it counts allocations
  const std::int64_t hi = end_allowed ? size : size - 1;
  if (p < -size || p > hi) {
    throw IndexError(std::string(what) + ": position " + std::to_string(p) +
                     (n == 0 && !end_allowed
                          ? std::string(" on an empty sequence")
                          : " is out of range [" + std::to_string(-size) + ", " + std::to_string(hi) +
                                "] for a sequence of " + std::to_string(n) + " tensors"));
  }
  return static_cast<std::size_t>(p < 0 ? p + size : p);
}

// Tensors of an iterable, converted (no copy) and checked against `dtype` (or the first's).
Seq tensors_of(py::handle iterable, std::optional<DataType> dtype, const char* what) {
  if (is_sequence(iterable)) {
    const Seq& s = sequence_of(iterable);
    if (!dtype || *dtype == s.dtype()) return s;
  }
  Seq::container_type::builder b;
  std::size_t i = 0;
  for (py::handle item : py::iter(iterable)) {
    Tensor t = to_tensor(item, false, what);
    if (!dtype) dtype = t.dtype();
    if (t.dtype() != *dtype) {
      throw TypeError(std::string(what) + ": tensor " + std::to_string(i) + " is " + dtype_name(t.dtype()) + ", not " +
                      dtype_name(*dtype) + " like the sequence");
    }
    b.push_back(std::move(t));
    ++i;
  }
  return {dtype.value_or(DataType::Float), std::move(b).persistent()};
}

// The tensor for an update of s, its element type checked in the Python method's name.
Tensor joining(const Seq& s, py::handle t, const char* what) {
  Tensor x = to_tensor(t, false, what);
  if (x.dtype() != s.dtype()) {
    throw TypeError(std::string(what) + ": a " + dtype_name(x.dtype()) + " tensor cannot join a sequence of " +
                    dtype_name(s.dtype()) + " tensors");
  }
  return x;
}

const Seq& as_sequence(py::handle o, const char* what) {
  if (!is_sequence(o)) {
    throw TypeError(std::string(what) + ": expected a tseq.Sequence, got a " +
                    py::str(py::type::handle_of(o).attr("__name__")).cast<std::string>());
  }
  return sequence_of(o);
}

py::object get_item(const Seq& s, py::handle key) {
  if (PySlice_Check(key.ptr()) != 0) {
    Py_ssize_t start = 0;
    Py_ssize_t stop = 0;
    Py_ssize_t step = 0;
    if (PySlice_Unpack(key.ptr(), &start, &stop, &step) != 0) throw py::error_already_set();
    const Py_ssize_t len = PySlice_AdjustIndices(static_cast<Py_ssize_t>(s.size()), &start, &stop, step);
    if (step == 1) return wrap(s.slice(static_cast<std::size_t>(start), static_cast<std::size_t>(start + len)));
    // Other steps: a new sequence of the chosen tensors, O(k log n).
    Seq::container_type::builder b;
    for (Py_ssize_t k = 0; k < len; ++k) b.push_back(s[static_cast<std::size_t>(start + k * step)]);
    return wrap(Seq(s.dtype(), std::move(b).persistent()));
  }
  const std::int64_t p = position_of(key, "Sequence[]");
  return wrap(s[resolve("Sequence[]", p, s.size(), false)]);
}

std::string repr(const Seq& s) {
  std::string r = "tseq.Sequence(" + dtype_name(s.dtype()) + ", " + std::to_string(s.size()) +
                  (s.size() == 1 ? " tensor" : " tensors");
  if (!s.empty()) {
    r += ": [";
    const std::size_t shown = std::min<std::size_t>(s.size(), 3);
    for (std::size_t i = 0; i < shown; ++i) {
      const Tensor& t = s[i];
      if (i > 0) r += ", ";
      r += t.device().is_host_readable() ? to_string(t, 4) : dtype_name(t.dtype()) + to_string(t.shape());
    }
    if (shown < s.size()) r += ", ...";
    r += "]";
  }
  return r + ")";
}

// ---- tseq.Sequence's slots and methods, in plain CPython (pybind11's dispatch would cost more
// than the tree) ----

// Runs f() -> PyObject* (a new reference), turning a C++ exception into the Python error.
template <class F>
PyObject* guarded(F&& f) noexcept {
  try {
    return f();
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

PyObject* seq_new(PyTypeObject* /*type*/, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"iterable", "dtype", nullptr};
  PyObject* iterable = nullptr;
  PyObject* dtype = Py_None;
  if (PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:Sequence", const_cast<char**>(keywords), &iterable, &dtype) == 0) {
    return nullptr;
  }
  return guarded([&] {
    std::optional<DataType> t;
    if (dtype != Py_None) t = dtype_from_python(dtype, "tseq.Sequence");
    if (iterable == nullptr) return box(Seq(t.value_or(DataType::Float)));
    return box(tensors_of(iterable, t, "tseq.Sequence"));
  });
}

Py_ssize_t seq_length(PyObject* self) { return static_cast<Py_ssize_t>(sequence_of(self).size()); }

PyObject* seq_subscript(PyObject* self, PyObject* key) {
  const Seq& s = sequence_of(self);
  if (PyLong_CheckExact(key)) {  // s[i]: one object made, nothing else
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(key, &overflow);
    const auto n = static_cast<long long>(s.size());
    if (overflow == 0 && i < 0) i += n;
    if (overflow == 0 && i >= 0 && i < n) return box(s[static_cast<std::size_t>(i)]);
  }
  return guarded([&] { return get_item(s, key).release().ptr(); });  // slices, other keys, errors
}

PyObject* seq_item(PyObject* self, Py_ssize_t i) {  // PySequence_GetItem (negatives adjusted)
  const Seq& s = sequence_of(self);
  if (i >= 0 && static_cast<std::size_t>(i) < s.size()) return box(s[static_cast<std::size_t>(i)]);
  return guarded([&]() -> PyObject* {  // i is already relative to the front: not resolved again
    throw IndexError("Sequence[]: position " + std::to_string(i) + " (from the front) is out of range [0, " +
                     std::to_string(s.size()) + ") for a sequence of " + std::to_string(s.size()) + " tensors");
  });
}

int seq_contains(PyObject* self, PyObject* t) {
  if (!is_tensor(t)) return 0;
  try {
    const Tensor& x = tensor_of(t);
    for (const Tensor& e : sequence_of(self)) {
      if (e.identical_to(x) || equal(e, x)) return 1;
    }
    return 0;
  } catch (...) {
    set_python_error();
    return -1;
  }
}

PyObject* seq_add(PyObject* a, PyObject* b) {
  if (!is_sequence(a) || !is_sequence(b)) Py_RETURN_NOTIMPLEMENTED;
  return guarded([&] {
    const Seq& x = sequence_of(a);
    const Seq& y = sequence_of(b);
    if (x.dtype() != y.dtype()) {
      throw TypeError("Sequence +: a sequence of " + dtype_name(y.dtype()) + " tensors cannot follow one of " +
                      dtype_name(x.dtype()) + " tensors");
    }
    return box(x + y);
  });
}

PyObject* seq_richcompare(PyObject* a, PyObject* b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !is_sequence(a) || !is_sequence(b)) Py_RETURN_NOTIMPLEMENTED;
  return guarded([&] {
    const Seq& x = sequence_of(a);
    const Seq& y = sequence_of(b);
    const bool same = x.identical_to(y) || equal(x, y);
    return PyBool_FromLong(same == (op == Py_EQ) ? 1 : 0);
  });
}

PyObject* seq_repr(PyObject* self) {
  return guarded([&] {
    const std::string r = repr(sequence_of(self));
    return PyUnicode_FromStringAndSize(r.data(), static_cast<Py_ssize_t>(r.size()));
  });
}

// Positional arguments of a METH_FASTCALL method: between lo and hi of them.
bool arity(const char* what, Py_ssize_t n, Py_ssize_t lo, Py_ssize_t hi) {
  if (n >= lo && n <= hi) return true;
  PyErr_Format(PyExc_TypeError, "%s takes %zd to %zd positional arguments but %zd were given", what, lo, hi, n);
  return false;
}

PyObject* seq_append(PyObject* self, PyObject* const* args, Py_ssize_t n) {
  if (!arity("Sequence.append()", n, 1, 1)) return nullptr;
  return guarded([&] {
    const Seq& s = sequence_of(self);
    return box(s.push_back(joining(s, args[0], "Sequence.append")));
  });
}

PyObject* seq_insert(PyObject* self, PyObject* const* args, Py_ssize_t n) {
  if (!arity("Sequence.insert()", n, 2, 2)) return nullptr;
  return guarded([&] {
    const Seq& s = sequence_of(self);
    const std::size_t p = resolve("Sequence.insert", position_of(args[0], "Sequence.insert"), s.size(), true);
    return box(s.insert(p, joining(s, args[1], "Sequence.insert")));
  });
}

PyObject* seq_erase(PyObject* self, PyObject* const* args, Py_ssize_t n) {
  if (!arity("Sequence.erase()", n, 0, 1)) return nullptr;
  return guarded([&] {
    const Seq& s = sequence_of(self);
    const std::int64_t i = n == 0 ? -1 : position_of(args[0], "Sequence.erase");
    return box(s.erase(resolve("Sequence.erase", i, s.size(), false)));
  });
}

PyObject* seq_set(PyObject* self, PyObject* const* args, Py_ssize_t n) {
  if (!arity("Sequence.set()", n, 2, 2)) return nullptr;
  return guarded([&] {
    const Seq& s = sequence_of(self);
    const std::size_t p = resolve("Sequence.set", position_of(args[0], "Sequence.set"), s.size(), false);
    return box(s.set(p, joining(s, args[1], "Sequence.set")));
  });
}

PyObject* seq_is_same(PyObject* self, PyObject* other) {
  return PyBool_FromLong(is_sequence(other) && sequence_of(self).identical_to(sequence_of(other)) ? 1 : 0);
}

// iter(s) and reversed(s): an iterator holding its own handle of the version (O(1)).
struct Iteration {
  Seq s;
  std::size_t next;  // forward: the next index; reverse: one past it
  bool reverse;
};

PyObject* make_iterator(PyObject* self, bool reverse) {
  const Seq& s = sequence_of(self);
  return box(Iteration{s, reverse ? s.size() : 0, reverse});
}

PyObject* seq_iter(PyObject* self) { return make_iterator(self, false); }
PyObject* seq_reversed(PyObject* self, PyObject* /*unused*/) { return make_iterator(self, true); }

PyObject* iterator_next(PyObject* self) {
  auto& it = const_cast<Iteration&>(unbox<Iteration>(self));
  if (it.reverse) {
    if (it.next == 0) return nullptr;  // StopIteration
    return box(it.s[--it.next]);
  }
  if (it.next >= it.s.size()) return nullptr;
  return box(it.s[it.next++]);
}

PyObject* iterator_self(PyObject* self) {
  Py_INCREF(self);
  return self;
}

PyObject* iterator_length_hint(PyObject* self, PyObject* /*unused*/) {
  const Iteration& it = unbox<Iteration>(self);
  return PyLong_FromSize_t(it.reverse ? it.next : it.s.size() - std::min(it.next, it.s.size()));
}

PyObject* seq_reduce(PyObject* self, PyObject* /*unused*/) {
  // Payloads are copied (each tensor pickles as a numpy array).
  return guarded([&] {
    const Seq& s = sequence_of(self);
    py::list items(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) items[i] = wrap(s[i]);
    return py::make_tuple(py::handle(reinterpret_cast<PyObject*>(Py_TYPE(self))),
                          py::make_tuple(items, dtype_name(s.dtype())))
        .release()
        .ptr();
  });
}

PyObject* seq_dtype(PyObject* self, void* /*unused*/) {
  return guarded([&] { return numpy_dtype(sequence_of(self).dtype()).release().ptr(); });
}
PyObject* seq_onnx_dtype(PyObject* self, void* /*unused*/) {
  return guarded([&] {
    const std::string n = dtype_name(sequence_of(self).dtype());
    return PyUnicode_FromStringAndSize(n.data(), static_cast<Py_ssize_t>(n.size()));
  });
}

const char* const sequence_doc = R"doc(Sequence(iterable=(), dtype=None)
--

An immutable, persistent sequence of tensors of one element type: ONNX's seq(tensor(T)).

Sequence(iterable=(), dtype=None) takes tensors or anything tseq.Tensor accepts (numpy
arrays, torch tensors), without copying their memory. dtype (a numpy dtype or an ONNX name)
defaults to the first tensor's (float32 for an empty sequence); every tensor must have it
(tseq.TypeError).

List-like: len(s), s[i] (negative i counts from the back; tseq.IndexError outside), s[a:b]
(an O(log n) slice sharing the tree; other steps build a new sequence, O(k log n)), iteration,
s + other (O(log n) concatenation), == (same element type, length and equal tensors). Every
update (append, insert, erase, set) returns a new Sequence in O(log n) and leaves s
unchanged; no tensor payload is ever copied. Sequences are safe to read and derive from in
several threads at once. Not hashable; pickling copies the payloads.
)doc";

}  // namespace

py::object wrap(TensorSequence s) { return py::cast(std::move(s)); }

void bind_sequence(py::module_& m) {
  static PyMethodDef methods[] = {
      {"append", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&seq_append)), METH_FASTCALL,
       "append($self, t, /)\n--\n\nA new sequence with t added at the end. O(log n)."},
      {"insert", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&seq_insert)), METH_FASTCALL,
       "insert($self, i, t, /)\n--\n\nA new sequence with t before position i, i in [-len, len] (len appends; "
       "negative as ONNX's SequenceInsert: -1 is before the last). O(log n)."},
      {"erase", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&seq_erase)), METH_FASTCALL,
       "erase($self, i=-1, /)\n--\n\nA new sequence without the tensor at i, i in [-len, len - 1] (default: the "
       "last). O(log n)."},
      {"set", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&seq_set)), METH_FASTCALL,
       "set($self, i, t, /)\n--\n\nA new sequence with the tensor at i replaced by t. O(log n)."},
      {"is_same", &seq_is_same, METH_O,
       "is_same($self, other, /)\n--\n\nTrue if both are the same version (O(1) identity, not equality)."},
      {"__reversed__", &seq_reversed, METH_NOARGS, "The tensors, last first."},
      {"__reduce__", &seq_reduce, METH_NOARGS, "Pickling: the tensors as numpy arrays (copies)."},
      {nullptr, nullptr, 0, nullptr}};
  static PyGetSetDef properties[] = {
      {"dtype", &seq_dtype, nullptr, "The tensors' element type as a numpy.dtype (kept when empty).", nullptr},
      {"onnx_dtype", &seq_onnx_dtype, nullptr, "The element type's ONNX name ('float', 'int64', ...).", nullptr},
      {nullptr, nullptr, nullptr, nullptr, nullptr}};
  static const PyType_Slot slots[] = {{Py_tp_new, reinterpret_cast<void*>(&seq_new)},
                                      {Py_tp_repr, reinterpret_cast<void*>(&seq_repr)},
                                      {Py_tp_richcompare, reinterpret_cast<void*>(&seq_richcompare)},
                                      {Py_tp_iter, reinterpret_cast<void*>(&seq_iter)},
                                      {Py_mp_length, reinterpret_cast<void*>(&seq_length)},
                                      {Py_mp_subscript, reinterpret_cast<void*>(&seq_subscript)},
                                      {Py_sq_length, reinterpret_cast<void*>(&seq_length)},
                                      {Py_sq_item, reinterpret_cast<void*>(&seq_item)},
                                      {Py_sq_contains, reinterpret_cast<void*>(&seq_contains)},
                                      {Py_nb_add, reinterpret_cast<void*>(&seq_add)},
                                      {Py_tp_methods, methods},
                                      {Py_tp_getset, properties},
                                      {Py_tp_doc, const_cast<char*>(sequence_doc)},
                                      {0, nullptr}};
  make_boxed_type<Seq>(m, "Sequence", "tseq.Sequence", slots);

  static PyMethodDef iterator_methods[] = {{"__length_hint__", &iterator_length_hint, METH_NOARGS, nullptr},
                                           {nullptr, nullptr, 0, nullptr}};
  static const PyType_Slot iterator_slots[] = {{Py_tp_iter, reinterpret_cast<void*>(&iterator_self)},
                                               {Py_tp_iternext, reinterpret_cast<void*>(&iterator_next)},
                                               {Py_tp_methods, iterator_methods},
                                               {0, nullptr}};
  make_boxed_type<Iteration>(m, "SequenceIterator", "tseq.SequenceIterator", iterator_slots);
}

// For ops.cpp and onnx.cpp.
Seq sequence_argument(py::handle o, const char* what) { return as_sequence(o, what); }
Seq sequence_from(py::handle iterable, DataType dtype, const char* what) { return tensors_of(iterable, dtype, what); }
std::int64_t int_position(py::handle i, const char* what) { return position_of(i, what); }

}  // namespace tseq::python
