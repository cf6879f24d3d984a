// The executor: in-place chains, persistence of inputs, subgraphs, errors, and the
// conformance runner's own verdicts.

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "onnx/model_builder.hpp"
#include "support/alloc_hook.hpp"
#include "support/counting_resource.hpp"
#include "support/error_of.hpp"
#include "tseq/onnx/executor.hpp"
#include "tseq/onnx/proto.hpp"
#include "tseq/ops.hpp"

namespace {

using namespace tseq;
using namespace tseq::onnx;
using namespace tseq_test;

Tensor i64(std::int64_t v) { return Tensor::scalar<std::int64_t>(v); }

TensorSequence big_sequence(std::size_t n) {
  std::vector<Tensor> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(Tensor::scalar(static_cast<float>(i)));
  return TensorSequence(DataType::Float, v);
}

// s -> SequenceErase(pos) -> SequenceInsert(t, pos) -> ... k times -> out
::onnx::ModelProto erase_insert_chain(int k) {
  ::onnx::GraphProto g;
  g.set_name("chain");
  add_input(g, "s0", DataType::Float, true);
  to_proto(i64(7), *g.add_initializer(), "pos");
  to_proto(Tensor::scalar(-1.f), *g.add_initializer(), "t");
  std::string cur = "s0";
  for (int i = 0; i < k; ++i) {
    const std::string e = "e" + std::to_string(i);
    const std::string s = "s" + std::to_string(i + 1);
    add_node(g, "SequenceErase", {cur, "pos"}, {e});
    add_node(g, "SequenceInsert", {e, "t", "pos"}, {s});
    cur = s;
  }
  add_node(g, "Identity", {cur}, {"out"});
  add_output(g, "out", DataType::Float, true);
  return make_model(g);
}

// The storage of each leaf, in order: a leaf edited in place keeps it, a copied one does not
// (while the original lives).
std::vector<const Tensor*> leaves_of(const TensorSequence& s) {
  std::vector<const Tensor*> r;
  s.tensors().for_each_chunk([&](const Tensor* first, const Tensor*) { r.push_back(first); });
  return r;
}

struct chain_run {
  std::vector<Value> out;
  long allocations = 0;
  std::size_t moved_inputs = 0;
};

// Runs erase_insert_chain(k) on `input` (its only handle unless the caller keeps one) and
// counts the run's allocations (with the node cache off: every node is one).
chain_run run_chain(int k, TensorSequence input) {
  const Model m = from_proto(erase_insert_chain(k), "chain");
  Session session(m);
  std::vector<Value> args;
  args.emplace_back(std::move(input));
  const count_allocations c;
  chain_run r;
  r.out = session.run(std::move(args));
  r.allocations = c.delta().allocations;
  r.moved_inputs = session.stats().moved_inputs;
  return r;
}

TEST(Executor, ChainOnAnOwnedSequenceRunsInPlace) {
  TensorSequence input = big_sequence(100000);
  const Tensor first = input[0];
  const std::vector<const Tensor*> leaves = leaves_of(input);
  const chain_run r = run_chain(50, std::move(input));
  // The sequence moves from node to node (101 hops), and so do the two initializers at their
  // last use.
  EXPECT_EQ(r.moved_inputs, 103u);
  // No tree node is copied: the result's leaves are the input's, and the run allocates no more
  // than a run of a chain a tenth as long (a persistent chain copies nodes at every operator).
  const chain_run short_run = run_chain(5, big_sequence(100000));
  EXPECT_EQ(r.allocations, short_run.allocations) << "allocations that grow with the chain";
  const TensorSequence& out = r.out[0].sequence();
  EXPECT_EQ(leaves_of(out), leaves) << "a leaf was copied";
  ASSERT_EQ(out.size(), 100000u);
  EXPECT_TRUE(out[0].identical_to(first));
  EXPECT_EQ(out[7].value<float>(0), -1.f);
}

TEST(Executor, ASharedInputIsNeverChanged) {
  const TensorSequence input = big_sequence(1000);
  const std::vector<const Tensor*> leaves = leaves_of(input);
  const chain_run r = run_chain(3, input);
  // The caller still holds the input: the first op copies the path to the leaf it edits and
  // shares the other leaves; the result is then the executor's own and the rest of the chain
  // runs in place, allocating no more than a chain of one erase and one insert.
  const TensorSequence& out = r.out[0].sequence();
  const std::vector<const Tensor*> out_leaves = leaves_of(out);
  ASSERT_EQ(out_leaves.size(), leaves.size());
  EXPECT_NE(out_leaves[0], leaves[0]) << "the input's leaf was edited";
  EXPECT_TRUE(std::equal(out_leaves.begin() + 1, out_leaves.end(), leaves.begin() + 1))
      << "a leaf not edited was copied";
  EXPECT_EQ(r.allocations, run_chain(1, input).allocations) << "allocations that grow with the chain";
  EXPECT_EQ(input.size(), 1000u);
  EXPECT_EQ(input[7].value<float>(0), 7.f);
  EXPECT_EQ(out[7].value<float>(0), -1.f);
}

TEST(Executor, AValueReadTwiceIsMovedOnlyAtItsLastUse) {
  ::onnx::GraphProto g;
  add_input(g, "s", DataType::Float, true);
  to_proto(i64(0), *g.add_initializer(), "zero");
  to_proto(i64(-1), *g.add_initializer(), "last");
  add_node(g, "SequenceErase", {"s", "zero"}, {"a"});
  add_node(g, "SequenceErase", {"s", "last"}, {"b"});
  add_node(g, "SequenceLength", {"s"}, {"n"});
  add_output(g, "a", DataType::Float, true);
  add_output(g, "b", DataType::Float, true);
  add_output(g, "n", DataType::Int64, false);
  const Model m = from_proto(make_model(g), "twice");
  Session session(m);
  const auto out = session.run(std::vector<Value>{Value(big_sequence(5))});
  EXPECT_EQ(out[0].sequence()[0].value<float>(0), 1.f);
  EXPECT_EQ(out[1].sequence()[3].value<float>(0), 3.f);
  EXPECT_EQ(out[1].sequence().size(), 4u);
  EXPECT_EQ(out[2].tensor().value<std::int64_t>(0), 5);
  EXPECT_EQ(session.stats().moved_inputs, 3u) << "s at its last use (SequenceLength) and the two initializers";
}

TEST(Executor, SubgraphsSeeOuterValues) {
  ::onnx::GraphProto then_branch;
  then_branch.set_name("then");
  add_node(then_branch, "SequenceLength", {"s"}, {"n"});
  add_output(then_branch, "n", DataType::Int64, false);
  ::onnx::GraphProto else_branch;
  else_branch.set_name("else");
  add_node(else_branch, "Identity", {"zero"}, {"z"});
  add_output(else_branch, "z", DataType::Int64, false);
  ::onnx::GraphProto g;
  add_input(g, "c", DataType::Bool, false);
  add_input(g, "s", DataType::Float, true);
  to_proto(i64(0), *g.add_initializer(), "zero");
  auto* n = add_node(g, "If", {"c"}, {"r"});
  add_graph_attribute(n, "then_branch", then_branch);
  add_graph_attribute(n, "else_branch", else_branch);
  add_output(g, "r", DataType::Int64, false);
  const Model m = from_proto(make_model(g), "if");
  Session session(m);
  EXPECT_EQ(session.run({Value(Tensor::scalar(true)), Value(big_sequence(4))})[0].tensor().value<std::int64_t>(0), 4);
  EXPECT_EQ(session.run({Value(Tensor::scalar(false)), Value(big_sequence(4))})[0].tensor().value<std::int64_t>(0), 0);
}

TEST(Executor, ErrorsNameTheModelTheNodeAndTheProblem) {
  ::onnx::GraphProto g;
  add_input(g, "s", DataType::Float, true);
  add_node(g, "Frobnicate", {"s"}, {"y"}, "f1");
  add_output(g, "y", DataType::Float, true);
  EXPECT_EQ(error_of([&] { (void)from_proto(make_model(g), "m.onnx"); }),
            "m.onnx: node 0 'f1' (Frobnicate): operator Frobnicate is not supported by tseq's executor");

  ::onnx::GraphProto missing;
  add_input(missing, "s", DataType::Float, true);
  add_node(missing, "SequenceErase", {"s", "nowhere"}, {"y"});
  add_output(missing, "y", DataType::Float, true);
  EXPECT_EQ(error_of([&] { (void)from_proto(make_model(missing), "m.onnx"); }),
            "m.onnx: value 'nowhere' is used but no node, input or initializer provides it");

  const Model chain = from_proto(erase_insert_chain(1), "chain.onnx");
  Session session(chain);
  EXPECT_EQ(error_of([&] { (void)session.run(std::vector<Value>{}); }),
            "chain.onnx: input 's0' (seq(tensor(float))) was not given");
  try {
    (void)session.run(std::vector<Value>{Value(big_sequence(3))});
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(),
                 "chain.onnx: graph 'chain': node 0 (SequenceErase): SequenceErase: position 7 is out of "
                 "range [-3, 2] for a sequence of 3 tensors");
  }
  EXPECT_EQ(error_of([&] { (void)session.run(std::vector<Value>{Value(i64(1))}); }),
            "chain.onnx: input 's0' is declared seq(tensor(float)) but was fed tensor(int64)");
  const std::string bytes = "not a model";
  EXPECT_EQ(
      error_of([&] { (void)Model::parse(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "x.onnx"); }),
      "x.onnx: malformed protobuf (a group or an unknown wire type)");
}

