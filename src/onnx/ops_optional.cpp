// The optional operators (Optional, OptionalHasElement, OptionalGetElement): their kernels
// and registry records.

#include "kernel_support.hpp"
#include "registry.hpp"
#include "tseq/onnx/proto.hpp"

namespace tseq::onnx::detail {

namespace {

Values optional(const Node& n, Inputs& in, const Scope&, Context&) {
  if (!in.empty() && in[0]) {
    Value v = std::move(*in[0]);
    if (v.is_optional()) throw TypeError("Optional: the input is already an optional");
    const ValueType e = type_of(v);  // a tensor or a sequence: optionals are refused above
    const ValueType t = ValueType::optional(e.kind, e.dtype);
    return one(OptionalValue{std::make_shared<const Value>(std::move(v)), t});
  }
  const auto* a = attribute(n, "type");
  if (a == nullptr) throw Error("Optional: without an input the 'type' attribute is required");
  const ValueType elem = from_proto(a->tp(), "Optional type");
  if (elem.kind == ValueType::Kind::Optional) throw TypeError("Optional: an optional cannot hold an optional");
  return one(OptionalValue{nullptr, ValueType::optional(elem.kind, elem.dtype)});
}

Values optional_has_element(const Node&, Inputs& in, const Scope&, Context& cx) {
  bool has = false;
  if (!in.empty() && in[0]) has = !in[0]->is_optional() || in[0]->optional().has_value();
  return one(Tensor::scalar(has, cx.resource));
}

Values optional_get_element(const Node&, Inputs& in, const Scope&, Context&) {
  Value& v = required(in, 0);
  if (!v.is_optional()) return one(std::move(v));
  if (!v.optional().has_value()) throw Error("OptionalGetElement: the optional is empty");
  return one(*v.optional().element);
}

// ---- type inference ----

std::vector<MaybeType> optional_type(const InferContext& c) {
  MaybeType r;
  const Node& n = c.node;
  if (auto t = c.input(0); t && t->kind != ValueType::Kind::Optional) {
    r = ValueType::optional(t->kind, t->dtype);
  } else if (const auto* a = attribute(n, "type"); a != nullptr && (n.inputs.empty() || n.inputs[0].empty())) {
    const ValueType e = from_proto(a->tp(), c.where() + " attribute 'type'");
    r = ValueType::optional(e.kind, e.dtype);
  }
  return first_output(c, r);
}

std::vector<MaybeType> get_element_type(const InferContext& c) {
  MaybeType r;
  if (auto t = c.input(0)) {
    r = t->kind == ValueType::Kind::Optional ? ValueType{t->optional_of, t->dtype, ValueType::Kind::Tensor} : *t;
  }
  return first_output(c, r);
}

std::vector<MaybeType> bool_tensor(const InferContext& c) { return first_output(c, ValueType::tensor(DataType::Bool)); }

}  // namespace

const std::vector<OpInfo>& optional_ops() {
  static const std::vector<OpInfo> ops = {
      {.name = "Optional", .since = 15, .kernel = optional, .min_inputs = 0, .max_inputs = 1, .infer = optional_type},
      {.name = "OptionalGetElement",
       .since = 15,
       .kernel = optional_get_element,
       .min_inputs = 1,
       .max_inputs = 1,
       .infer = get_element_type},
      {.name = "OptionalHasElement",
       .since = 15,
       .kernel = optional_has_element,
       .min_inputs = 0,
       .max_inputs = 1,
       .infer = bool_tensor},
  };
  return ops;
}

}  // namespace tseq::onnx::detail
