#pragma once

// Small models that once broke tseq::onnx (issues 11 and 28): resource bombs, arithmetic
// overflows, pathological graphs and loads that took unbounded time or memory. Built in memory, for the regression
// tests and the loader fuzzer's seeds (fuzz/make_seeds.cpp); none needs a large file.

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

// A Loop body (i, c, x) -> (c, x) that carries its condition and the float tensor x unchanged.
inline ::onnx::GraphProto carry_body(const std::string& name) {
  ::onnx::GraphProto body;
  body.set_name(name);
  add_scalar_input(body, "i", tseq::DataType::Int64);
  add_scalar_input(body, "c", tseq::DataType::Bool);
  add_input(body, "x", tseq::DataType::Float, false);
  add_node(body, "Identity", {"c"}, {"c2"});
  add_node(body, "Identity", {"x"}, {"x2"});
  add_output(body, "c2", tseq::DataType::Bool, false);
  add_output(body, "x2", tseq::DataType::Float, false);
  return body;
}

// A Loop with trip count INT64_MAX and a condition that stays true, carrying a float tensor.
inline ::onnx::ModelProto endless_loop() {
  ::onnx::GraphProto g;
  g.set_name("endless");
  add_input(g, "x", tseq::DataType::Float, false);
  add_ints_initializer(g, "m", {kInt64Max});
  add_graph_attribute(add_node(g, "Loop", {"m", "", "x"}, {"y"}), "body", carry_body("endless_body"));
  add_output(g, "y", tseq::DataType::Float, false);
  return make_model(g);
}

// ---- issue 28 ----------------------------------------------------------------------------------

// A chain v0 -> Identity -> ... -> v<n> whose node, value and graph names are `name_bytes` long
// (issue 28, defect 2: every node's error context was built eagerly from them).
inline ::onnx::ModelProto long_names(int n, std::size_t name_bytes) {
  const std::string pad(name_bytes, 'n');
  auto name = [&](int k) {
    std::string r = pad;
    r += std::to_string(k);
    return r;
  };
  ::onnx::GraphProto g;
  g.set_name(pad);
  add_input(g, name(0), tseq::DataType::Float, false);
  for (int k = 1; k <= n; ++k) add_node(g, "Identity", {name(k - 1)}, {name(k)})->set_name(name(k));
  add_output(g, name(n), tseq::DataType::Float, false);
  return make_model(g);
}

// One SequenceConstruct of `k` inputs, all the same value x (defect 2: the last-use pass was
// O(k^2) in a node's input count).
inline ::onnx::ModelProto wide_node(int k) {
  ::onnx::GraphProto g;
  g.set_name("wide_node");
  add_input(g, "x", tseq::DataType::Float, false);
  add_node(g, "SequenceConstruct", std::vector<std::string>(static_cast<std::size_t>(k), "x"), {"s"});
  add_node(g, "SequenceLength", {"s"}, {"n"});
  add_output(g, "n", tseq::DataType::Int64, false);
  return make_model(g);
}

// If nodes nested `depth` deep, each then-branch holding the next If (defect 2: compiling
// subgraphs recursed without a bound). Every level has the condition input "c".
inline ::onnx::ModelProto nested_ifs(int depth) {
  ::onnx::GraphProto leaf;
  leaf.set_name("leaf");
  add_node(leaf, "Identity", {"x"}, {"y"});
  add_output(leaf, "y", tseq::DataType::Float, false);
  ::onnx::GraphProto inner = leaf;
  for (int d = 0; d < depth; ++d) {  // the else branches are leaves: the model grows linearly
    ::onnx::GraphProto level;
    level.set_name("level" + std::to_string(d));
    auto* n = add_node(level, "If", {"c"}, {"y"});
    add_graph_attribute(n, "then_branch", inner);
    add_graph_attribute(n, "else_branch", leaf);
    add_output(level, "y", tseq::DataType::Float, false);
    inner = std::move(level);
  }
  ::onnx::GraphProto g = std::move(inner);
  g.set_name("nested_ifs");
  add_scalar_input(g, "c", tseq::DataType::Bool);
  add_input(g, "x", tseq::DataType::Float, false);
  return make_model(g);
}

// SequenceMap over the input sequence s with a body of `outputs` Identity outputs (defect 4:
// the output sequences were built outside the run budget).
inline ::onnx::ModelProto wide_sequence_map(int outputs) {
  ::onnx::GraphProto body;
  body.set_name("map_body");
  add_input(body, "t", tseq::DataType::Float, false);
  std::vector<std::string> outs;
  for (int k = 0; k < outputs; ++k) {
    outs.push_back("o" + std::to_string(k));
    add_node(body, "Identity", {"t"}, {outs.back()});
    add_output(body, outs.back(), tseq::DataType::Float, false);
  }
  ::onnx::GraphProto g;
  g.set_name("wide_map");
  add_input(g, "s", tseq::DataType::Float, true);
  add_graph_attribute(add_node(g, "SequenceMap", {"s"}, outs), "body", body);
  add_output(g, "o0", tseq::DataType::Float, true);
  return make_model(g);
}