TEST(Executor, SessionLimitsStopRunawayModels) {
  const ::onnx::GraphProto body = sequence_loop_body("SequenceInsert", {"x"});
  ::onnx::GraphProto g;
  add_input(g, "x", DataType::Float, false);
  add_scalar_input(g, "k", DataType::Int64);
  add_node(g, "SequenceEmpty", {}, {"e"});
  auto* loop = add_node(g, "Loop", {"k", "", "e"}, {"s"}, "grow");
  add_graph_attribute(loop, "body", body);
  add_int_attribute(add_node(g, "ConcatFromSequence", {"s"}, {"all"}, "join"), "axis", 0);
  add_node(g, "Add", {"all", "all"}, {"y"});
  add_output(g, "y", DataType::Float, false);
  const Model m = from_proto(make_model(g), "grow.onnx");
  SessionOptions limits;
  limits.max_loop_iterations = 100;
  limits.max_tensor_elements = 1000;
  Session session(m, limits);
  const Tensor x = Tensor::from_values<float>(Shape{4}, {1, 2, 3, 4});
  EXPECT_EQ(session.run({Value(x), Value(i64(100))})[0].tensor().size(), 400u);
  EXPECT_EQ(error_of([&] {
              (void)session.run({Value(x), Value(i64(101))});
            }),
            "grow.onnx: node 1 'grow' (Loop): Loop: more than 100 iterations, the session's limit");
  const Tensor wide = Tensor::from_values<float>(Shape{20}, std::vector<float>(20, 1.f));
  EXPECT_EQ(error_of([&] {
              (void)session.run({Value(wide), Value(i64(60))});
            }),
            "grow.onnx: node 2 'join' (ConcatFromSequence): ConcatFromSequence: the result would hold 1200 elements, "
            "over the session's limit of 1000");
  Session unlimited(m);
  EXPECT_EQ(unlimited.run({Value(wide), Value(i64(60))})[0].tensor().size(), 1200u);
}

