// Writes the seed corpus of the onnx_loader fuzz target (fuzz/corpus/onnx_loader): small
// models that use every operator the executor knows, and values of each proto kind, each
// behind the mode byte the target reads first. Run once; its output is committed.
//   fuzz_make_seeds DIR

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "onnx/hostile_models.hpp"
#include "onnx/model_builder.hpp"
#include "tseq/eigen.hpp"

using namespace tseq;
using namespace tseq_test;

namespace {

// The layout onnx_loader.cpp reads: the mode byte, the dtype index as a little-endian uint32
// (Input::below reads four bytes), the optional's kind byte (1: of a tensor), then the message.
// (Until issue 28 the index was written as one byte, so every seed's message lost its first
// three bytes and no seed model parsed.)
void write(const std::string& dir, const std::string& name, char mode, char dtype_index, const std::string& bytes,
           char optional_of_tensor = 0) {
  const char index[4] = {dtype_index, 0, 0, 0};
  std::ofstream(dir + "/" + name, std::ios::binary)
      << mode << std::string(index, sizeof index) << optional_of_tensor << bytes;
}

// A Loop body appending a constant made inside the body, so that Constant runs in a subgraph.
::onnx::GraphProto insert_constant_body() {
  ::onnx::GraphProto body = sequence_loop_body("SequenceInsert", {"x"});
  add_tensor_attribute(add_node(body, "Constant", {}, {"x"}), "value", Tensor::from_values<float>(Shape{2}, {1, 2}));
  return body;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  {  // sequence operators and a Loop of inserts
    ::onnx::GraphProto g;
    add_input(g, "x", DataType::Float, false);
    add_scalar_input(g, "k", DataType::Int64);
    add_node(g, "SequenceEmpty", {}, {"e"});
    auto* loop = add_node(g, "Loop", {"k", "", "e"}, {"s"});
    add_graph_attribute(loop, "body", insert_constant_body());
    add_node(g, "SequenceConstruct", {"x", "x"}, {"c"});
    add_node(g, "ConcatFromSequence", {"c"}, {"cc"});
    add_int_attribute(g.mutable_node(3), "axis", 0);
    add_node(g, "SplitToSequence", {"cc"}, {"sp"});
    add_node(g, "SequenceLength", {"sp"}, {"n"});
    tseq::onnx::to_proto(Tensor::scalar<std::int64_t>(-1), *g.add_initializer(), "last");
    add_node(g, "SequenceAt", {"sp", "last"}, {"at"});
    add_node(g, "SequenceErase", {"s"}, {"s2"});
    add_output(g, "s2", DataType::Float, true);
    add_output(g, "at", DataType::Float, false);
    write(dir, "model_sequence_ops", 0, 0, make_model(g).SerializeAsString());
  }
  {  // Loop of erases, If, Optional, Add, Not, Shape, Slice, Unsqueeze, SequenceMap
    ::onnx::GraphProto then_b;
    add_node(then_b, "Optional", {"x"}, {"o"});
    add_node(then_b, "OptionalGetElement", {"o"}, {"y"});
    add_output(then_b, "y", DataType::Float, false);
    ::onnx::GraphProto else_b;
    add_node(else_b, "Add", {"x", "x"}, {"y"});
    add_output(else_b, "y", DataType::Float, false);
    ::onnx::GraphProto map_body;
    add_input(map_body, "t", DataType::Float, false);
    add_node(map_body, "Shape", {"t"}, {"sh"});
    add_output(map_body, "sh", DataType::Int64, false);
    ::onnx::GraphProto g;
    add_input(g, "x", DataType::Float, false);
    add_input(g, "b", DataType::Bool, false);
    add_input(g, "s", DataType::Float, true);
    add_node(g, "Not", {"b"}, {"nb"});
    tseq::onnx::to_proto(Tensor::scalar<std::int64_t>(0), *g.add_initializer(), "zero");
    tseq::onnx::to_proto(Tensor::from_values<std::int64_t>(Shape{1}, {0}), *g.add_initializer(), "axes");
    auto* iff = add_node(g, "If", {"nb"}, {"y"});
    add_graph_attribute(iff, "then_branch", then_b);
    add_graph_attribute(iff, "else_branch", else_b);
    add_node(g, "Unsqueeze", {"y", "axes"}, {"u"});
    add_node(g, "Slice", {"u", "axes", "axes"}, {"sl"});
    auto* map = add_node(g, "SequenceMap", {"s"}, {"shapes"});
    add_graph_attribute(map, "body", map_body);
    auto* loop = add_node(g, "Loop", {"zero", "b", "s"}, {"s2"});
    add_graph_attribute(loop, "body", sequence_loop_body("SequenceErase", {"i"}));
    add_node(g, "OptionalHasElement", {"s2"}, {"has"});
    add_output(g, "sl", DataType::Float, false);
    add_output(g, "shapes", DataType::Int64, true);
    add_output(g, "has", DataType::Bool, false);
    write(dir, "model_control_flow", 0, 0, make_model(g).SerializeAsString());
  }
  for (int i = 0; i < 15; ++i) {  // one TensorProto per element type
    const DataType t = all_dtypes[i];
    const Tensor x = visit_dtype(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      return TensorBuffer(t, Shape{2, 2}).freeze().values<T>().size() ? TensorBuffer(t, Shape{2, 2}).freeze()
                                                                      : Tensor();
    });
    ::onnx::TensorProto p;
    tseq::onnx::to_proto(x, p, "t");
    write(dir, "tensor_" + dtype_name(t), 1, static_cast<char>(i), p.SerializeAsString());
  }
  {  // the models that once broke the loader or the executor (tests/onnx/untrusted_test.cpp)
    namespace h = tseq_test::hostile;
    write(dir, "hostile_split_bomb", 0, 0, h::split_bomb().SerializeAsString());
    write(dir, "hostile_add_broadcast", 0, 0, h::add_broadcast().SerializeAsString());
    write(dir, "hostile_scan_bomb", 0, 0, h::scan_bomb(1000000000, 64).SerializeAsString());
    write(dir, "hostile_concat_overflow", 0, 0, h::concat_overflow().SerializeAsString());
    write(dir, "hostile_split_overflow", 0, 0, h::split_overflow().SerializeAsString());
    write(dir, "hostile_slice_max_step", 0, 0, h::slice_steps(0, h::kInt64Max, h::kInt64Max).SerializeAsString());
    write(dir, "hostile_slice_min_step", 0, 0, h::slice_steps(-1, h::kInt64Min, h::kInt64Min).SerializeAsString());
    write(dir, "hostile_add_int64_overflow", 0, 0, h::add_int64_overflow().SerializeAsString());
    write(dir, "hostile_reverse_chain", 0, 0, h::reverse_chain(300).SerializeAsString());
    write(dir, "hostile_endless_loop", 0, 0, h::endless_loop().SerializeAsString());
    ::onnx::SequenceProto sparse;
    sparse.set_elem_type(::onnx::SequenceProto::TENSOR);
    sparse.add_sparse_tensor_values()->mutable_values()->set_data_type(1);
    write(dir, "hostile_sparse_sequence", 2, 0, sparse.SerializeAsString());
    // Issue 28 (tests/onnx/hostile_input_test.cpp).
    write(dir, "hostile_long_names", 0, 0, h::long_names(40, 300).SerializeAsString());
    write(dir, "hostile_wide_node", 0, 0, h::wide_node(2000).SerializeAsString());
    write(dir, "hostile_nested_ifs", 0, 0, h::nested_ifs(40).SerializeAsString());
    write(dir, "hostile_wide_sequence_map", 0, 0, h::wide_sequence_map(64).SerializeAsString());
    std::vector<std::int64_t> axes(70);
    for (std::size_t a = 0; a < axes.size(); ++a) axes[a] = static_cast<std::int64_t>(a);
    write(dir, "hostile_unsqueeze_rank_71", 0, 0, h::unsqueeze(axes).SerializeAsString());
    axes.resize(39);  // rank 40: within max_rank, 39 extent-1 axes for the odometer
    write(dir, "hostile_unsqueeze_rank_40", 0, 0, h::unsqueeze(axes).SerializeAsString());
    write(dir, "hostile_concat_strings", 0, 0, h::concat_strings().SerializeAsString());
    write(dir, "hostile_not", 0, 0, h::not_model().SerializeAsString());
    write(dir, "hostile_counted_loop", 0, 0, h::counted_loop().SerializeAsString());
    write(dir, "hostile_string_scan", 0, 0, h::string_scan(1000).SerializeAsString());
    write(dir, "hostile_stack_floats", 0, 0, h::stack_floats().SerializeAsString());
    write(dir, "hostile_empty_tensor_sequence", 2, 0, h::empty_tensor_sequence(1000));
    std::string wrong_wire;  // ModelProto.graph (a message) sent as varints: unknown fields
    for (int i = 0; i < 1000; ++i) wrong_wire.append("\x38\x00", 2);
    write(dir, "hostile_wrong_wire_type", 0, 0, wrong_wire);
    ::onnx::TensorProto high_rank;
    high_rank.set_data_type(::onnx::TensorProto::FLOAT);
    for (int d = 0; d < 100; ++d) high_rank.add_dims(1);
    high_rank.add_float_data(1.f);
    write(dir, "hostile_tensor_rank_100", 1, 0, high_rank.SerializeAsString());
  }
  {
    ::onnx::SequenceProto s;
    tseq::onnx::to_proto(TensorSequence(DataType::Int64, std::vector<Tensor>{Tensor::scalar<std::int64_t>(3)}), s, "s");
    write(dir, "sequence_int64", 2, 6, s.SerializeAsString());
    ::onnx::OptionalProto o;
    o.set_elem_type(::onnx::OptionalProto::SEQUENCE);
    *o.mutable_sequence_value() = s;
    write(dir, "optional_sequence", 3, 6, o.SerializeAsString());
  }
  return 0;
}