// Unsqueeze of input x at the given axes (defect 5: the odometer walked every extent-1 axis
// for every element; defect 4: ranks were unbounded).
inline ::onnx::ModelProto unsqueeze(std::vector<std::int64_t> axes) {
  ::onnx::GraphProto g;
  g.set_name("unsqueeze");
  add_input(g, "x", tseq::DataType::Float, false);
  add_ints_initializer(g, "axes", std::move(axes));
  add_node(g, "Unsqueeze", {"x", "axes"}, {"y"});
  add_output(g, "y", tseq::DataType::Float, false);
  return make_model(g);
}

// ConcatFromSequence along axis 0 of the input sequence s (of strings, defect 4: only the
// 32-byte string objects were counted, not their characters).
inline ::onnx::ModelProto concat_strings() {
  ::onnx::GraphProto g;
  g.set_name("concat_strings");
  add_input(g, "s", tseq::DataType::String, true);
  add_int_attribute(add_node(g, "ConcatFromSequence", {"s"}, {"y"}), "axis", 0);
  add_output(g, "y", tseq::DataType::String, false);
  return make_model(g);
}

// Not of input b, then If on its first element (defect 12: bool payloads were read as C++ bool).
inline ::onnx::ModelProto not_model() {
  ::onnx::GraphProto g;
  g.set_name("not");
  add_input(g, "b", tseq::DataType::Bool, false);
  add_node(g, "Not", {"b"}, {"y"});
  add_output(g, "y", tseq::DataType::Bool, false);
  return make_model(g);
}

// A Loop of `m` iterations (m: an int64 scalar input) carrying a float tensor x unchanged to y
// (defect 6: each test data set of a case had a fresh time limit; loading had none).
inline ::onnx::ModelProto counted_loop() {
  ::onnx::GraphProto g;
  g.set_name("counted");
  add_scalar_input(g, "m", tseq::DataType::Int64);
  add_input(g, "x", tseq::DataType::Float, false);
  add_graph_attribute(add_node(g, "Loop", {"m", "", "x"}, {"y"}), "body", carry_body("counted_body"));
  add_output(g, "y", tseq::DataType::Float, false);
  return make_model(g);
}

// A Loop of `m` iterations whose scan output is the outer string tensor s each time (review of
// issue 28: the stacking copied the strings' characters outside the run budget).
inline ::onnx::ModelProto string_scan(std::int64_t m) {
  ::onnx::GraphProto body;
  body.set_name("string_scan_body");
  add_scalar_input(body, "i", tseq::DataType::Int64);
  add_scalar_input(body, "c", tseq::DataType::Bool);
  add_node(body, "Identity", {"c"}, {"c2"});
  add_node(body, "Identity", {"s"}, {"row"});
  add_output(body, "c2", tseq::DataType::Bool, false);
  add_output(body, "row", tseq::DataType::String, false);
  ::onnx::GraphProto g;
  g.set_name("string_scan");
  add_input(g, "s", tseq::DataType::String, false);
  add_ints_initializer(g, "m", {m});
  add_graph_attribute(add_node(g, "Loop", {"m", ""}, {"rows"}), "body", body);
  add_output(g, "rows", tseq::DataType::String, false);
  return make_model(g);
}

// ConcatFromSequence of the float sequence s along axis 0 with new_axis = 1 (a new axis: the
// result's rank is one more than its elements').
inline ::onnx::ModelProto stack_floats() {
  ::onnx::GraphProto g;
  g.set_name("stack");
  add_input(g, "s", tseq::DataType::Float, true);
  auto* n = add_node(g, "ConcatFromSequence", {"s"}, {"y"});
  add_int_attribute(n, "axis", 0);
  add_int_attribute(n, "new_axis", 1);
  add_output(g, "y", tseq::DataType::Float, false);
  return make_model(g);
}

// A serialized SequenceProto of `n` empty TensorProtos: two bytes each on disk, about 200 in
// memory once parsed (defect 3).
inline std::string empty_tensor_sequence(int n) {
  ::onnx::SequenceProto s;
  s.set_elem_type(::onnx::SequenceProto::TENSOR);
  for (int i = 0; i < n; ++i) s.add_tensor_values();
  return s.SerializeAsString();
}

}  // namespace tseq_test::hostile