TEST(Values, CloseComparesAsTheBackendTestsDo) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto v = [](std::vector<float> x) {
    return Value(Tensor::from_values<float>(Shape{static_cast<std::int64_t>(x.size())}, x));
  };
  std::string why;
  EXPECT_TRUE(all_close(v({1.f, 2.f}), v({1.0005f, 2.f}), 1e-3, 1e-7));
  EXPECT_FALSE(all_close(v({1.f, 2.f}), v({1.01f, 2.f}), 1e-3, 1e-7, &why));
  EXPECT_NE(why.find("element 0 differs"), std::string::npos) << why;
  EXPECT_TRUE(all_close(v({nan, inf}), v({nan, inf}), 1e-3, 1e-7)) << "NaN matches NaN, as numpy's equal_nan";
  EXPECT_FALSE(all_close(v({inf}), v({-inf}), 1e-3, 1e-7));
  EXPECT_FALSE(all_close(v({1.f}), v({1.f, 2.f}), 1e-3, 1e-7, &why));
  EXPECT_EQ(why, "shape [1], expected [2]");
  EXPECT_FALSE(all_close(v({1.f}), Value(Tensor::scalar(1.0)), 1e-3, 1e-7, &why));
  EXPECT_EQ(why, "dtype float, expected double");
  const Value c = Tensor::scalar(std::complex<double>(1, 2));
  EXPECT_TRUE(all_close(c, Value(Tensor::scalar(std::complex<double>(1, 2.000001))), 1e-3, 1e-7));
  EXPECT_FALSE(all_close(c, Value(Tensor::scalar(std::complex<double>(1, 3))), 1e-3, 1e-7));
  EXPECT_TRUE(all_close(Value(Tensor::scalar(std::string("a"))), Value(Tensor::scalar(std::string("a"))), 0, 0));

  const Value s1 = big_sequence(3);
  EXPECT_TRUE(all_close(s1, Value(big_sequence(3)), 1e-3, 1e-7));
  EXPECT_FALSE(all_close(s1, Value(big_sequence(4)), 1e-3, 1e-7, &why));
  EXPECT_EQ(why, "got seq(tensor(float)) of length 3, expected seq(tensor(float)) of length 4");
  const Value other = TensorSequence(
      DataType::Float, std::vector<Tensor>{Tensor::scalar(0.f), Tensor::scalar(1.f), Tensor::scalar(5.f)});
  EXPECT_FALSE(all_close(s1, other, 1e-3, 1e-7, &why));
  EXPECT_EQ(why.rfind("sequence element 2: ", 0), 0u) << why;

  const ValueType ot = ValueType::optional(ValueType::Kind::Sequence, DataType::Float);
  const Value empty = OptionalValue{nullptr, ot};
  const Value full = OptionalValue{std::make_shared<const Value>(s1), ot};
  EXPECT_TRUE(all_close(empty, Value(OptionalValue{nullptr, ot}), 0, 0));
  EXPECT_FALSE(all_close(empty, full, 0, 0, &why));
  EXPECT_EQ(why, "got empty optional, expected optional holding seq(tensor(float)) of length 3");
  EXPECT_FALSE(all_close(full, Value(OptionalValue{std::make_shared<const Value>(other), ot}), 1e-3, 1e-7, &why));
  EXPECT_EQ(why.rfind("optional content: sequence element 2", 0), 0u) << why;
  EXPECT_FALSE(all_close(full, s1, 0, 0, &why));
  EXPECT_EQ(why, "got optional holding seq(tensor(float)) of length 3, expected seq(tensor(float)) of length 3");
  EXPECT_EQ(to_string(ValueType::optional(ValueType::Kind::Tensor, DataType::Int8)), "optional(tensor(int8))");
}

