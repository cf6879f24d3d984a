// tseq::onnx's API as a user of tseq/onnx/executor.hpp writes it. This file includes no
// protobuf header (its models come as bytes from api_models.cpp), so `using namespace tseq;`
// followed by `onnx::Session` must name tseq::onnx::Session; it would not compile if a tseq
// header it includes declared protobuf's namespace ::onnx. Also: Session::run's call shapes,
// `run({})` among them, and stopping a run through a std::stop_token.

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <memory_resource>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "onnx/api_models.hpp"
#include "support/error_of.hpp"
#include "tseq/onnx/executor.hpp"
#include "tseq/tensor.hpp"

using namespace tseq;  // at file scope, as a user's program would have it

static_assert(std::is_same_v<onnx::Session, tseq::onnx::Session>);
static_assert(std::is_same_v<onnx::Model, tseq::onnx::Model>);

// Every call shape the documentation shows compiles, unambiguously.
static_assert(requires(onnx::Session & s, onnx::Value v, Tensor t, std::vector<onnx::Value> vs,
                       std::vector<std::pair<std::string, onnx::Value>> named) {
  s.run();
  s.run({});
  s.run({v});
  s.run({v, v});
  s.run({t, t});
  s.run({{"a", v}});
  s.run({{"a", t}, {"b", t}});
  s.run(std::move(vs));
  s.run(std::move(named));
});

namespace {

using tseq_test::error_of;

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

onnx::Model parse(const std::string& bytes, std::string_view name) {
  return onnx::Model::parse(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), name);
}

std::vector<float> floats(const onnx::Value& v) {
  const auto got = v.tensor().values<float>();
  return {got.begin(), got.end()};
}

TEST(OnnxApi, UsingNamespaceTseqThenOnnxNamesTseqOnnx) {
  const onnx::Model model = parse(tseq_test::api::constant_model(), "constant.onnx");
  EXPECT_TRUE(model.inputs().empty());
  onnx::SessionOptions options;
  options.max_loop_iterations = 10;
  onnx::Session session(model, options);
  const std::vector<onnx::Value> out = session.run();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().value<float>(0), 7.f);
}

