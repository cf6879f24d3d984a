// The executor on self-contained ONNX models (sequences live inside the graph, so that ONNX
// Runtime can run the very same files: see benchmarks/ort/).
//
//   ExecutorLoopErase/-/tseq/payload:16/n:K   X [100000, 16] -> SplitToSequence -> Loop K times
//                                              SequenceErase(S, i) -> SequenceLength
//   ExecutorLoopInsert/-/tseq/payload:16/n:K  SequenceEmpty -> Loop K times SequenceInsert(S, T)
//                                              (append) -> SequenceLength
//   ExecutorLoopInsert/adopted/tseq/payload:65536/n:K  the same model, T a 65,536-float tensor
//                                              adopted from the caller's memory (Tensor::adopt):
//                                              tseq appends K handles to it; ONNX Runtime copies
//                                              T's payload on every SequenceInsert.
//   ExecutorLoad/forward|reverse/tseq/payload:16/n:N   from_proto of a chain of N
//                                              Identity nodes listed in order, or last node
//                                              first (the loader orders it in O(N log N)).
// The first writes K erases on a 10^5-element sequence: (t(K) - t(0)) / K is the per-erase
// cost through the executor. The second is the append loop ONNX Runtime users report as
// quadratic (microsoft/onnxruntime#20696, #23024): its total time must grow linearly in K.
//
// The models are written to --models_dir (default build/bench/models) before the runs.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "onnx/hostile_models.hpp"
#include "onnx/model_builder.hpp"
#include "tseq/onnx/executor.hpp"

namespace {

using namespace tseq;
using namespace tseq::onnx;
using namespace tseq_test;

constexpr std::int64_t kLength = 100000;
constexpr std::int64_t kPayload = 16;

::onnx::ModelProto loop_erase_model() {
  const ::onnx::GraphProto body = sequence_loop_body("SequenceErase", {"i"});

  ::onnx::GraphProto g;
  g.set_name("loop_erase");
  add_input(g, "X", DataType::Float, false);
  add_scalar_input(g, "K", DataType::Int64);
  auto* split = add_node(g, "SplitToSequence", {"X"}, {"S0"});
  add_int_attribute(split, "axis", 0);
  add_int_attribute(split, "keepdims", 0);
  auto* loop = add_node(g, "Loop", {"K", "", "S0"}, {"S"});
  add_graph_attribute(loop, "body", body);
  add_node(g, "SequenceLength", {"S"}, {"L"});
  add_output(g, "L", DataType::Int64, false);
  return make_model(g, 17);
}

::onnx::ModelProto loop_insert_model() {
  const ::onnx::GraphProto body = sequence_loop_body("SequenceInsert", {"T"});  // T: outer graph

  ::onnx::GraphProto g;
  g.set_name("loop_insert");
  add_input(g, "T", DataType::Float, false);
  add_scalar_input(g, "K", DataType::Int64);
  auto* empty = add_node(g, "SequenceEmpty", {}, {"S0"});
  add_int_attribute(empty, "dtype", 1);
  auto* loop = add_node(g, "Loop", {"K", "", "S0"}, {"S"});
  add_graph_attribute(loop, "body", body);
  add_node(g, "SequenceLength", {"S"}, {"L"});
  add_output(g, "L", DataType::Int64, false);
  return make_model(g, 17);
}

void run_model(benchmark::State& state, const Model& model, std::vector<Value> inputs, std::int64_t expected) {
  Session session(model);
  for (auto _ : state) {
    std::vector<Value> out = session.run(inputs);
    if (out[0].tensor().value<std::int64_t>(0) != expected) {
      state.SkipWithError("wrong sequence length");
      return;
    }
    benchmark::DoNotOptimize(out);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path models = "build/bench/models";
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--models_dir=", 13) == 0) {
      models = argv[i] + 13;
    } else {
      args.push_back(argv[i]);
    }
  }
  std::filesystem::create_directories(models);
  const auto erase_proto = loop_erase_model();
  const auto insert_proto = loop_insert_model();
  std::ofstream(models / "loop_erase.onnx", std::ios::binary) << erase_proto.SerializeAsString();
  std::ofstream(models / "loop_insert.onnx", std::ios::binary) << insert_proto.SerializeAsString();
  static const Model erase_model = from_proto(erase_proto, "loop_erase");
  static const Model insert_model = from_proto(insert_proto, "loop_insert");

  static const Tensor x = Tensor::from_values<float>(
      Shape{kLength, kPayload}, std::vector<float>(static_cast<std::size_t>(kLength * kPayload), 1.f));
  static const Tensor t = Tensor::from_values<float>(Shape{kPayload}, std::vector<float>(kPayload, 2.f));
  for (std::int64_t k : {0, 1000, 10000, 50000}) {
    benchmark::RegisterBenchmark(
        ("ExecutorLoopErase/-/tseq/payload:16/n:" + std::to_string(k)).c_str(),
        [k](benchmark::State& s) {
          run_model(s, erase_model, {Value(x), Value(Tensor::scalar<std::int64_t>(k))}, kLength - k);
        })
        ->Unit(benchmark::kMillisecond);
  }
  static auto runtime_memory = std::make_shared<std::vector<float>>(65536, 2.f);
  static const Tensor adopted = Tensor::adopt(DataType::Float, Shape{65536}, runtime_memory->data(), Device::cpu(),
                                              std::shared_ptr<void>(runtime_memory));
  for (std::int64_t k : {100, 1000}) {
    benchmark::RegisterBenchmark(
        ("ExecutorLoopInsert/adopted/tseq/payload:65536/n:" + std::to_string(k)).c_str(),
        [k](benchmark::State& s) {
          run_model(s, insert_model, {Value(adopted), Value(Tensor::scalar<std::int64_t>(k))}, k);
        })
        ->Unit(benchmark::kMillisecond);
  }
  for (std::int64_t k : {1000, 10000, 100000}) {
    benchmark::RegisterBenchmark(("ExecutorLoopInsert/-/tseq/payload:16/n:" + std::to_string(k)).c_str(),
                                 [k](benchmark::State& s) {
                                   run_model(s, insert_model, {Value(t), Value(Tensor::scalar<std::int64_t>(k))}, k);
                                 })
        ->Unit(benchmark::kMillisecond);
  }
  for (const std::string order : {"forward", "reverse"}) {
    for (int n : {1000, 32000}) {
      benchmark::RegisterBenchmark(("ExecutorLoad/" + order + "/tseq/payload:16/n:" + std::to_string(n)).c_str(),
                                   [order, n](benchmark::State& s) {
                                     ::onnx::ModelProto p = tseq_test::hostile::reverse_chain(n);
                                     if (order == "forward") {
                                       auto* nodes = p.mutable_graph()->mutable_node();
                                       std::reverse(nodes->begin(), nodes->end());
                                     }
                                     for (auto _ : s) {
                                       Model m = from_proto(p, "chain");
                                       benchmark::DoNotOptimize(m);
                                     }
                                   })
          ->Unit(benchmark::kMillisecond);
    }
  }
  int bargc = static_cast<int>(args.size());
  benchmark::Initialize(&bargc, args.data());
  if (benchmark::ReportUnrecognizedArguments(bargc, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
