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
