// The models api_test.cpp runs, serialized (see api_models.hpp).

#include "onnx/api_models.hpp"

#include "onnx/hostile_models.hpp"

namespace tseq_test::api {

namespace {

std::string bytes_of(const ::onnx::ModelProto& m) { return m.SerializeAsString(); }

}  // namespace

std::string constant_model() {
  ::onnx::GraphProto g;
  g.set_name("constant");
  add_tensor_attribute(add_node(g, "Constant", {}, {"y"}), "value", tseq::Tensor::scalar(7.f));
  add_output(g, "y", tseq::DataType::Float, false);
  return bytes_of(make_model(g));
}

std::string defaulted_model() {
  ::onnx::GraphProto g;
  g.set_name("defaulted");
  add_input(g, "x", tseq::DataType::Float, false);
  tseq::onnx::to_proto(tseq::Tensor::from_values<float>(tseq::Shape{2}, {1, 2}), *g.add_initializer(), "x");
  add_node(g, "Identity", {"x"}, {"y"});
  add_output(g, "y", tseq::DataType::Float, false);
  return bytes_of(make_model(g));
}

std::string add_model() { return bytes_of(hostile::add_broadcast()); }

std::string endless_model() { return bytes_of(hostile::endless_loop()); }

std::string unsqueeze_model(const std::vector<std::int64_t>& axes) { return bytes_of(hostile::unsqueeze(axes)); }

}  // namespace tseq_test::api
