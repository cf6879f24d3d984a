// The registry: every operator record, gathered from the families, and look-ups over them.

#include "registry.hpp"

#include <algorithm>

namespace tseq::onnx::detail {

void CheckContext::fail(const std::string& what) const { throw Error(where() + ": " + what); }

std::vector<MaybeType> first_output(const InferContext& c, MaybeType t) {
  std::vector<MaybeType> r(c.node.outputs.size());
  if (!r.empty()) r[0] = t;
  return r;
}

MaybeType element_tensor(const MaybeType& seq) {
  if (!seq || seq->kind != ValueType::Kind::Sequence) return std::nullopt;
  return ValueType::tensor(seq->dtype);
}

const std::vector<const OpInfo*>& all_ops() {
  static const std::vector<const OpInfo*> ops = [] {
    std::vector<const OpInfo*> r;
    for (const auto* family : {&tensor_ops(), &sequence_ops(), &optional_ops(), &control_flow_ops()}) {
      for (const OpInfo& o : *family) r.push_back(&o);
    }
    std::sort(r.begin(), r.end(), [](const OpInfo* a, const OpInfo* b) {
      return a->name != b->name ? a->name < b->name : a->since < b->since;
    });
    return r;
  }();
  return ops;
}

const OpInfo* find_op(std::string_view op, int opset) {
  for (const OpInfo* o : all_ops()) {
    if (o->name == op && opset >= o->since && opset <= o->until) return o;
  }
  return nullptr;
}

bool known_op(std::string_view op) {
  return std::any_of(all_ops().begin(), all_ops().end(), [&](const OpInfo* o) { return o->name == op; });
}

}  // namespace tseq::onnx::detail

namespace tseq::onnx {

std::vector<std::string_view> supported_operators() {
  std::vector<std::string_view> r;
  for (const detail::OpInfo* o : detail::all_ops()) {
    if (r.empty() || r.back() != o->name) r.push_back(o->name);  // sorted: forms of one name are adjacent
  }
  return r;
}

}  // namespace tseq::onnx
