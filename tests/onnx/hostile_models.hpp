#pragma once

// Small models that once broke tseq::onnx (issue 11): resource bombs, arithmetic overflows and
// pathological graphs. Built in memory, for the regression tests and the loader fuzzer's seeds
// (fuzz/make_seeds.cpp); none needs a large file.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "onnx/model_builder.hpp"
#include "tseq/tensor.hpp"

namespace tseq_test::hostile {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

// An initializer with dims and no elements (dims containing 0): a few bytes on disk.
inline void add_empty_initializer(::onnx::GraphProto& g, const std::string& name, std::vector<std::int64_t> dims) {
  auto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(static_cast<int>(tseq::DataType::Float));
  for (auto d : dims) t->add_dims(d);
}

inline void add_ints_initializer(::onnx::GraphProto& g, const std::string& name, std::vector<std::int64_t> v) {
  tseq::onnx::to_proto(tseq::Tensor::from_values<std::int64_t>(tseq::Shape{static_cast<std::int64_t>(v.size())}, v),
                       *g.add_initializer(), name);
}

// SplitToSequence of a [0, 10^8] tensor along axis 1: 10^8 empty pieces (about 100 bytes).
inline ::onnx::ModelProto split_bomb() {
  ::onnx::GraphProto g;
  g.set_name("split_bomb");
  add_empty_initializer(g, "x", {0, 100000000});
  add_int_attribute(add_node(g, "SplitToSequence", {"x"}, {"s"}), "axis", 1);
  add_node(g, "SequenceLength", {"s"}, {"n"});
  add_output(g, "n", tseq::DataType::Int64, false);
  return make_model(g);
}

// SplitToSequence of input x along axis 0 into pieces of one row each; the output is their count.
inline ::onnx::ModelProto split_rows() {
  ::onnx::GraphProto g;
  g.set_name("split_rows");
  add_input(g, "x", tseq::DataType::Float, false);
  add_node(g, "SplitToSequence", {"x"}, {"s"});
  add_node(g, "SequenceLength", {"s"}, {"n"});
  add_output(g, "n", tseq::DataType::Int64, false);
  return make_model(g);
}

// Add of inputs a [n, 1] and b [1, n]: an n x n result.
inline ::onnx::ModelProto add_broadcast() {
  ::onnx::GraphProto g;
  g.set_name("add_broadcast");
  add_input(g, "a", tseq::DataType::Float, false);
  add_input(g, "b", tseq::DataType::Float, false);
  add_node(g, "Add", {"a", "b"}, {"c"});
  add_output(g, "c", tseq::DataType::Float, false);
  return make_model(g);
}

// A Loop of M iterations whose body makes a [k] constant scan output each time.
inline ::onnx::ModelProto scan_bomb(std::int64_t m, std::int64_t k) {
  ::onnx::GraphProto body;
  body.set_name("scan_body");
  add_scalar_input(body, "i", tseq::DataType::Int64);
  add_scalar_input(body, "c", tseq::DataType::Bool);
  add_node(body, "Identity", {"c"}, {"c2"});
  std::vector<float> ones(static_cast<std::size_t>(k), 1.f);
  add_tensor_attribute(add_node(body, "Constant", {}, {"row"}), "value",
                       tseq::Tensor::from_values<float>(tseq::Shape{k}, ones));
  add_output(body, "c2", tseq::DataType::Bool, false);
  add_output(body, "row", tseq::DataType::Float, false);
  ::onnx::GraphProto g;
  g.set_name("scan_bomb");
  add_ints_initializer(g, "m", {m});
  add_graph_attribute(add_node(g, "Loop", {"m", ""}, {"rows"}), "body", body);
  add_output(g, "rows", tseq::DataType::Float, false);
  return make_model(g);
}

// ConcatFromSequence along axis 0 of four [2^62, 0] tensors: the result's axis overflows.
inline ::onnx::ModelProto concat_overflow() {
  ::onnx::GraphProto g;
  g.set_name("concat_overflow");
  add_empty_initializer(g, "x", {std::int64_t{1} << 62, 0});
  add_node(g, "SequenceConstruct", {"x", "x", "x", "x"}, {"s"});
  add_int_attribute(add_node(g, "ConcatFromSequence", {"s"}, {"y"}), "axis", 0);
  add_output(g, "y", tseq::DataType::Float, false);
  return make_model(g);
}

// SplitToSequence of a [4] tensor with split {INT64_MAX, INT64_MAX, 6}: the sum overflows.
inline ::onnx::ModelProto split_overflow() {
  ::onnx::GraphProto g;
  g.set_name("split_overflow");
  tseq::onnx::to_proto(tseq::Tensor::from_values<float>(tseq::Shape{4}, {1, 2, 3, 4}), *g.add_initializer(), "x");
  add_ints_initializer(g, "split", {kInt64Max, kInt64Max, 6});
  add_node(g, "SplitToSequence", {"x", "split"}, {"s"});
  add_output(g, "s", tseq::DataType::Float, true);
  return make_model(g);
}

// Slice of [0, 1, 2, 3, 4] with the given start, end and step along axis 0.
inline ::onnx::ModelProto slice_steps(std::int64_t start, std::int64_t end, std::int64_t step) {
  ::onnx::GraphProto g;
  g.set_name("slice_steps");
  tseq::onnx::to_proto(tseq::Tensor::from_values<std::int64_t>(tseq::Shape{5}, {0, 1, 2, 3, 4}), *g.add_initializer(),
                       "x");
  add_ints_initializer(g, "starts", {start});
  add_ints_initializer(g, "ends", {end});
  add_ints_initializer(g, "axes", {0});
  add_ints_initializer(g, "steps", {step});
  add_node(g, "Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  add_output(g, "y", tseq::DataType::Int64, false);
  return make_model(g);
}

// INT64_MAX + 1 in int64.
inline ::onnx::ModelProto add_int64_overflow() {
  ::onnx::GraphProto g;
  g.set_name("add_overflow");
  add_ints_initializer(g, "a", {kInt64Max, kInt64Min});
  add_ints_initializer(g, "b", {1, -1});
  add_node(g, "Add", {"a", "b"}, {"c"});
  add_output(g, "c", tseq::DataType::Int64, false);
  return make_model(g);
}

// A chain x -> Identity -> ... -> y of n nodes, listed last node first.
inline ::onnx::ModelProto reverse_chain(int n) {
  ::onnx::GraphProto g;
  g.set_name("reverse_chain");
  add_input(g, "v0", tseq::DataType::Float, false);
  auto name = [](int k) {  // appended, not "v" + ...: GCC 12 warns falsely (-Wrestrict) on that at -O3
    std::string r = "v";
    r += std::to_string(k);
    return r;
  };
  for (int k = n; k >= 1; --k) add_node(g, "Identity", {name(k - 1)}, {name(k)});
  add_output(g, name(n), tseq::DataType::Float, false);
  return make_model(g);
}

// A Loop with trip count INT64_MAX and a condition that stays true, carrying a float tensor.
inline ::onnx::ModelProto endless_loop() {
  ::onnx::GraphProto body;
  body.set_name("endless_body");
  add_scalar_input(body, "i", tseq::DataType::Int64);
  add_scalar_input(body, "c", tseq::DataType::Bool);
  add_input(body, "x", tseq::DataType::Float, false);
  add_node(body, "Identity", {"c"}, {"c2"});
  add_node(body, "Identity", {"x"}, {"x2"});
  add_output(body, "c2", tseq::DataType::Bool, false);
  add_output(body, "x2", tseq::DataType::Float, false);
  ::onnx::GraphProto g;
  g.set_name("endless");
  add_input(g, "x", tseq::DataType::Float, false);
  add_ints_initializer(g, "m", {kInt64Max});
  add_graph_attribute(add_node(g, "Loop", {"m", "", "x"}, {"y"}), "body", body);
  add_output(g, "y", tseq::DataType::Float, false);
  return make_model(g);
}

}  // namespace tseq_test::hostile
