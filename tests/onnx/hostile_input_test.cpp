// Issue 28, hostile input round 3: one named regression test per defect (numbered as in the
// issue), each on a generated model (onnx/hostile_models.hpp), a file or folder built here, or
// a DLPack/adopt case (boundary/). None needs a large file: big files are sparse, endless
// files are FIFOs and devices.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory_resource>
#include <string>
#include <vector>

#include "onnx/hostile_models.hpp"
#include "support/alloc_hook.hpp"
#include "support/error_of.hpp"
#include "tseq/onnx/executor.hpp"
#include "tseq/onnx/proto.hpp"
#include "tseq/onnx/value.hpp"
#include "tseq/ops.hpp"
#include "tseq/tensor.hpp"

namespace {

using namespace tseq;
using namespace tseq::onnx;
using namespace tseq_test;
namespace hostile = tseq_test::hostile;
namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A fresh folder under the temporary directory, removed with the object.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / ("tseq_hostile_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

void write(const fs::path& f, const std::string& bytes) { std::ofstream(f, std::ios::binary) << bytes; }

std::span<const std::byte> bytes_of(const std::string& s) { return std::as_bytes(std::span<const char>(s)); }

Model load_bytes(const std::string& bytes, const LoadOptions& o, const std::string& name = "m.onnx") {
  return Model::parse(bytes_of(bytes), name, o);
}

std::string serialized(const ::onnx::ModelProto& m) { return m.SerializeAsString(); }

// ---- 1: files that are not bounded regular files -------------------------------------------------

TEST(Hostile, D1AFifoIsRefusedWithoutBlocking) {
  TempDir d("fifo");
  const fs::path f = d.path / "input_0.pb";
  ASSERT_EQ(::mkfifo(f.c_str(), 0600), 0);
  const std::string e = error_of([&] { (void)load_value(f, ValueType::tensor(DataType::Float)); });
  EXPECT_TRUE(contains(e, "is a FIFO, not a regular file")) << e;
  EXPECT_TRUE(contains(e, f.string())) << e;
  EXPECT_TRUE(contains(error_of([&] { (void)Model::load(f); }), "is a FIFO, not a regular file"));
}

TEST(Hostile, D1ADeviceIsRefused) {
  if (!fs::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  const std::string e = error_of([&] { (void)Model::load("/dev/zero"); });
  EXPECT_TRUE(contains(e, "/dev/zero: is a character device, not a regular file")) << e;
  EXPECT_TRUE(contains(error_of([&] { (void)read_file("/dev/zero"); }), "is a character device"));
  EXPECT_TRUE(contains(error_of([&] { (void)read_file("/"); }), "not a regular file"));
}

TEST(Hostile, D1ASparseFileOverTheLimitIsRefusedBeforeReading) {
  TempDir d("sparse");
  const fs::path f = d.path / "model.onnx";
  write(f, "");
  fs::resize_file(f, std::uintmax_t{3} << 30);  // 3 GiB of holes: no disk used
  const count_allocations c;
  const std::string e = error_of([&] { (void)Model::load(f); });
  EXPECT_TRUE(contains(e, "3221225472 bytes, over the limit of 2147483647 bytes")) << e;
  const std::string e2 = error_of([&] { (void)load_value(f, ValueType::tensor(DataType::Float)); });
  EXPECT_TRUE(contains(e2, "3221225472 bytes, over the limit of 2147483647 bytes")) << e2;
  EXPECT_LT(c.delta().bytes, std::size_t{1} << 20);
  // A smaller limit applies the same way.
  fs::resize_file(f, 5000);
  LoadOptions o;
  o.max_file_bytes = 4096;
  EXPECT_TRUE(contains(error_of([&] { (void)Model::load(f, o); }), "5000 bytes, over the limit of 4096 bytes"));
}

// ---- 2: loading bounded in time and memory --------------------------------------------------------

TEST(Hostile, D2LongNamesTimesManyNodesLoadInLinearMemory) {
  // 2000 nodes with 2 KB names: a 12 MB file. Eager error contexts made ~2000 x 2000 x 2 KB.
  const std::string bytes = serialized(hostile::long_names(2000, 2048));
  const count_allocations c;
  const Model m = load_bytes(bytes, LoadOptions{});
  EXPECT_LT(c.delta().bytes, 20 * bytes.size()) << "loading allocated " << c.delta().bytes << " bytes";
  EXPECT_EQ(m.inputs().size(), 1u);
  // The untrusted limit on names refuses them before anything is compiled.
  LoadOptions o;
  o.max_name_bytes = 1024;
  const std::string e = error_of([&] { (void)load_bytes(bytes, o); });
  EXPECT_TRUE(contains(e, "bytes, over LoadOptions::max_name_bytes of 1024")) << e;
}

TEST(Hostile, D2ANodeWithManyInputsLoadsInLinearTime) {
  LoadOptions o;
  o.time_limit = std::chrono::seconds(60);  // O(k^2) at k = 300000 is about 10^11 steps
  const Model m = load_bytes(serialized(hostile::wide_node(300000)), o);
  Session s(m);
  const auto out = s.run(std::vector<Value>{Value(Tensor::scalar(1.f))});
  EXPECT_EQ(out[0].tensor().value<std::int64_t>(0), 300000);
}

TEST(Hostile, D2NodeCountIsBoundedBeforeParsing) {
  const std::string bytes = serialized(hostile::reverse_chain(1000));
  LoadOptions o;
  o.max_nodes = 999;
  (void)error_of([&] { (void)load_bytes(bytes, o); });  // protobuf builds its descriptors once, on first use
  const count_allocations c;
  const std::string e = error_of([&] { (void)load_bytes(bytes, o, "chain.onnx"); });
  EXPECT_TRUE(contains(e, "chain.onnx: ")) << e;
  EXPECT_TRUE(contains(e, "over LoadOptions::max_nodes of 999")) << e;
  EXPECT_LT(c.delta().bytes, bytes.size()) << "refused before the bytes were parsed";
  o.max_nodes = 1000;
  EXPECT_NO_THROW((void)load_bytes(bytes, o));
}

TEST(Hostile, D2MemoryIsBoundedBeforeParsing) {
  const std::string bytes = serialized(hostile::reverse_chain(1000));
  LoadOptions o;
  o.max_bytes = static_cast<std::int64_t>(bytes.size());  // parsed nodes take far more than their bytes
  (void)error_of([&] { (void)load_bytes(bytes, o); });    // protobuf builds its descriptors once, on first use
  const count_allocations c;
  const std::string e = error_of([&] { (void)load_bytes(bytes, o, "chain.onnx"); });
  EXPECT_TRUE(contains(e, "over LoadOptions::max_bytes of")) << e;
  EXPECT_LT(c.delta().bytes, bytes.size());
}

TEST(Hostile, D2LoadingHasATimeLimit) {
  LoadOptions o;
  o.time_limit = std::chrono::nanoseconds(1);
  const std::string e = error_of([&] { (void)load_bytes(serialized(hostile::reverse_chain(5000)), o, "c.onnx"); });
  EXPECT_TRUE(contains(e, "c.onnx graph 'reverse_chain': ")) << e;
  EXPECT_TRUE(contains(e, "loading took longer than its time limit of 1 ns (LoadOptions::time_limit)")) << e;
}

TEST(Hostile, D2SubgraphNestingIsBounded) {
  EXPECT_NO_THROW((void)load_bytes(serialized(hostile::nested_ifs(max_graph_depth - 1)), LoadOptions{}));
  // Deeper: a file cannot hold it (protobuf's limit of 100 nested messages, three per level,
  // checked by the walk before parsing) and a ModelProto built in memory is refused by the
  // compiler before it recurses further.
  const std::string e =
      error_of([&] { (void)load_bytes(serialized(hostile::nested_ifs(max_graph_depth + 1)), LoadOptions{}); });
  EXPECT_EQ(e, "m.onnx: malformed protobuf (nested deeper than 100 messages)");
  for (const int depth : {max_graph_depth + 1, 200}) {
    const std::string e2 = error_of([&] { (void)from_proto(hostile::nested_ifs(depth), "deep.onnx"); });
    EXPECT_TRUE(contains(e2, "subgraphs nest deeper than 32 levels")) << e2;
  }
}

TEST(Hostile, D2UntrustedLoadOptionsAreDocumentedValues) {
  const LoadOptions o = LoadOptions::untrusted();
  EXPECT_EQ(o.max_file_bytes, std::int64_t{1} << 30);
  EXPECT_EQ(o.max_bytes, std::int64_t{4} << 30);
  EXPECT_EQ(o.max_nodes, 1000000);
  EXPECT_EQ(o.max_name_bytes, 4096);
  EXPECT_EQ(o.time_limit, std::chrono::seconds(60));
}

// ---- 3: fed values parsed within bounds -----------------------------------------------------------

TEST(Hostile, D3ASequenceOfManyEmptyTensorsIsRefusedBeforeParsing) {
  const std::string bytes = hostile::empty_tensor_sequence(1000000);  // 2 MB
  ReadLimits r;
  r.max_bytes = std::int64_t{64} << 20;
  const count_allocations c;
  const std::string e =
      error_of([&] { (void)parse_value(bytes_of(bytes), ValueType::sequence(DataType::Float), "s.pb", r); });
  EXPECT_TRUE(contains(e, "s.pb: parsing it would take about")) << e;
  EXPECT_TRUE(contains(e, "over max_bytes of 67108864")) << e;
  EXPECT_LT(c.delta().bytes, std::size_t{8} << 20);
  ReadLimits n;
  n.max_sequence_length = 1000;
  const std::string e2 =
      error_of([&] { (void)parse_value(bytes_of(bytes), ValueType::sequence(DataType::Float), "s.pb", n); });
  EXPECT_TRUE(contains(e2, "1000000 tensors")) << e2;
  EXPECT_TRUE(contains(e2, "1000")) << e2;
  // A session's limits apply to what it is fed.
  SessionOptions so = SessionOptions::untrusted();
  so.max_sequence_length = 1000;
  EXPECT_EQ(so.read_limits().max_sequence_length, 1000);
  EXPECT_EQ(so.read_limits().max_bytes, so.max_run_bytes);
}

TEST(Hostile, D3StringCharactersCountInTensorBytes) {
  ::onnx::TensorProto t;
  t.set_data_type(static_cast<int>(DataType::String));
  t.add_dims(2);
  t.add_string_data(std::string(10000, 'a'));
  t.add_string_data(std::string(10000, 'b'));
  const std::string bytes = t.SerializeAsString();
  ReadLimits r;
  r.max_tensor_bytes = 10000;
  const std::string e =
      error_of([&] { (void)parse_value(bytes_of(bytes), ValueType::tensor(DataType::String), "t.pb", r); });
  EXPECT_TRUE(contains(e, "t.pb")) << e;
  EXPECT_TRUE(contains(e, "max_tensor_bytes of 10000")) << e;
  r.max_tensor_bytes = 30000;
  EXPECT_EQ(parse_value(bytes_of(bytes), ValueType::tensor(DataType::String), "t.pb", r).tensor().size(), 2u);
}

TEST(Hostile, D3ATensorFileFedAsASequenceIsAnError) {
  ::onnx::TensorProto t;
  to_proto(Tensor::from_values<float>(Shape{3}, {1, 2, 3}), t);
  const std::string bytes = t.SerializeAsString();
  const std::string e =
      error_of([&] { (void)parse_value(bytes_of(bytes), ValueType::sequence(DataType::Float), "x.pb"); });
  EXPECT_TRUE(contains(e, "x.pb: ")) << e;
  EXPECT_TRUE(contains(e, "which a SequenceProto does not have")) << e;
}

TEST(Hostile, D3ARankOverTheLimitInAFileIsRefused) {
  ::onnx::TensorProto t;
  t.set_data_type(static_cast<int>(DataType::Float));
  for (int i = 0; i < 300; ++i) t.add_dims(1);
  t.add_float_data(1.f);
  const std::string bytes = t.SerializeAsString();
  const std::string e =
      error_of([&] { (void)parse_value(bytes_of(bytes), ValueType::tensor(DataType::Float), "r.pb"); });
  EXPECT_TRUE(contains(e, "rank 300 is over tseq::onnx's max_rank of 64")) << e;
}

// ---- 4: run memory the budget now sees ------------------------------------------------------------

TEST(Hostile, D4RanksOverTheLimitAreRefusedInARun) {
  std::vector<std::int64_t> axes;
  for (std::size_t a = 0; a < max_rank; ++a) axes.push_back(static_cast<std::int64_t>(a));  // rank 1 + 64 = 65
  Session s(from_proto(hostile::unsqueeze(axes), "u.onnx"));
  const std::string e = error_of([&] {
    (void)s.run(std::vector<Value>{Value(Tensor::from_values<float>(Shape{2}, {1, 2}))});
  });
  EXPECT_TRUE(contains(e, "the result would have rank 65, over tseq::onnx's max_rank of 64")) << e;
  // A fed tensor too.
  Session id(from_proto(hostile::unsqueeze({0}), "u.onnx"));
  const std::vector<std::int64_t> dims(65, 1);
  const Tensor high = TensorBuffer(DataType::Float, Shape(std::span<const std::int64_t>(dims))).freeze();
  const std::string e2 = error_of([&] { (void)id.run(std::vector<Value>{Value(high)}); });
  EXPECT_TRUE(contains(e2, "input 'x' has rank 65, over tseq::onnx's max_rank of 64")) << e2;
}

TEST(Hostile, D4StringCharactersCountInTheRunBudget) {
  // Ten strings of 100 KB concatenated: 1 MB of characters in 320 bytes of string objects.
  std::vector<Tensor> parts;
  for (int i = 0; i < 10; ++i) parts.push_back(Tensor::from_values<std::string>(Shape{1}, {std::string(100000, 'x')}));
  const Value seq(ops::sequence_construct(parts));
  SessionOptions o;
  o.max_run_bytes = 500000;
  Session s(from_proto(hostile::concat_strings(), "cs.onnx"), o);
  const std::string e = error_of([&] { (void)s.run(std::vector<Value>{seq}); });
  EXPECT_TRUE(contains(e, "over the session's max_run_bytes of 500000")) << e;
  o.max_run_bytes = 4000000;
  Session ok(from_proto(hostile::concat_strings(), "cs.onnx"), o);
  EXPECT_EQ(ok.run(std::vector<Value>{seq})[0].tensor().size(), 10u);
}

TEST(Hostile, D4HighRankShapesCountInTheRunBudget) {
  // Unsqueeze to rank 60: each result holds 60 heap dims (480 bytes) for 2 elements. Under a
  // budget smaller than that, the shape is what is refused.
  std::vector<std::int64_t> axes;
  for (std::int64_t a = 0; a < 59; ++a) axes.push_back(a);
  SessionOptions o;
  o.max_run_bytes = 300;
  Session s(from_proto(hostile::unsqueeze(axes), "u.onnx"), o);
  const std::string e = error_of([&] {
    (void)s.run(std::vector<Value>{Value(Tensor::from_values<float>(Shape{2}, {1, 2}))});
  });
  EXPECT_TRUE(contains(e, "max_run_bytes of 300")) << e;
}

TEST(Hostile, D4SequenceMapOutputsAreCheckedBeforeMapping) {
  std::vector<Tensor> elems(20000, Tensor::scalar(1.f));
  const Value seq(ops::sequence_construct(elems));
  SessionOptions o;
  o.max_run_bytes = 1 << 20;  // 50 outputs x 20000 elements x 16 bytes = 16 MB of sequence storage
  Session s(from_proto(hostile::wide_sequence_map(50), "map.onnx"), o);
  const count_allocations c;
  const std::string e = error_of([&] { (void)s.run(std::vector<Value>{seq}); });
  EXPECT_TRUE(contains(e, "SequenceMap: the result would take about 16000000 bytes")) << e;
  EXPECT_LT(c.delta().bytes, std::size_t{1} << 20);
  SessionOptions len;
  len.max_sequence_length = 100;
  Session l(from_proto(hostile::wide_sequence_map(2), "map.onnx"), len);
  EXPECT_TRUE(contains(error_of([&] { (void)l.run(std::vector<Value>{seq}); }),
                       "SequenceMap: the result would hold 20000 tensors, over the session's max_sequence_length"));
}

// A resource that raises a flag on its n-th allocation: a run's cancellation arriving while a
// kernel is inside its element loop.
class cancel_on_allocation : public std::pmr::memory_resource {
 public:
  cancel_on_allocation(std::atomic<bool>& flag, std::size_t min_bytes) : flag_(flag), min_bytes_(min_bytes) {}

 private:
  void* do_allocate(std::size_t n, std::size_t a) override {
    if (n >= min_bytes_) flag_.store(true);
    return std::pmr::new_delete_resource()->allocate(n, a);
  }
  void do_deallocate(void* p, std::size_t n, std::size_t a) override {
    std::pmr::new_delete_resource()->deallocate(p, n, a);
  }
  bool do_is_equal(const memory_resource& o) const noexcept override { return this == &o; }
  std::atomic<bool>& flag_;
  std::size_t min_bytes_;
};

// ---- 5: deadline and cancellation inside kernels --------------------------------------------------

TEST(Hostile, D5KernelsCheckCancellationInsideTheirLoop) {
  // The flag is raised when the result's block is allocated: after the check between nodes, so
  // only the kernel's own check can see it.
  std::vector<std::int64_t> axes;
  for (std::int64_t a = 0; a < 40; ++a) axes.push_back(a);
  const std::size_t n = std::size_t{1} << 18;
  const Tensor x = TensorBuffer(DataType::Float, Shape{static_cast<std::int64_t>(n)}).freeze();
  for (const char* op : {"Unsqueeze", "Add"}) {
    std::atomic<bool> cancel{false};
    cancel_on_allocation r(cancel, n * sizeof(float));
    SessionOptions o;
    o.cancel = &cancel;
    o.memory_resource = &r;
    const bool add = std::string(op) == "Add";
    Session s(from_proto(add ? hostile::add_broadcast() : hostile::unsqueeze(axes), "k.onnx"), o);
    std::vector<Value> in{Value(x)};
    if (add) in.emplace_back(x);
    const std::string e = error_of<RunStopped>([&] { (void)s.run(in); });
    EXPECT_TRUE(contains(e, std::string(op) + ": ")) << e;
    EXPECT_TRUE(contains(e, "cancel")) << e;
  }
}

TEST(Hostile, D5UnsqueezeToRank64CopiesFlat) {
  // 2^16 elements under 63 extent-1 axes: correct, and without a per-element walk of them
  // (that took hours at 2^24 elements; here the time limit would catch a regression).
  std::vector<std::int64_t> axes;
  for (std::size_t a = 1; a < max_rank; ++a) axes.push_back(static_cast<std::int64_t>(a));
  std::vector<float> v(1 << 16);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  const Tensor x = Tensor::from_values<float>(Shape{static_cast<std::int64_t>(v.size())}, v);
  SessionOptions o;
  o.time_limit = std::chrono::seconds(30);
  Session s(from_proto(hostile::unsqueeze(axes), "u.onnx"), o);
  const Tensor y = s.run(std::vector<Value>{Value(x)})[0].tensor();
  EXPECT_EQ(y.rank(), 64u);
  EXPECT_EQ(y.shape()[0], 65536);
  const auto got = y.values<float>();
  EXPECT_TRUE(std::equal(got.begin(), got.end(), v.begin(), v.end()));
}

// ---- 8: names escaped ------------------------------------------------------------------------------

TEST(Hostile, D8NamesInMessagesAreEscaped) {
  EXPECT_EQ(escape_name("a\nPASS b\t'c'\\\x01\x7f"), "a\\nPASS b\\t\\'c\\'\\\\\\x01\\x7f");
  EXPECT_EQ(escape_name(std::string(300, 'x'), 10), "xxxxxxxxxx...(300 bytes)");
  ::onnx::GraphProto g;
  g.set_name("g\n1 passed, 0 failed");
  add_input(g, "x", DataType::Float, false);
  add_node(g, "NoSuchOp", {"x"}, {"y"})->set_name("n\nPASS forged");
  add_output(g, "y", DataType::Float, false);
  const std::string e = error_of([&] { (void)from_proto(make_model(g), "m.onnx"); });
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_TRUE(contains(e, "n\\nPASS forged")) << e;
}

// ---- 6-9: the conformance tool on hostile folders ----------------------------------------------

// A case folder: model.onnx and one test_data_set_K per entry of `sets`, each holding the
// given input and output values.
struct DataSet {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};
void write_case(const fs::path& dir, const ::onnx::ModelProto& model, const std::vector<DataSet>& sets) {
  fs::create_directories(dir);
  write(dir / "model.onnx", model.SerializeAsString());
  for (std::size_t k = 0; k < sets.size(); ++k) {
    const fs::path set = dir / ("test_data_set_" + std::to_string(k));
    fs::create_directories(set);
    for (std::size_t i = 0; i < sets[k].inputs.size(); ++i) {
      ::onnx::TensorProto p;
      to_proto(sets[k].inputs[i], p);
      write(set / ("input_" + std::to_string(i) + ".pb"), p.SerializeAsString());
    }
    for (std::size_t i = 0; i < sets[k].outputs.size(); ++i) {
      ::onnx::TensorProto p;
      to_proto(sets[k].outputs[i], p);
      write(set / ("output_" + std::to_string(i) + ".pb"), p.SerializeAsString());
    }
  }
}

// A case that passes: x -> Identity -> y.
::onnx::ModelProto identity_model() {
  ::onnx::GraphProto g;
  g.set_name("identity");
  add_input(g, "x", DataType::Float, false);
  add_node(g, "Identity", {"x"}, {"y"});
  add_output(g, "y", DataType::Float, false);
  return make_model(g);
}
DataSet identity_set(float v) {
  return {{Tensor::from_values<float>(Shape{2}, {v, v})}, {Tensor::from_values<float>(Shape{2}, {v, v})}};
}

std::pair<std::string, int> run_tool(const std::string& args) {
  return run_command(std::string(TSEQ_ONNX_TEST_EXE) + " " + args + " 2>&1");
}

// Lines of `output` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& output, const std::string& prefix) {
  std::vector<std::string> r;
  std::size_t at = 0;
  while (at < output.size()) {
    const std::size_t end = std::min(output.find('\n', at), output.size());
    const std::string line = output.substr(at, end - at);
    if (line.rfind(prefix, 0) == 0) r.push_back(line);
    at = end + 1;
  }
  return r;
}

// Defect 6: --time-limit bounds a case as a whole (loading, reading and every data set), not
// each data set afresh. 64 data sets of a Loop whose single set takes a fraction of the
// limit: a fresh limit per set passed them all. (Each set alone taking longer also fails:
// the test cannot pass by accident on a slow build. On a fast one, the sets together must
// still outlast the limit: with 8 sets, a machine doing a set in 0.11 s finished the case
// inside its second, so the set count leaves a margin of 7x at that speed.)
TEST(Hostile, D6TheToolBoundsACaseAsAWhole) {
  TempDir t("d6");
  const Tensor x = Tensor::from_values<float>(Shape{2}, {1, 2});
  std::vector<DataSet> sets(64, DataSet{{Tensor::scalar<std::int64_t>(400'000), x}, {x}});
  write_case(t.path / "cases" / "slow", hostile::counted_loop(), sets);
  const auto [output, status] = run_tool("--max-loop-iterations 1000000 --time-limit 1 " + (t.path / "cases").string());
  EXPECT_EQ(status, 1) << output;
  EXPECT_TRUE(contains(output, "FAIL cases/slow: ")) << output;
  EXPECT_TRUE(contains(output, "time limit")) << output;
  // The same case with one short set passes: the budget is what failed it.
  write_case(t.path / "short" / "quick", hostile::counted_loop(),
             {DataSet{{Tensor::scalar<std::int64_t>(10), x}, {x}}});
  const auto [ok, ok_status] = run_tool("--time-limit 60 " + (t.path / "short").string());
  EXPECT_TRUE(contains(ok, "PASS short/quick")) << ok;
  EXPECT_EQ(ok_status, 0) << ok;
}

// Defect 7: a symbolic link is followed only when its target lies inside the folder given. A
// linked folder of cases elsewhere is not run, and an output file linked to a file elsewhere
// is neither read nor printed; links inside the folder work; --follow-links follows all.
TEST(Hostile, D7TheToolRefusesLinksThatLeaveTheFolderGiven) {
  TempDir t("d7");
  const fs::path root = t.path / "root";
  const fs::path outside = t.path / "outside";
  write_case(root / "ok", identity_model(), {identity_set(1)});
  write_case(outside / "elsewhere", identity_model(), {identity_set(2)});
  fs::create_directories(root / "store");
  write_case(root / "store" / "inner", identity_model(), {identity_set(3)});
  fs::create_directory_symlink(outside, root / "linked_out");        // a folder of cases elsewhere
  fs::create_directory_symlink(root / "store", root / "linked_in");  // a folder inside: followed
  // A case whose expected output is a link to a "secret" file outside.
  write_case(root / "leak", identity_model(), {identity_set(4)});
  ::onnx::TensorProto secret;
  to_proto(Tensor::from_values<float>(Shape{2}, {4, 4}), secret);
  write(t.path / "secret.pb", secret.SerializeAsString());
  fs::remove(root / "leak" / "test_data_set_0" / "output_0.pb");
  fs::create_symlink(t.path / "secret.pb", root / "leak" / "test_data_set_0" / "output_0.pb");

  const auto [output, status] = run_tool(root.string());
  EXPECT_EQ(status, 1) << output;
  EXPECT_TRUE(contains(output, "PASS root/ok")) << output;
  // Once, though two paths reach it (linked_in/inner and store/inner: the same folder).
  const auto passes = lines_starting(output, "PASS ");
  EXPECT_EQ(std::count_if(passes.begin(), passes.end(), [](const std::string& l) { return contains(l, "/inner"); }), 1)
      << output;
  EXPECT_FALSE(contains(output, "elsewhere")) << output;  // not run
  EXPECT_TRUE(contains(output, "linked_out: a symbolic link that leads outside")) << output;
  EXPECT_TRUE(contains(output, "FAIL root/leak: ")) << output;
  EXPECT_TRUE(contains(output, "output_0.pb: a symbolic link that leads outside")) << output;
  EXPECT_TRUE(contains(output, "2 passed, 2 failed")) << output;
  EXPECT_FALSE(contains(output, "secret")) << output;  // where a link leads outside is not printed
  EXPECT_FALSE(contains(output, outside.string())) << output;

  const auto [followed, followed_status] = run_tool("--follow-links " + root.string());
  EXPECT_TRUE(contains(followed, "PASS linked_out/elsewhere")) << followed;
  EXPECT_TRUE(contains(followed, "PASS root/leak")) << followed;
  EXPECT_TRUE(contains(followed, "4 passed, 0 failed")) << followed;
  EXPECT_EQ(followed_status, 0) << followed;
}

// Defect 8: names from a model or a folder are printed with their control characters
// escaped: a node name or a folder name holding newlines forges no PASS or summary line.
TEST(Hostile, D8TheToolPrintsNoForgedLine) {
  TempDir t("d8");
  ::onnx::GraphProto g;
  g.set_name("g\n7 passed, 0 failed");
  add_input(g, "x", DataType::Float, false);
  add_node(g, "NoSuchOp", {"x"}, {"y"})->set_name("n\nPASS forged/by_node");
  add_output(g, "y", DataType::Float, false);
  write_case(t.path / "cases" / "bad", make_model(g), {identity_set(1)});
  write_case(t.path / "cases" / "x\nPASS forged\n", identity_model(), {identity_set(1)});
  const auto [output, status] = run_tool((t.path / "cases").string());
  EXPECT_EQ(status, 1) << output;
  EXPECT_TRUE(lines_starting(output, "PASS forged").empty()) << output;
  EXPECT_TRUE(lines_starting(output, "7 passed").empty()) << output;
  EXPECT_TRUE(contains(output, "n\\nPASS forged/by_node")) << output;
  EXPECT_TRUE(contains(output, "PASS cases/x\\nPASS forged\\n")) << output;
  EXPECT_EQ(lines_starting(output, "PASS ").size(), 1U) << output;
  EXPECT_TRUE(contains(output, "\n1 passed, 1 failed\n")) << output;
}

// Defect 9: the folder walk keeps one entry per pending folder and knows folders by device
// and inode (no canonical() per folder): thousands of folders, wide or deep, are walked with
// bounded memory, and folders nested past the depth limit are reported, not searched.
TEST(Hostile, D9TheToolWalksDeepAndWideFolders) {
  TempDir t("d9");
  const fs::path wide = t.path / "wide";
  fs::create_directories(wide);
  for (int i = 0; i < 3000; ++i) fs::create_directory(wide / std::to_string(i));
  write_case(wide / "2999" / "case", identity_model(), {identity_set(1)});
  const auto [w, w_status] = run_tool(wide.string());
  EXPECT_TRUE(contains(w, "1 passed, 0 failed")) << w;
  EXPECT_EQ(w_status, 0) << w;

  fs::path deep = t.path / "deep";
  for (int d = 0; d < 80; ++d) deep /= "d";
  fs::create_directories(deep);
  write_case(deep / "case", identity_model(), {identity_set(1)});
  const auto [d, d_status] = run_tool((t.path / "deep").string());
  EXPECT_EQ(d_status, 1) << d;
  EXPECT_TRUE(contains(d, "folders nested more than 64 deep are not searched")) << d;
  EXPECT_TRUE(contains(d, "0 passed, 1 failed")) << d;
}

// ---- found by a review of the fixes above --------------------------------------------------------

// String characters are copied through the global heap (std::string), not the run's resource:
// ConcatFromSequence and Loop's scan stacking check them against max_tensor_bytes and what is
// left of max_run_bytes before copying (the check at freeze() came after 10 MB was copied).
TEST(Hostile, R1StringCharactersAreCheckedBeforeTheyAreCopied) {
  const Tensor row = Tensor::from_values<std::string>(Shape{1}, {std::string(100000, 'x')});
  const Value seq(ops::sequence_construct(std::vector<Tensor>(100, row)));  // 10 MB of characters, one copy held
  SessionOptions o;
  o.max_run_bytes = 1 << 20;
  Session concat(from_proto(hostile::concat_strings(), "cs.onnx"), o);
  {
    const count_allocations c;
    const std::string e = error_of([&] { (void)concat.run(std::vector<Value>{seq}); });
    EXPECT_TRUE(contains(e, "ConcatFromSequence: the result would take about 10000000 bytes")) << e;
    EXPECT_LT(c.delta().bytes, std::size_t{1} << 20);
  }
  Session scan(from_proto(hostile::string_scan(100), "scan.onnx"), o);
  {
    const count_allocations c;
    const std::string e = error_of([&] { (void)scan.run(std::vector<Value>{Value(row)}); });
    EXPECT_TRUE(contains(e, "Loop scan output")) << e;
    EXPECT_TRUE(contains(e, "max_run_bytes of 1048576")) << e;
    EXPECT_LT(c.delta().bytes, std::size_t{2} << 20);
  }
  SessionOptions t;
  t.max_tensor_bytes = 1 << 20;  // characters count in a tensor's bytes too
  Session per_tensor(from_proto(hostile::concat_strings(), "cs.onnx"), t);
  EXPECT_TRUE(contains(error_of([&] { (void)per_tensor.run(std::vector<Value>{seq}); }),
                       "over the session's max_tensor_bytes of 1048576"));
  SessionOptions roomy;
  roomy.max_run_bytes = 64 << 20;
  Session ok(from_proto(hostile::string_scan(100), "scan.onnx"), roomy);
  EXPECT_EQ(ok.run(std::vector<Value>{Value(row)})[0].tensor().size(), 100U);
}

// Inputs naming an initializer (a default) found it by a linear search: quadratic in a graph of
// many. Now by slot; the type check still applies.
TEST(Hostile, R2InputsWithDefaultsAreMatchedToTheirInitializers) {
  ::onnx::GraphProto g;
  g.set_name("defaults");
  for (int i = 0; i < 20000; ++i) hostile::add_ints_initializer(g, "w" + std::to_string(i), {i});
  for (int i = 0; i < 20000; ++i) add_input(g, "w19999", DataType::Int64, false);
  add_node(g, "Identity", {"w19999"}, {"y"});
  add_output(g, "y", DataType::Int64, false);
  LoadOptions o;
  o.time_limit = std::chrono::seconds(60);
  Session s(load_bytes(serialized(make_model(g)), o, "d.onnx"));
  EXPECT_EQ(s.run(std::vector<Value>{})[0].tensor().value<std::int64_t>(0), 19999);
  set_tensor_type(g.mutable_input(19999)->mutable_type(), DataType::Float);
  const std::string e = error_of([&] { (void)load_bytes(serialized(make_model(g)), o, "d.onnx"); });
  EXPECT_TRUE(contains(e, "input 'w19999' is declared tensor(float) but its initializer is tensor(int64)")) << e;
}

// A field sent with another wire type than its own (a message as a varint) is kept by protobuf
// as an unknown field, 64 bytes or more each: the pre-parse walk counts it so (it counted 0).
TEST(Hostile, R3FieldsOfTheWrongWireTypeCountAsUnknown) {
  std::string model;
  for (int i = 0; i < 100000; ++i) model.append("\x38\x00", 2);  // ModelProto.graph (field 7) as a varint
  LoadOptions o;
  o.max_bytes = 1 << 20;
  (void)error_of([&] { (void)load_bytes(model, o); });  // protobuf's descriptors, built once
  {
    const count_allocations c;
    const std::string e = error_of([&] { (void)load_bytes(model, o, "w.onnx"); });
    EXPECT_TRUE(contains(e, "w.onnx: parsing it would take about")) << e;
    EXPECT_TRUE(contains(e, "over LoadOptions::max_bytes of 1048576")) << e;
    EXPECT_LT(c.delta().bytes, model.size());
  }
  std::string tensor;
  for (int i = 0; i < 100000; ++i) tensor.append("\x40\x00", 2);  // TensorProto.name (field 8) as a varint
  ReadLimits r;
  r.max_bytes = 1 << 20;
  const std::string e =
      error_of([&] { (void)parse_value(bytes_of(tensor), ValueType::tensor(DataType::Float), "t.pb", r); });
  EXPECT_TRUE(contains(e, "t.pb: parsing it would take about")) << e;
}

// all_close compared bool tensors byte by byte without asking where they are: a device
// pointer was read on the host.
TEST(Hostile, R4BoolComparisonOnADeviceIsADeviceError) {
  alignas(64) static unsigned char bytes[2] = {0, 1};
  const Tensor dev = Tensor::adopt(DataType::Bool, Shape{2}, bytes, Device{DeviceType::Cuda, 0}, nullptr, nullptr);
  const Tensor host = Tensor::from_values<bool>(Shape{2}, {false, true});
  EXPECT_THROW((void)all_close(Value(dev), Value(host), 0, 0), DeviceError);
  EXPECT_THROW((void)all_close(Value(host), Value(dev), 0, 0), DeviceError);
}

// Byte counts near INT64_MAX (a float tensor of 2^61 - 1 elements; strings of 2^58 - 1 elements
// and one more character) overflowed when the header and characters were added (UBSan).
TEST(Hostile, R5HugeDeclaredTensorsDoNotOverflowTheByteCount) {
  ::onnx::TensorProto f;
  f.set_data_type(static_cast<int>(DataType::Float));
  f.add_dims((std::int64_t{1} << 61) - 1);
  const std::string fb = f.SerializeAsString();
  EXPECT_FALSE(error_of([&] { (void)parse_value(bytes_of(fb), ValueType::tensor(DataType::Float), "f.pb"); }).empty());
  ::onnx::TensorProto s;
  s.set_data_type(static_cast<int>(DataType::String));
  s.add_dims((std::int64_t{1} << 58) - 1);
  s.add_string_data(std::string(40, 's'));
  const std::string sb = s.SerializeAsString();
  const std::string e = error_of([&] { (void)parse_value(bytes_of(sb), ValueType::tensor(DataType::String), "s.pb"); });
  EXPECT_TRUE(contains(e, "s.pb")) << e;
  EXPECT_FALSE(error_of([&] { (void)from_proto(s, "s"); }).empty());
}

// max_sequence_length is exact for a fed sequence (it let one tensor more through the walk).
TEST(Hostile, R6TheSequenceLengthLimitIsExact) {
  const std::string bytes = hostile::empty_tensor_sequence(1000);
  ReadLimits r;
  r.max_sequence_length = 999;
  EXPECT_TRUE(
      contains(error_of([&] { (void)parse_value(bytes_of(bytes), ValueType::sequence(DataType::Float), "s.pb", r); }),
               "holds 1000 tensors, over max_sequence_length of 999"));
}

// Bool elements are copied as bytes by the copying operators (ConcatFromSequence,
// SplitToSequence, scan stacking): adopted bytes other than 0 and 1 are carried, not read as bool.
TEST(Hostile, R7BoolsAreCopiedAsBytes) {
  alignas(64) static unsigned char raw[2] = {2, 0};
  const Tensor b = Tensor::adopt(DataType::Bool, Shape{2}, raw, Device{}, nullptr, nullptr);
  const Tensor y = ops::concat_from_sequence(ops::sequence_construct(std::vector<Tensor>{b, b}), 0);
  const auto* out = static_cast<const unsigned char*>(y.data());
  EXPECT_EQ(std::vector<int>(out, out + 4), (std::vector<int>{2, 0, 2, 0}));
}

// A file name holding a newline is escaped in read_file's and parse_value's messages.
TEST(Hostile, R9FileNamesInMessagesAreEscaped) {
  TempDir t("r9");
  const fs::path f = t.path / "in\nPASS x.pb";
  write(f, "\xff\xff");
  const std::string e = error_of([&] { (void)load_value(f, ValueType::tensor(DataType::Float)); });
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_TRUE(contains(e, "in\\nPASS x.pb: ")) << e;
  const std::string missing = error_of([&] { (void)read_file(t.path / "no\nfile"); });
  EXPECT_TRUE(contains(missing, "no\\nfile: cannot be opened")) << missing;
}

// ConcatFromSequence with new_axis adds an axis: the result's rank is checked (rank-64
// elements made a rank-65 result).
TEST(Hostile, R10ConcatenationWithANewAxisChecksTheRank) {
  const std::vector<std::int64_t> dims(max_rank, 1);
  const Tensor e64 = TensorBuffer(DataType::Float, Shape(std::span<const std::int64_t>(dims))).freeze();
  Session s(from_proto(hostile::stack_floats(), "stack.onnx"));
  const std::string e = error_of([&] {
    (void)s.run(std::vector<Value>{Value(ops::sequence_construct(std::vector<Tensor>{e64, e64}))});
  });
  EXPECT_TRUE(contains(e, "ConcatFromSequence: the result would have rank 65, over tseq::onnx's max_rank of 64")) << e;
}

// ---- also noticed: opsets and attributes ------------------------------------------------------------

TEST(Hostile, ANegativeOpsetIsNamed) {
  const std::string e = error_of([&] { (void)from_proto(hostile::reverse_chain(1), "o.onnx"); });
  EXPECT_EQ(e, "(no exception)");
  auto m = hostile::reverse_chain(1);
  m.mutable_opset_import(0)->set_version(-3);
  EXPECT_TRUE(contains(error_of([&] { (void)from_proto(m, "o.onnx"); }), "opset -3"))
      << error_of([&] { (void)from_proto(m, "o.onnx"); });
}

TEST(Hostile, InvalidAttributesAreRefused) {
  auto dup = hostile::split_rows();
  add_int_attribute(dup.mutable_graph()->mutable_node(0), "axis", 0);
  add_int_attribute(dup.mutable_graph()->mutable_node(0), "axis", 1);
  const std::string e = error_of([&] { (void)from_proto(dup, "a.onnx"); });
  EXPECT_TRUE(contains(e, "attribute 'axis'")) << e;
  EXPECT_TRUE(contains(e, "twice")) << e;
  auto wrong = hostile::split_rows();
  auto* a = wrong.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("axis");
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(1.5f);
  const std::string e2 = error_of([&] { (void)from_proto(wrong, "a.onnx"); });
  EXPECT_TRUE(contains(e2, "attribute 'axis'")) << e2;
  auto undefined = hostile::split_rows();
  auto* u = undefined.mutable_graph()->mutable_node(0)->add_attribute();
  u->set_name("keepdims");
  u->set_i(1);
  const std::string e3 = error_of([&] { (void)from_proto(undefined, "a.onnx"); });
  EXPECT_TRUE(contains(e3, "attribute 'keepdims'")) << e3;
}

// ---- 12: bool bytes --------------------------------------------------------------------------------

TEST(Hostile, D12BoolPayloadsAreReadAsBytes) {
  // Adopted memory breaking adopt's precondition (bytes 0 and 1 only): what tseq itself reads
  // is still defined (checked by the UBSan build), any nonzero byte reads as true.
  alignas(64) static unsigned char bytes[4] = {0, 1, 2, 255};
  const Tensor b = Tensor::adopt(DataType::Bool, Shape{4}, bytes, Device{}, nullptr, nullptr);
  EXPECT_EQ(to_string(b), "bool[4]{false, true, true, true}");
  const Tensor ones = Tensor::from_values<bool>(Shape{4}, {false, true, true, true});
  EXPECT_TRUE(equal(b, ones));
  Session s(from_proto(hostile::not_model(), "not.onnx"));
  const Tensor y = s.run(std::vector<Value>{Value(b)})[0].tensor();
  const auto* out = static_cast<const unsigned char*>(y.data());
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[2], 0);
  EXPECT_EQ(out[3], 0);
}

}  // namespace