TEST(OnnxApi, RunWithEmptyBracesFeedsNothing) {
  // No inputs: run({}) runs the graph, as run() does.
  onnx::Session constant(parse(tseq_test::api::constant_model(), "constant.onnx"));
  EXPECT_EQ(constant.run({})[0].tensor().value<float>(0), 7.f);
  EXPECT_EQ(constant.run()[0].tensor().value<float>(0), 7.f);
  // An input with an initializer: run({}) takes the initializer; a feed replaces it, given by
  // position or by name.
  onnx::Session defaulted(parse(tseq_test::api::defaulted_model(), "defaulted.onnx"));
  EXPECT_EQ(floats(defaulted.run({})[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(floats(defaulted.run()[0]), (std::vector<float>{1, 2}));
  const Tensor x = Tensor::from_values<float>(Shape{3}, {5, 6, 7});
  EXPECT_EQ(floats(defaulted.run({x})[0]), (std::vector<float>{5, 6, 7}));
  EXPECT_EQ(floats(defaulted.run({{"x", x}})[0]), (std::vector<float>{5, 6, 7}));
  // Inputs without one: run({}) and run() name the first input not given.
  onnx::Session add(parse(tseq_test::api::add_model(), "add.onnx"));
  const std::string expected = "add.onnx: input 'a' (tensor(float)) was not given";
  EXPECT_EQ(error_of([&] { (void)add.run({}); }), expected);
  EXPECT_EQ(error_of([&] { (void)add.run(); }), expected);
}

TEST(OnnxApi, RunByPositionAndByName) {
  onnx::Session add(parse(tseq_test::api::add_model(), "add.onnx"));
  const Tensor a = Tensor::from_values<float>(Shape{2}, {1, 2});
  const Tensor b = Tensor::from_values<float>(Shape{2}, {10, 20});
  EXPECT_EQ(floats(add.run({a, b})[0]), (std::vector<float>{11, 22}));
  EXPECT_EQ(floats(add.run({onnx::Value(a), onnx::Value(b)})[0]), (std::vector<float>{11, 22}));
  EXPECT_EQ(floats(add.run({{"b", b}, {"a", a}})[0]), (std::vector<float>{11, 22}));
  EXPECT_EQ(floats(add.run(std::vector<onnx::Value>{a, b})[0]), (std::vector<float>{11, 22}));
  // Fewer positional values than inputs: the missing one is named.
  EXPECT_EQ(error_of([&] { (void)add.run({a}); }), "add.onnx: input 'b' (tensor(float)) was not given");
  EXPECT_EQ(error_of([&] { (void)add.run({a, b, a}); }), "add.onnx: 3 inputs given, the graph has 2");
  EXPECT_EQ(error_of([&] { (void)add.run({{"c", a}}); }), "add.onnx: 'c' is not an input of the graph");
}

TEST(OnnxApi, StopSourceStopsALongRun) {
  std::stop_source stop;
  onnx::SessionOptions options;
  options.stop_token = stop.get_token();
  options.time_limit = std::chrono::minutes(1);  // a backstop: a token not checked fails, not hangs
  onnx::Session session(parse(tseq_test::api::endless_model(), "endless.onnx"), options);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop.request_stop();
  });
  const auto start = std::chrono::steady_clock::now();
  const std::string e = error_of<onnx::RunStopped>([&] { (void)session.run({Tensor::scalar(1.f)}); });
  const auto took = std::chrono::steady_clock::now() - start;
  stopper.join();
  // Stopped at a loop iteration or a body node, inside node 0.
  EXPECT_TRUE(contains(e, "endless.onnx: graph 'endless': node 0 (Loop): ")) << e;
  EXPECT_TRUE(contains(e, "the run was cancelled (SessionOptions::stop_token)")) << e;
  EXPECT_LT(took, std::chrono::seconds(10));
  // The request stays: the session's next run stops before its first node.
  EXPECT_EQ(error_of<onnx::RunStopped>([&] { (void)session.run({Tensor::scalar(1.f)}); }),
            "endless.onnx: graph 'endless': node 0 (Loop): the run was cancelled (SessionOptions::stop_token)");
  // A token whose stop was never requested stops nothing: a run ends, or meets its time limit.
  std::stop_source idle;
  onnx::SessionOptions quiet;
  quiet.stop_token = idle.get_token();
  onnx::Session constant(parse(tseq_test::api::constant_model(), "constant.onnx"), quiet);
  EXPECT_EQ(constant.run()[0].tensor().value<float>(0), 7.f);
  quiet.time_limit = std::chrono::milliseconds(20);
  onnx::Session timed(parse(tseq_test::api::endless_model(), "endless.onnx"), quiet);
  EXPECT_TRUE(contains(error_of<onnx::RunStopped>([&] { (void)timed.run({Tensor::scalar(1.f)}); }),
                       "the run took longer than its time limit of 20 ms"));
}

// Requests a stop when a block of at least `min_bytes` is allocated: after the check between
// nodes, so that only the kernel's own check inside its element loop can see it.
class stop_on_allocation : public std::pmr::memory_resource {
 public:
  stop_on_allocation(std::stop_source& stop, std::size_t min_bytes) : stop_(stop), min_bytes_(min_bytes) {}

 private:
  void* do_allocate(std::size_t n, std::size_t a) override {
    if (n >= min_bytes_) stop_.request_stop();
    return std::pmr::new_delete_resource()->allocate(n, a);
  }
  void do_deallocate(void* p, std::size_t n, std::size_t a) override {
    std::pmr::new_delete_resource()->deallocate(p, n, a);
  }
  [[nodiscard]] bool do_is_equal(const memory_resource& o) const noexcept override { return this == &o; }
  std::stop_source& stop_;
  std::size_t min_bytes_;
};

TEST(OnnxApi, KernelsCheckTheStopTokenInsideTheirLoop) {
  std::vector<std::int64_t> axes;
  for (std::int64_t a = 0; a < 40; ++a) axes.push_back(a);
  const std::size_t n = std::size_t{1} << 18;
  const Tensor x = TensorBuffer(DataType::Float, Shape{static_cast<std::int64_t>(n)}).freeze();
  for (const bool add : {false, true}) {
    std::stop_source stop;
    stop_on_allocation resource(stop, n * sizeof(float));
    onnx::SessionOptions options;
    options.stop_token = stop.get_token();
    options.memory_resource = &resource;
    onnx::Session session(parse(add ? tseq_test::api::add_model() : tseq_test::api::unsqueeze_model(axes), "k.onnx"),
                          options);
    const std::string e = error_of<onnx::RunStopped>([&] {
      if (add) {
        (void)session.run({x, x});
      } else {
        (void)session.run({x});
      }
    });
    EXPECT_TRUE(contains(e, add ? "(Add): Add: " : "(Unsqueeze): Unsqueeze: ")) << e;
    EXPECT_TRUE(contains(e, "the run was cancelled (SessionOptions::stop_token)")) << e;
  }
}

}  // namespace