// The conformance runner passes a correct case and fails a wrong one.
TEST(ConformanceRunner, TellsPassFromFail) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("tseq_runner_" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto write_case = [&](const std::string& name, float expected_first) {
    const fs::path dir = root / "cases" / name;
    fs::create_directories(dir / "test_data_set_0");
    std::ofstream(dir / "model.onnx", std::ios::binary) << make_model(([] {
                                                             ::onnx::GraphProto g;
                                                             add_input(g, "s", DataType::Float, true);
                                                             to_proto(i64(0), *g.add_initializer(), "zero");
                                                             add_node(g, "SequenceErase", {"s", "zero"}, {"y"});
                                                             add_output(g, "y", DataType::Float, true);
                                                             return g;
                                                           })())
                                                               .SerializeAsString();
    ::onnx::SequenceProto in;
    to_proto(big_sequence(3), in);
    std::ofstream(dir / "test_data_set_0" / "input_0.pb", std::ios::binary) << in.SerializeAsString();
    ::onnx::SequenceProto out;
    to_proto(TensorSequence(DataType::Float, std::vector<Tensor>{Tensor::scalar(expected_first), Tensor::scalar(2.f)}),
             out);
    std::ofstream(dir / "test_data_set_0" / "output_0.pb", std::ios::binary) << out.SerializeAsString();
  };
  write_case("good", 1.f);
  write_case("bad", 5.f);
  const auto [output, status] =
      run_command(std::string(TSEQ_ONNX_TEST_EXE) + " " + (root / "cases").string() + " 2>&1");
  EXPECT_NE(output.find("PASS cases/good"), std::string::npos) << output;
  EXPECT_NE(output.find("FAIL cases/bad: test_data_set_0 output 0 ('y'): sequence element 0: element 0 differs"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("1 passed, 1 failed"), std::string::npos) << output;
  EXPECT_EQ(status, 1);
  const std::string missing =
      std::string(TSEQ_ONNX_TEST_EXE) + " --skip-missing " + (root / "nope").string() + " >/dev/null";
  EXPECT_EQ(WEXITSTATUS(std::system(missing.c_str())), 77);
  fs::remove_all(root);
}

// Every tensor a run (and a model's initializers) creates comes from the caller's resource,
// and all of it goes back.
TEST(Executor, EveryTensorARunCreatesComesFromTheGivenResource) {
  ::onnx::GraphProto g;
  g.set_name("payloads");
  add_input(g, "x", DataType::Float, false);
  to_proto(Tensor::scalar(10.f), *g.add_initializer(), "ten");
  add_int_attribute(add_node(g, "SplitToSequence", {"x"}, {"parts"}), "axis", 1);
  auto* cat = add_node(g, "ConcatFromSequence", {"parts"}, {"joined"});
  add_int_attribute(cat, "axis", 1);
  add_node(g, "Add", {"joined", "ten"}, {"sum"});
  add_node(g, "SequenceLength", {"parts"}, {"n"});
  add_node(g, "Shape", {"sum"}, {"shape"});
  add_output(g, "sum", DataType::Float, false);
  add_output(g, "n", DataType::Int64, false);
  add_output(g, "shape", DataType::Int64, false);
  CountingResource model_memory;
  CountingResource run_memory;
  {
    const Model m = from_proto(make_model(g), "payloads", &model_memory);
    EXPECT_EQ(model_memory.allocations(), 1);  // the initializer
    SessionOptions o;
    o.memory_resource = &run_memory;
    Session session(m, o);
    const auto out = session.run(std::vector<Value>{Value(Tensor::from_values<float>(Shape{2, 2}, {1, 2, 3, 4}))});
    EXPECT_TRUE(equal(out[0].tensor(), Tensor::from_values<float>(Shape{2, 2}, {11, 12, 13, 14})));
    EXPECT_EQ(out[1].tensor().value<std::int64_t>(0), 2);
    for (const Value& v : out) EXPECT_EQ(v.tensor().memory_resource(), &run_memory);
    EXPECT_GE(run_memory.allocations(), 7);  // 2 pieces, joined, 2 broadcasts, sum, n, shape
    EXPECT_GT(run_memory.bytes_outstanding(), 0u);
  }
  EXPECT_EQ(run_memory.bytes_outstanding(), 0u);
  EXPECT_EQ(model_memory.bytes_outstanding(), 0u);
}

// Sequences of device tensors flow through the handle-moving operators; a kernel that reads
// payload says which node, which tensor and which device.
TEST(Executor, DeviceTensorsFlowAndPayloadKernelsNameTheNode) {
  std::vector<float> memory(400, 0.f);
  std::vector<Tensor> v;
  for (std::size_t i = 0; i < 100; ++i) {
    v.push_back(Tensor::adopt(DataType::Float, Shape{4}, memory.data() + 4 * i, Device::cuda(0), nullptr, nullptr));
  }
  const Model chain = from_proto(erase_insert_chain(3), "chain.onnx");
  Session session(chain);
  const auto out = session.run(std::vector<Value>{Value(TensorSequence(DataType::Float, v))});
  const TensorSequence& s = out[0].sequence();
  ASSERT_EQ(s.size(), 100u);
  EXPECT_EQ(s[0].data(), v[0].data());
  EXPECT_EQ(s[99].device(), Device::cuda(0));
  EXPECT_EQ(s[7].device(), Device::cpu());  // the inserted initializer

  ::onnx::GraphProto g;
  g.set_name("cat");
  add_input(g, "s", DataType::Float, true);
  add_int_attribute(add_node(g, "ConcatFromSequence", {"s"}, {"y"}, "join"), "axis", 0);
  add_output(g, "y", DataType::Float, false);
  const Model cat_model = from_proto(make_model(g), "cat.onnx");
  Session cat(cat_model);
  try {
    (void)cat.run(std::vector<Value>{Value(TensorSequence(DataType::Float, v))});
    FAIL();
  } catch (const DeviceError& e) {
    EXPECT_STREQ(e.what(),
                 "cat.onnx: graph 'cat': node 0 'join' (ConcatFromSequence): ConcatFromSequence: tensor 0 of the "
                 "sequence is on cuda:0; tseq reads only host memory");
  }
  ::onnx::TensorProto p;
  EXPECT_THROW(to_proto(v[0], p, "x"), DeviceError);
}

// A kernel writes into an input it holds alone (Tensor::into_buffer), and copies otherwise.
TEST(Executor, NotReusesTheMemoryOfAnInputAtItsLastUse) {
  ::onnx::GraphProto g;
  g.set_name("nots");
  add_input(g, "x", DataType::Bool, false);
  add_node(g, "Not", {"x"}, {"y"});
  add_node(g, "Not", {"y"}, {"z"});
  add_output(g, "z", DataType::Bool, false);
  const Model m = from_proto(make_model(g), "nots");
  CountingResource r;
  SessionOptions o;
  o.memory_resource = &r;
  Session session(m, o);
  Tensor x = Tensor::from_values<bool>(Shape{3}, std::vector<bool>{true, false, true});
  const void* memory = x.data();
  std::vector<Value> feeds;
  feeds.emplace_back(std::move(x));
  auto out = session.run(std::move(feeds));
  EXPECT_EQ(out[0].tensor().data(), memory) << "both Nots ran in place";
  EXPECT_EQ(r.allocations(), 0);
  EXPECT_EQ(out[0].tensor().value<bool>(1), false);
  // Kept by the caller: copied, and the caller's tensor is unchanged.
  const Tensor kept = Tensor::from_values<bool>(Shape{2}, std::vector<bool>{true, false});
  out = session.run(std::vector<Value>{Value(kept)});
  EXPECT_NE(out[0].tensor().data(), kept.data());
  EXPECT_EQ(r.allocations(), 1);  // one copy; the second Not reuses it
  EXPECT_EQ(kept.value<bool>(0), true);
  EXPECT_EQ(out[0].tensor().value<bool>(0), true);
}

}  // namespace
