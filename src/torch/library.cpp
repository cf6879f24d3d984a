// The TorchScript class torch.classes.tseq.TensorSequence and the operators torch.ops.tseq.*
// (tseq/torch.hpp, docs/torch.md). Registered when the library loads (TORCH_LIBRARY).

#include <torch/custom_class.h>
#include <torch/library.h>

#include <string>
#include <tuple>
#include <vector>

#include "convert.hpp"
#include "tseq/error.hpp"
#include "tseq/ops.hpp"
#include "tseq/torch.hpp"

namespace tseq::torch {

namespace {

using Ptr = c10::intrusive_ptr<ScriptSequence>;

// The saved form (def_pickle): (version, ONNX element type code, numeric tensors, string
// tensors' shapes, string tensors' elements). uint16/32/64 tensors are saved as the signed
// type of their size (torch 1.13 has none of them), string tensors as shapes + str lists.
using SavedState = std::tuple<std::int64_t, std::int64_t, std::vector<at::Tensor>,
                              std::vector<std::vector<std::int64_t>>, std::vector<std::vector<std::string>>>;
constexpr std::int64_t saved_version = 1;

// An update of `s`: edits in place when the interpreter handed over the only reference (a
// value at its last use, `s = torch.ops.tseq.sequence_insert(s, t)` in a loop), otherwise
// returns a new object sharing all but the changed path. f(TensorSequence&&) checks its
// arguments before taking the sequence, so a throw leaves `s` as it was.
template <class F>
Ptr update(Ptr s, F&& f) {
  if (s.use_count() == 1 && s.weak_use_count() == 1) {
    TensorSequence v = s->take();
    try {
      s->reset(f(std::move(v)));
    } catch (...) {
      s->reset(std::move(v));
      throw;
    }
    return s;
  }
  return c10::make_intrusive<ScriptSequence>(f(TensorSequence(s->value())));
}

SavedState save(const Ptr& self) {
  const TensorSequence& s = self->value();
  SavedState state{saved_version, static_cast<std::int64_t>(s.dtype()), {}, {}, {}};
  if (s.dtype() == DataType::String) {
    auto& shapes = std::get<3>(state);
    auto& strings = std::get<4>(state);
    shapes.reserve(s.size());
    strings.reserve(s.size());
    for (const Tensor& t : s) {
      shapes.emplace_back(t.shape().dims().begin(), t.shape().dims().end());
      const auto v = t.values<std::string>();
      strings.emplace_back(v.begin(), v.end());
    }
  } else {
    auto& tensors = std::get<2>(state);
    tensors.reserve(s.size());
    for (const Tensor& t : s) tensors.push_back(detail::to_torch_bits(t));
  }
  return state;
}

// From a file: every field is checked (a hostile model must not crash, hang or corrupt).
Ptr load(SavedState state) {
  constexpr std::string_view what = "TensorSequence.__setstate__";
  auto& [version, code, tensors, shapes, strings] = state;
  if (version != saved_version) {
    throw Error(std::string(what) + ": saved format version " + std::to_string(version) +
                " is not known (this build reads version " + std::to_string(saved_version) + ")");
  }
  const DataType dtype = dtype_from_code(code, what);
  std::vector<Tensor> out;
  if (dtype == DataType::String) {
    if (!tensors.empty() || shapes.size() != strings.size()) {
      throw Error(std::string(what) +
                  ": a string sequence needs one shape per element list and no numeric tensors "
                  "(got " +
                  std::to_string(tensors.size()) + " tensors, " + std::to_string(shapes.size()) + " shapes, " +
                  std::to_string(strings.size()) + " element lists)");
    }
    out.reserve(shapes.size());
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      // from_values checks the shape (no negative dimension, no overflow) against the count.
      try {
        out.push_back(Tensor::from_values<std::string>(Shape(std::span<const std::int64_t>(shapes[i])),
                                                       std::span<const std::string>(strings[i])));
      } catch (const ShapeError& e) {
        throw ShapeError(std::string(what) + ": string tensor " + std::to_string(i) + ": " + e.what());
      } catch (const Error& e) {
        throw Error(std::string(what) + ": string tensor " + std::to_string(i) + ": " + e.what());
      }
    }
  } else {
    if (!shapes.empty() || !strings.empty()) {
      throw Error(std::string(what) + ": a " + dtype_name(dtype) + " sequence has no string elements (got " +
                  std::to_string(strings.size()) + ")");
    }
    out.reserve(tensors.size());
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      out.push_back(detail::from_torch(tensors[i], std::string(what) + ": tensor " + std::to_string(i), dtype));
    }
  }
  return c10::make_intrusive<ScriptSequence>(TensorSequence(dtype, std::span<const Tensor>(out)));
}

TensorSequence construct(const std::vector<at::Tensor>& tensors) {
  std::vector<Tensor> in;
  in.reserve(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    in.push_back(detail::from_torch(tensors[i], "SequenceConstruct: input " + std::to_string(i)));
  }
  return ops::sequence_construct(in);
}

}  // namespace

