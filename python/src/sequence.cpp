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
  if (overflow != 0) {
    throw IndexError(std::string(what) + ": position " + py::str(n).cast<std::string>() + " does not fit in 64 bits");
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
Seq sequence_from(py::handle iterable, py::handle dtype_obj, const char* what) {
  if (py::isinstance<Seq>(iterable)) {
    const Seq& s = iterable.cast<const Seq&>();
    if (dtype_obj.is_none() || dtype_from_python(dtype_obj, what) == s.dtype()) return s;
  }
  std::optional<DataType> dtype;
  if (!dtype_obj.is_none()) dtype = dtype_from_python(dtype_obj, what);
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
  if (!py::isinstance<Seq>(o)) {
    throw TypeError(std::string(what) + ": expected a tseq.Sequence, got a " +
                    py::str(py::type::handle_of(o).attr("__name__")).cast<std::string>());
  }
  return o.cast<const Seq&>();
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

// ---- The hot paths as CPython slots (pybind11's dispatch costs more than the tree) ----

// The TensorSequence inside a tseq.Sequence object, or nullptr (a subclass instance whose
// __init__ did not run, or a layout pybind11 does not keep simple).
const Seq* sequence_ptr(PyObject* self) noexcept {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  if (!inst->simple_layout || !inst->simple_holder_constructed) return nullptr;
  return static_cast<const Seq*>(inst->simple_value_holder[0]);
}

PyObject* uninitialised() {
  PyErr_SetString(PyExc_TypeError, "tseq.Sequence: the object's __init__ has not run");
  return nullptr;
}

Py_ssize_t seq_length(PyObject* self) {
  const Seq* s = sequence_ptr(self);
  if (s == nullptr) {
    (void)uninitialised();
    return -1;
  }
  return static_cast<Py_ssize_t>(s->size());
}

PyObject* seq_subscript(PyObject* self, PyObject* key) {
  const Seq* s = sequence_ptr(self);
  if (s == nullptr) return uninitialised();
  if (PyLong_CheckExact(key)) {  // s[i]: no pybind11 dispatch, one object made
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(key, &overflow);
    const auto n = static_cast<long long>(s->size());
    if (overflow == 0 && i < 0) i += n;
    if (overflow == 0 && i >= 0 && i < n) return new_tensor_object((*s)[static_cast<std::size_t>(i)]);
  }
  try {  // slices, other index types, and every error message
    return get_item(*s, key).release().ptr();
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

PyObject* seq_item(PyObject* self, Py_ssize_t i) {  // PySequence_GetItem (negatives already adjusted)
  const Seq* s = sequence_ptr(self);
  if (s == nullptr) return uninitialised();
  if (i >= 0 && static_cast<std::size_t>(i) < s->size()) return new_tensor_object((*s)[static_cast<std::size_t>(i)]);
  try {
    return get_item(*s, py::int_(i)).release().ptr();
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

// iter(s) and reversed(s): an iterator holding its own handle of the version (O(1)).
struct IteratorObject {
  PyObject_HEAD std::size_t next;  // forward: the next index; reverse: one past it
  bool reverse;
  alignas(Seq) unsigned char storage[sizeof(Seq)];
};

PyTypeObject* iterator_type = nullptr;

Seq& iterated(PyObject* self) {
  return *std::launder(reinterpret_cast<Seq*>(reinterpret_cast<IteratorObject*>(self)->storage));
}

PyObject* make_iterator(PyObject* self, bool reverse) {
  const Seq* s = sequence_ptr(self);
  if (s == nullptr) return uninitialised();
  PyObject* o = iterator_type->tp_alloc(iterator_type, 0);
  if (o == nullptr) return nullptr;
  auto* it = reinterpret_cast<IteratorObject*>(o);
  new (it->storage) Seq(*s);
  it->reverse = reverse;
  it->next = reverse ? s->size() : 0;
  return o;
}

PyObject* seq_iter(PyObject* self) { return make_iterator(self, false); }

PyObject* iterator_next(PyObject* self) {
  auto* it = reinterpret_cast<IteratorObject*>(self);
  const Seq& s = iterated(self);
  if (it->reverse) {
    if (it->next == 0) return nullptr;  // StopIteration
    return new_tensor_object(s[--it->next]);
  }
  if (it->next >= s.size()) return nullptr;
  return new_tensor_object(s[it->next++]);
}

PyObject* iterator_self(PyObject* self) {
  Py_INCREF(self);
  return self;
}

void iterator_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  iterated(self).~Seq();
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject* iterator_length_hint(PyObject* self, PyObject* /*unused*/) {
  auto* it = reinterpret_cast<IteratorObject*>(self);
  const std::size_t n = iterated(self).size();
  return PyLong_FromSize_t(it->reverse ? it->next : n - std::min(it->next, n));
}

// A new reference from a CPython slot as an object, or its Python error as a C++ exception.
py::object checked(PyObject* o) {
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

void install_fast_paths(py::handle cls) {
  static PyMethodDef methods[] = {{"__length_hint__", &iterator_length_hint, METH_NOARGS, nullptr},
                                  {nullptr, nullptr, 0, nullptr}};
  static PyType_Slot slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(&iterator_dealloc)},
                                {Py_tp_iter, reinterpret_cast<void*>(&iterator_self)},
                                {Py_tp_iternext, reinterpret_cast<void*>(&iterator_next)},
                                {Py_tp_methods, methods},
                                {0, nullptr}};
  static PyType_Spec spec = {"tseq.SequenceIterator", static_cast<int>(sizeof(IteratorObject)), 0, Py_TPFLAGS_DEFAULT,
                             slots};
  PyObject* it = PyType_FromSpec(&spec);
  if (it == nullptr) throw py::error_already_set();
  iterator_type = reinterpret_cast<PyTypeObject*>(it);  // kept for the module's lifetime
  // The pybind11 class's slots, set when __len__/__getitem__/__iter__ were defined, now go
  // straight here; the methods stay in the class for introspection and explicit calls.
  auto* heap = reinterpret_cast<PyHeapTypeObject*>(cls.ptr());
  heap->as_mapping.mp_length = &seq_length;
  heap->as_mapping.mp_subscript = &seq_subscript;
  heap->as_sequence.sq_length = &seq_length;
  heap->as_sequence.sq_item = &seq_item;
  heap->ht_type.tp_iter = &seq_iter;
  PyType_Modified(&heap->ht_type);
}

}  // namespace

py::object wrap(TensorSequence s) { return py::cast(std::move(s)); }

void bind_sequence(py::module_& m) {
  py::class_<Seq> cls(m, "Sequence", R"doc(
An immutable, persistent sequence of tensors of one element type: ONNX's seq(tensor(T)).

Sequence(iterable=(), dtype=None) takes tensors or anything tseq.Tensor accepts (numpy
arrays, torch tensors), without copying their memory. dtype defaults to the first tensor's
(float32 for an empty sequence); every tensor must have it (tseq.TypeError).

List-like: len(s), s[i] (negative i counts from the back; tseq.IndexError outside), s[a:b]
(an O(log n) slice sharing the tree; other steps build a new sequence, O(k log n)), iteration,
s + other (O(log n) concatenation), ==. Every update (append, insert, erase, set) returns a
new Sequence in O(log n) and leaves s unchanged; no tensor payload is ever copied. Sequences
are safe to read and derive from in several threads at once.
)doc");
  cls.def(py::init(
              [](py::handle iterable, py::handle dtype) { return sequence_from(iterable, dtype, "tseq.Sequence"); }),
          py::arg("iterable") = py::tuple(), py::arg("dtype") = py::none())
      .def_property_readonly(
          "dtype", [](const Seq& s) { return numpy_dtype(s.dtype()); },
          "The tensors' element type as a numpy.dtype (kept when the sequence is empty).")
      .def_property_readonly(
          "onnx_dtype", [](const Seq& s) { return dtype_name(s.dtype()); }, "The element type's ONNX name.")
      .def("__len__", &Seq::size)
      .def("__getitem__", &get_item)
      .def("__iter__", [](py::handle self) { return checked(seq_iter(self.ptr())); })
      .def("__reversed__", [](py::handle self) { return checked(make_iterator(self.ptr(), true)); })
      .def(
          "__contains__",
          [](const Seq& s, py::handle t) {
            if (!is_tensor(t)) return false;
            const Tensor& x = tensor_of(t);
            for (const Tensor& e : s) {
              if (e.identical_to(x) || equal(e, x)) return true;
            }
            return false;
          },
          "True if a tensor equal to t (tseq.Tensor ==) is in the sequence. O(n).")
      .def(
          "append", [](const Seq& s, py::handle t) { return s.push_back(joining(s, t, "Sequence.append")); },
          py::arg("t"), "A new sequence with t added at the end. O(log n), amortised O(1) per level.")
      .def(
          "insert",
          [](const Seq& s, py::handle i, py::handle t) {
            const std::size_t p = resolve("Sequence.insert", position_of(i, "Sequence.insert"), s.size(), true);
            return s.insert(p, joining(s, t, "Sequence.insert"));
          },
          py::arg("i"), py::arg("t"),
          "A new sequence with t before position i, i in [-len, len] (len appends; negative as ONNX's "
          "SequenceInsert: -1 is before the last). O(log n).")
      .def(
          "erase",
          [](const Seq& s, py::handle i) {
            return s.erase(resolve("Sequence.erase", position_of(i, "Sequence.erase"), s.size(), false));
          },
          py::arg("i") = -1,
          "A new sequence without the tensor at i, i in [-len, len - 1] (default: the last). O(log n).")
      .def(
          "set",
          [](const Seq& s, py::handle i, py::handle t) {
            const std::size_t p = resolve("Sequence.set", position_of(i, "Sequence.set"), s.size(), false);
            return s.set(p, joining(s, t, "Sequence.set"));
          },
          py::arg("i"), py::arg("t"), "A new sequence with the tensor at i replaced by t. O(log n).")
      .def(
          "is_same", [](const Seq& a, const Seq& b) { return a.identical_to(b); }, py::arg("other"),
          "True if both are the same version (O(1) identity, not equality).")
      .def(
          "__add__",
          [](const Seq& a, py::handle b) -> py::object {
            if (!py::isinstance<Seq>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
            const Seq& o = b.cast<const Seq&>();
            if (o.dtype() != a.dtype()) {
              throw TypeError("Sequence +: a sequence of " + dtype_name(o.dtype()) + " tensors cannot follow one of " +
                              dtype_name(a.dtype()) + " tensors");
            }
            return wrap(a + o);
          },
          py::is_operator())
      .def(
          "__eq__",
          [](const Seq& a, py::handle b) -> py::object {
            if (!py::isinstance<Seq>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
            const Seq& o = b.cast<const Seq&>();
            return py::bool_(a.identical_to(o) || equal(a, o));
          },
          py::is_operator())
      .def(
          "__ne__",
          [](const Seq& a, py::handle b) -> py::object {
            if (!py::isinstance<Seq>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
            const Seq& o = b.cast<const Seq&>();
            return py::bool_(!(a.identical_to(o) || equal(a, o)));
          },
          py::is_operator())
      .def("__repr__", &repr)
      .def("__reduce__", [](py::handle self) {
        // Payloads are copied (each tensor pickles as a numpy array).
        const Seq& s = self.cast<const Seq&>();
        py::list items(s.size());
        for (std::size_t i = 0; i < s.size(); ++i) items[i] = wrap(s[i]);
        return py::make_tuple(py::type::handle_of(self), py::make_tuple(items, dtype_name(s.dtype())));
      });
  cls.attr("__hash__") = py::none();
  install_fast_paths(cls);
}

// For ops.cpp and onnx.cpp.
Seq sequence_argument(py::handle o, const char* what) { return as_sequence(o, what); }
Seq sequence_of(py::handle iterable, DataType dtype, const char* what) {
  return sequence_from(iterable, py::str(dtype_name(dtype)), what);
}
std::int64_t int_position(py::handle i, const char* what) { return position_of(i, what); }

}  // namespace tseq::python
