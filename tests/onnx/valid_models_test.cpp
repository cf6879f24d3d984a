// Valid models (onnx.checker accepts each) that the executor once got wrong: regression tests of
// issue 25. Expected values are ONNX's reference semantics, written out by hand: a Loop's scan
// outputs are its per-iteration values stacked along a new first axis, and at zero trips an
// empty [0] tensor of the body's declared element type.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "onnx/model_builder.hpp"
#include "tseq/onnx/executor.hpp"
#include "tseq/onnx/proto.hpp"

namespace {

using namespace tseq;
using namespace tseq::onnx;
using namespace tseq_test;

Tensor i64(std::int64_t v) { return Tensor::scalar<std::int64_t>(v); }

// Loop(M = trips, cond = "", x) over a body with one carried float [2] value x (x2 = x + x) and
// one scan output per entry of `scans`, in that order:
//   Float: the carried value before the update (float [2])
//   Int64: the iteration number (int64 scalar)
//   Bool:  the condition (bool scalar)
// The graph's outputs: the final x, then every scan output.
::onnx::ModelProto loop_with_scans(const std::vector<DataType>& scans) {
  ::onnx::GraphProto body;
  body.set_name("body");
  add_scalar_input(body, "i", DataType::Int64);
  add_scalar_input(body, "c", DataType::Bool);
  add_input(body, "x", DataType::Float, false);
  add_node(body, "Identity", {"c"}, {"c2"});
  add_node(body, "Add", {"x", "x"}, {"x2"});
  add_output(body, "c2", DataType::Bool, false);
  add_output(body, "x2", DataType::Float, false);
  for (std::size_t k = 0; k < scans.size(); ++k) {
    const std::string name = "scan" + std::to_string(k);
    const char* from = scans[k] == DataType::Float ? "x" : scans[k] == DataType::Int64 ? "i" : "c";
    add_node(body, "Identity", {from}, {name});
    add_output(body, name, scans[k], false);
  }
  ::onnx::GraphProto g;
  g.set_name("scans");
  add_scalar_input(g, "m", DataType::Int64);
  add_input(g, "x0", DataType::Float, false);
  std::vector<std::string> outs{"x"};
  for (std::size_t k = 0; k < scans.size(); ++k) outs.push_back("out" + std::to_string(k));
  add_graph_attribute(add_node(g, "Loop", {"m", "", "x0"}, outs, "loop"), "body", body);
  add_output(g, "x", DataType::Float, false);
  for (std::size_t k = 0; k < scans.size(); ++k) add_output(g, outs[1 + k], scans[k], false);
  return make_model(g);
}

// What ONNX's reference gives for scan output `d` after `trips` iterations from x0 = [1, 2].
Tensor expected_scan(DataType d, std::int64_t trips) {
  const auto n = static_cast<std::size_t>(trips);
  if (d == DataType::Float) {
    std::vector<float> v;
    float f = 1.f;
    for (std::size_t t = 0; t < n; ++t, f *= 2.f) v.insert(v.end(), {f, 2.f * f});
    return Tensor::from_values<float>(trips == 0 ? Shape{0} : Shape{trips, 2}, v);
  }
  if (d == DataType::Int64) {
    std::vector<std::int64_t> v;
    for (std::int64_t t = 0; t < trips; ++t) v.push_back(t);
    return Tensor::from_values<std::int64_t>(Shape{trips}, v);
  }
  return Tensor::from_values<bool>(Shape{trips}, std::vector<bool>(n, true));
}

void check_loop(const std::vector<DataType>& scans, std::int64_t trips) {
  SCOPED_TRACE(std::to_string(scans.size()) + " scan outputs, " + std::to_string(trips) + " trips");
  const Model m = from_proto(loop_with_scans(scans), "scans.onnx");
  Session session(m);
  const auto out = session.run({Value(i64(trips)), Value(Tensor::from_values<float>(Shape{2}, {1, 2}))});
  ASSERT_EQ(out.size(), 1 + scans.size());
  float f = 1.f;
  for (std::int64_t t = 0; t < trips; ++t) f *= 2.f;
  EXPECT_TRUE(equal(out[0].tensor(), Tensor::from_values<float>(Shape{2}, {f, 2.f * f})));
  for (std::size_t k = 0; k < scans.size(); ++k) {
    ASSERT_TRUE(out[1 + k].is_tensor());
    const Tensor& got = out[1 + k].tensor();
    EXPECT_EQ(got.dtype(), scans[k]) << "scan output " << k << " has the body's declared element type";
    EXPECT_TRUE(equal(got, expected_scan(scans[k], trips))) << "scan output " << k << ": " << to_string(got);
  }
}

TEST(ValidModels, LoopWithTwoScanOutputsStacksEachAtZeroOneAndSeveralTrips) {
  for (const std::int64_t trips : {0, 1, 2, 5}) {
    check_loop({DataType::Float, DataType::Float}, trips);
    check_loop({DataType::Float, DataType::Int64}, trips);
    check_loop({DataType::Int64, DataType::Float}, trips);
  }
}

TEST(ValidModels, LoopWithThreeScanOutputsOfDifferentTypesKeepsEachType) {
  for (const std::int64_t trips : {0, 1, 3}) {
    // float, float, int64: at zero trips the second float output was once given int64's
    // type, and the third read past the end of the body's outputs ("invalid element type").
    check_loop({DataType::Float, DataType::Float, DataType::Int64}, trips);
    check_loop({DataType::Bool, DataType::Int64, DataType::Float}, trips);
  }
}

TEST(ValidModels, LoopWithManyScanOutputsReadsOnlyTheBodysOutputs) {
  // Once a SIGSEGV (heap-buffer-overflow in run_loop) with 100,000 scan outputs.
  const std::vector<DataType> scans(3000, DataType::Int64);
  const Model m = from_proto(loop_with_scans(scans), "many.onnx");
  Session session(m);
  const auto out = session.run({Value(i64(2)), Value(Tensor::from_values<float>(Shape{2}, {1, 2}))});
  ASSERT_EQ(out.size(), 3001u);
  for (std::size_t k = 1; k < out.size(); ++k) {
    ASSERT_TRUE(equal(out[k].tensor(), expected_scan(DataType::Int64, 2))) << "scan output " << k - 1;
  }
}

TEST(ValidModels, AValueListedTwiceAmongTheGraphOutputsIsReturnedTwice) {
  ::onnx::GraphProto g;
  g.set_name("twice");
  add_input(g, "x", DataType::Float, false);
  add_input(g, "s", DataType::Float, true);
  add_node(g, "Identity", {"x"}, {"y"});
  add_node(g, "Identity", {"s"}, {"t"});
  add_output(g, "y", DataType::Float, false);
  add_output(g, "t", DataType::Float, true);
  add_output(g, "y", DataType::Float, false);
  add_output(g, "x", DataType::Float, false);  // a graph input, also listed twice
  add_output(g, "x", DataType::Float, false);
  add_output(g, "t", DataType::Float, true);
  const Model m = from_proto(make_model(g), "twice.onnx");
  Session session(m);
  const Tensor x = Tensor::from_values<float>(Shape{3}, {1, 2, 3});
  const TensorSequence s(DataType::Float, std::vector<Tensor>{x, x});
  const auto out = session.run({Value(x), Value(s)});
  ASSERT_EQ(out.size(), 6u);
  for (const std::size_t i : {0u, 2u, 3u, 4u}) {
    ASSERT_TRUE(out[i].is_tensor()) << "output " << i;
    EXPECT_TRUE(out[i].tensor().identical_to(x)) << "output " << i << " shares the input's payload";
  }
  for (const std::size_t i : {1u, 5u}) {
    ASSERT_TRUE(out[i].is_sequence()) << "output " << i;
    ASSERT_EQ(out[i].sequence().size(), 2u);
    EXPECT_TRUE(out[i].sequence()[1].identical_to(x));
  }
}

TEST(ValidModels, AnIfBranchListingOneLocalValueTwiceReturnsItTwice) {
  ::onnx::GraphProto branch;
  branch.set_name("then");
  add_node(branch, "Identity", {"x"}, {"local"});
  add_output(branch, "local", DataType::Float, false);
  add_output(branch, "local", DataType::Float, false);
  ::onnx::GraphProto other;
  other.set_name("else");
  add_node(other, "Identity", {"x"}, {"a"});
  add_node(other, "Identity", {"x"}, {"b"});
  add_output(other, "a", DataType::Float, false);
  add_output(other, "b", DataType::Float, false);
  ::onnx::GraphProto g;
  g.set_name("if");
  add_input(g, "c", DataType::Bool, false);
  add_input(g, "x", DataType::Float, false);
  auto* n = add_node(g, "If", {"c"}, {"r0", "r1"}, "if");
  add_graph_attribute(n, "then_branch", branch);
  add_graph_attribute(n, "else_branch", other);
  add_output(g, "r0", DataType::Float, false);
  add_output(g, "r1", DataType::Float, false);
  const Model m = from_proto(make_model(g), "if.onnx");
  Session session(m);
  const Tensor x = Tensor::from_values<float>(Shape{2}, {4, 5});
  for (const bool c : {true, false}) {
    const auto out = session.run({Value(Tensor::scalar(c)), Value(x)});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_TRUE(out[0].tensor().identical_to(x)) << c;
    EXPECT_TRUE(out[1].tensor().identical_to(x)) << c;
  }
}

// Slice(data, starts, ends, axes, steps) at opset 17 with every operand an initializer.
Tensor run_slice(const Tensor& data, std::int64_t start, std::int64_t end, std::int64_t axis, std::int64_t step) {
  ::onnx::GraphProto g;
  g.set_name("slice");
  add_input(g, "data", DataType::Float, false);
  auto list = [](std::int64_t v) { return Tensor::from_values<std::int64_t>(Shape{1}, {v}); };
  to_proto(list(start), *g.add_initializer(), "starts");
  to_proto(list(end), *g.add_initializer(), "ends");
  to_proto(list(axis), *g.add_initializer(), "axes");
  to_proto(list(step), *g.add_initializer(), "steps");
  add_node(g, "Slice", {"data", "starts", "ends", "axes", "steps"}, {"y"});
  add_output(g, "y", DataType::Float, false);
  Session session(from_proto(make_model(g), "slice.onnx"));
  return session.run({Value(data)})[0].tensor();
}

TEST(ValidModels, SliceOfAnEmptyAxisWithANegativeStepIsEmpty) {
  // Once std::clamp(b, 0, dim - 1) with dim = 0: hi < lo, undefined behaviour.
  const Tensor empty_rows = Tensor::from_values<float>(Shape{0, 3}, std::vector<float>{});
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  for (const auto& [start, end, step] :
       std::vector<std::array<std::int64_t, 3>>{{-1, lo, -1}, {0, -1, -1}, {hi, lo, -2}, {lo, hi, lo}, {5, -5, -1}}) {
    SCOPED_TRACE(std::to_string(start) + ":" + std::to_string(end) + ":" + std::to_string(step));
    const Tensor y = run_slice(empty_rows, start, end, 0, step);
    EXPECT_EQ(y.shape(), (Shape{0, 3}));
    const Tensor z = run_slice(Tensor::from_values<float>(Shape{2, 0}, std::vector<float>{}), start, end, 1, step);
    EXPECT_EQ(z.shape(), (Shape{2, 0}));
  }
  // The same steps on a non-empty axis still slice as ONNX says.
  const Tensor v = Tensor::from_values<float>(Shape{4}, {0, 1, 2, 3});
  EXPECT_TRUE(equal(run_slice(v, -1, lo, 0, -1), Tensor::from_values<float>(Shape{4}, {3, 2, 1, 0})));
  EXPECT_TRUE(equal(run_slice(v, hi, lo, 0, -2), Tensor::from_values<float>(Shape{2}, {3, 1})));
  EXPECT_TRUE(equal(run_slice(v, 2, -1, 0, -1), Tensor::from_values<float>(Shape{0}, std::vector<float>{})));
}

}  // namespace
