#pragma once

// Builds small ONNX models in memory for the executor tests and benchmarks.

#include <string>
#include <vector>

#include "onnx/onnx-data_pb.h"
#include "onnx/onnx_pb.h"
#include "tseq/onnx/proto.hpp"

namespace tseq_test {

inline void set_tensor_type(::onnx::TypeProto* t, tseq::DataType d) {
  t->mutable_tensor_type()->set_elem_type(static_cast<int>(d));
}
inline void set_sequence_type(::onnx::TypeProto* t, tseq::DataType d) {
  set_tensor_type(t->mutable_sequence_type()->mutable_elem_type(), d);
}

inline void add_input(::onnx::GraphProto& g, const std::string& name, tseq::DataType d, bool sequence) {
  auto* vi = g.add_input();
  vi->set_name(name);
  sequence ? set_sequence_type(vi->mutable_type(), d) : set_tensor_type(vi->mutable_type(), d);
}

// A rank-0 tensor input (ONNX Runtime wants Loop body inputs to declare their shapes).
inline void add_scalar_input(::onnx::GraphProto& g, const std::string& name, tseq::DataType d) {
  auto* vi = g.add_input();
  vi->set_name(name);
  set_tensor_type(vi->mutable_type(), d);
  vi->mutable_type()->mutable_tensor_type()->mutable_shape();
}
inline void add_output(::onnx::GraphProto& g, const std::string& name, tseq::DataType d, bool sequence) {
  auto* vi = g.add_output();
  vi->set_name(name);
  sequence ? set_sequence_type(vi->mutable_type(), d) : set_tensor_type(vi->mutable_type(), d);
}

inline ::onnx::NodeProto* add_node(::onnx::GraphProto& g, const std::string& op, const std::vector<std::string>& in,
                                   const std::vector<std::string>& out, const std::string& name = {}) {
  auto* n = g.add_node();
  n->set_op_type(op);
  if (!name.empty()) n->set_name(name);
  for (const auto& i : in) n->add_input(i);
  for (const auto& o : out) n->add_output(o);
  return n;
}

inline void add_int_attribute(::onnx::NodeProto* n, const std::string& name, std::int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}

inline void add_tensor_attribute(::onnx::NodeProto* n, const std::string& name, const tseq::Tensor& t) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::TENSOR);
  tseq::onnx::to_proto(t, *a->mutable_t());
}

inline void add_graph_attribute(::onnx::NodeProto* n, const std::string& name, const ::onnx::GraphProto& g) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::GRAPH);
  *a->mutable_g() = g;
}

// A Loop body over one loop-carried float sequence "s": it passes the condition "c" through and
// sets s2 = op(s, operands...), e.g. ("SequenceErase", {"i"}) erases at the iteration number
// and ("SequenceInsert", {"x"}) appends a value "x" of the enclosing graph.
inline ::onnx::GraphProto sequence_loop_body(const std::string& op, const std::vector<std::string>& operands) {
  ::onnx::GraphProto body;
  body.set_name("loop_body");
  add_scalar_input(body, "i", tseq::DataType::Int64);
  add_scalar_input(body, "c", tseq::DataType::Bool);
  add_input(body, "s", tseq::DataType::Float, true);
  add_node(body, "Identity", {"c"}, {"c2"});
  std::vector<std::string> in{"s"};
  in.insert(in.end(), operands.begin(), operands.end());
  add_node(body, op, in, {"s2"});
  add_output(body, "c2", tseq::DataType::Bool, false);
  add_output(body, "s2", tseq::DataType::Float, true);
  return body;
}

inline ::onnx::ModelProto make_model(const ::onnx::GraphProto& g, int opset = 17) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  *m.mutable_graph() = g;
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  return m;
}

}  // namespace tseq_test