c10::intrusive_ptr<ScriptSequence> to_script(TensorSequence s) {
  return c10::make_intrusive<ScriptSequence>(std::move(s));
}

c10::IValue to_ivalue(TensorSequence s) { return c10::IValue(to_script(std::move(s))); }

TensorSequence from_ivalue(const c10::IValue& v) {
  if (!v.isObject() || v.type()->str() != script_class_name) {
    throw TypeError("from_ivalue: expected a " + std::string(script_class_name) + ", got a value of type " +
                    v.type()->str());
  }
  return v.toCustomClass<ScriptSequence>()->value();
}

void register_library() noexcept {}

}  // namespace tseq::torch

// The class in operator schemas (script_class_name, as a literal to splice into them).
#define TSEQ_SEQ "__torch__.torch.classes.tseq.TensorSequence"

TORCH_LIBRARY(tseq, m) {
  using tseq::TensorSequence;
  using tseq::torch::Ptr;
  using tseq::torch::ScriptSequence;
  namespace ops = tseq::ops;
  namespace tt = tseq::torch;

  m.class_<ScriptSequence>("TensorSequence")
      .def(::torch::init<>())
      .def("__len__", [](const Ptr& self) { return static_cast<std::int64_t>(self->value().size()); })
      .def("__getitem__",
           [](const Ptr& self, std::int64_t i) { return tt::to_torch(ops::sequence_at(self->value(), i)); })
      .def("dtype_name", [](const Ptr& self) { return tseq::dtype_name(self->value().dtype()); })
      .def("tensors",
           [](const Ptr& self) {
             std::vector<at::Tensor> out;
             out.reserve(self->value().size());
             for (const tseq::Tensor& t : self->value()) out.push_back(tt::to_torch(t));
             return out;
           })
      .def_pickle([](const Ptr& self) { return tt::save(self); },
                  [](tt::SavedState state) { return tt::load(std::move(state)); });

  m.def("sequence_empty(ScalarType? dtype=None) -> " TSEQ_SEQ, [](c10::optional<c10::ScalarType> dtype) {
    tseq::DataType t = tseq::DataType::Float;
    if (dtype) {
      const auto d = tt::dtype_from_torch(*dtype);
      if (!d) {
        throw tseq::TypeError("SequenceEmpty: dtype " + std::string(c10::toString(*dtype)) +
                              " has no ONNX counterpart");
      }
      t = *d;
    }
    return tt::to_script(ops::sequence_empty(t));
  });
  m.def("sequence_construct(Tensor[] tensors) -> " TSEQ_SEQ,
        [](std::vector<at::Tensor> tensors) { return tt::to_script(tt::construct(tensors)); });
  m.def("sequence_insert(" TSEQ_SEQ " seq, Tensor tensor, int? position=None) -> " TSEQ_SEQ,
        [](Ptr s, at::Tensor tensor, c10::optional<std::int64_t> position) {
          const tseq::Tensor t = tseq::torch::detail::from_torch(tensor, "SequenceInsert: tensor");
          return tt::update(std::move(s), [&](TensorSequence&& v) {
            return position ? ops::sequence_insert(std::move(v), t, *position) : ops::sequence_insert(std::move(v), t);
          });
        });
  m.def("sequence_erase(" TSEQ_SEQ " seq, int? position=None) -> " TSEQ_SEQ,
        [](Ptr s, c10::optional<std::int64_t> position) {
          return tt::update(std::move(s), [&](TensorSequence&& v) {
            return position ? ops::sequence_erase(std::move(v), *position) : ops::sequence_erase(std::move(v));
          });
        });
  m.def("sequence_at(" TSEQ_SEQ " seq, int position) -> Tensor",
        [](const Ptr& s, std::int64_t position) { return tt::to_torch(ops::sequence_at(s->value(), position)); });
  m.def("sequence_length(" TSEQ_SEQ " seq) -> int",
        [](const Ptr& s) { return static_cast<std::int64_t>(s->value().size()); });
  m.def("split_to_sequence(Tensor input, Tensor? split=None, int axis=0, bool keepdims=True) -> " TSEQ_SEQ,
        [](const at::Tensor& input, const c10::optional<at::Tensor>& split, std::int64_t axis, bool keepdims) {
          const tseq::Tensor in = tseq::torch::detail::from_torch(input, "SplitToSequence: input");
          std::optional<tseq::Tensor> sp;
          if (split && split->defined()) sp = tseq::torch::detail::from_torch(*split, "SplitToSequence: split");
          return tt::to_script(ops::split_to_sequence(in, sp, axis, keepdims ? 1 : 0));
        });
  m.def("concat_from_sequence(" TSEQ_SEQ " seq, int axis, bool new_axis=False) -> Tensor",
        [](const Ptr& s, std::int64_t axis, bool new_axis) {
          return tt::to_torch(ops::concat_from_sequence(s->value(), axis, new_axis ? 1 : 0));
        });
}
