// The sequence operators (Sequence*, SplitToSequence, ConcatFromSequence): their kernels and
// registry records.

#include "../split_plan.hpp"
#include "kernel_support.hpp"
#include "registry.hpp"
#include "tseq/detail/checked.hpp"
#include "tseq/ops.hpp"

namespace tseq::onnx::detail {

namespace {

Values sequence_empty(const Node& n, Inputs&, const Scope&, Context&) {
  return one(ops::sequence_empty(sequence_empty_dtype(n)));
}

Values sequence_construct(const Node&, Inputs& in, const Scope&, Context& cx) {
  cx.check_sequence(static_cast<std::int64_t>(in.size()), "SequenceConstruct");
  std::vector<Tensor> ts;
  ts.reserve(in.size());
  for (std::size_t j = 0; j < in.size(); ++j) ts.push_back(tensor_input(in, j));
  return one(ops::sequence_construct(ts));
}

Values sequence_insert(const Node&, Inputs& in, const Scope&, Context& cx) {
  const Tensor t = tensor_input(in, 1);
  const auto pos = optional_tensor(in, 2);
  TensorSequence s = take_sequence(in, 0);
  cx.check_sequence(static_cast<std::int64_t>(s.size()) + 1, "SequenceInsert");
  return one(ops::sequence_insert(std::move(s), t, pos));
}

Values sequence_erase(const Node&, Inputs& in, const Scope&, Context&) {
  const auto pos = optional_tensor(in, 1);
  return one(ops::sequence_erase(take_sequence(in, 0), pos));
}

Values sequence_at(const Node&, Inputs& in, const Scope&, Context&) {
  return one(ops::sequence_at(take_sequence(in, 0), tensor_input(in, 1)));
}

Values sequence_length(const Node&, Inputs& in, const Scope&, Context& cx) {
  return one(ops::sequence_length(take_sequence(in, 0), cx.resource));
}

Values split_to_sequence(const Node& n, Inputs& in, const Scope&, Context& cx) {
  const Tensor& x = tensor_input(in, 0);
  const auto split = optional_tensor(in, 1);
  const std::int64_t axis = int_attribute(n, "axis", 0);
  const std::int64_t keepdims = int_attribute(n, "keepdims", 1);
  // Limits first: how many pieces, and what they cost, before anything is made.
  const tseq::detail::SplitPlan plan = tseq::detail::split_plan(x, split, axis, keepdims);
  cx.check_sequence(plan.count, "SplitToSequence");
  cx.check_run_bytes(tseq::detail::split_bytes(x, plan), "SplitToSequence");
  return one(tseq::detail::split_pieces(x, plan, cx.resource));
}

Values concat_from_sequence(const Node& n, Inputs& in, const Scope&, Context& cx) {
  const TensorSequence s = take_sequence(in, 0);
  const std::int64_t new_axis = int_attribute(n, "new_axis", 0);
  if (!s.empty() && s[0].rank() + (new_axis != 0 ? 1 : 0) > max_rank) {
    throw Error("ConcatFromSequence: the result would have rank " +
                std::to_string(s[0].rank() + (new_axis != 0 ? 1 : 0)) + ", over tseq::onnx's max_rank of " +
                std::to_string(max_rank));
  }
  std::int64_t total = 0;
  std::int64_t chars = 0;  // string elements: their characters, copied from the global heap
  for (const Tensor& t : s) {
    total = tseq::detail::checked_add(total, static_cast<std::int64_t>(t.size()), "ConcatFromSequence",
                                      "the result's element count");
    chars = tseq::detail::checked_add(chars, string_chars(t), "ConcatFromSequence", "the result's characters");
  }
  cx.check_tensor(total, s.dtype(), "ConcatFromSequence", chars);
  return one(ops::concat_from_sequence(s, int_attribute(n, "axis", std::nullopt), new_axis, cx.resource));
}

// ---- checks and type inference ----

// SequenceEmpty's dtype is a sequence element type (TypeError, as at run time).
void check_sequence_empty(const CheckContext& c) {
  try {
    (void)sequence_empty_dtype(c.node);
  } catch (const TypeError& e) {
    throw TypeError(c.where() + ": " + e.what());
  }
}

std::vector<MaybeType> same_as_input0(const InferContext& c) { return first_output(c, c.input(0)); }
std::vector<MaybeType> int64_tensor(const InferContext& c) {
  return first_output(c, ValueType::tensor(DataType::Int64));
}
std::vector<MaybeType> element_of_input0(const InferContext& c) { return first_output(c, element_tensor(c.input(0))); }
std::vector<MaybeType> empty_type(const InferContext& c) {
  return first_output(c, ValueType::sequence(sequence_empty_dtype(c.node)));  // checked by check_sequence_empty
}
// A sequence of input 0's tensor type.
std::vector<MaybeType> sequence_of_input0(const InferContext& c) {
  MaybeType r;
  if (auto t = c.input(0); t && t->kind == ValueType::Kind::Tensor) r = ValueType::sequence(t->dtype);
  return first_output(c, r);
}

}  // namespace

const std::vector<OpInfo>& sequence_ops() {
  static const std::vector<OpInfo> ops = {
      {.name = "ConcatFromSequence",
       .since = 11,
       .kernel = concat_from_sequence,
       .min_inputs = 1,
       .max_inputs = 1,
       .required_attributes = {"axis"},
       .infer = element_of_input0},
      {.name = "SequenceAt",
       .since = 11,
       .kernel = sequence_at,
       .min_inputs = 2,
       .max_inputs = 2,
       .infer = element_of_input0},
      {.name = "SequenceConstruct",
       .since = 11,
       .kernel = sequence_construct,
       .min_inputs = 1,
       .max_inputs = kAnyInputs,
       .infer = sequence_of_input0},
      {.name = "SequenceEmpty",
       .since = 11,
       .kernel = sequence_empty,
       .check = check_sequence_empty,
       .infer = empty_type},
      {.name = "SequenceErase",
       .since = 11,
       .kernel = sequence_erase,
       .min_inputs = 1,
       .max_inputs = 2,
       .infer = same_as_input0},
      {.name = "SequenceInsert",
       .since = 11,
       .kernel = sequence_insert,
       .min_inputs = 2,
       .max_inputs = 3,
       .infer = same_as_input0},
      {.name = "SequenceLength",
       .since = 11,
       .kernel = sequence_length,
       .min_inputs = 1,
       .max_inputs = 1,
       .infer = int64_tensor},
      {.name = "SplitToSequence",
       .since = 11,
       .kernel = split_to_sequence,
       .min_inputs = 1,
       .max_inputs = 2,
       .infer = sequence_of_input0},
  };
  return ops;
}

}  // namespace tseq::onnx::detail
