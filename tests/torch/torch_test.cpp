// tseq::torch (tseq/torch.hpp): at::Tensor <-> tseq::Tensor without copying, lifetimes, errors,
// and the TorchScript operators called through the dispatcher, as a C++ runtime would.

// First: clang 14 in C++20 rejects torch 1.13's ATen/core/List.h (std::vector of an incomplete
// c10::IValue) unless ivalue.h, which tseq/torch.hpp includes, comes before it.
#include "tseq/torch.hpp"
// (the rest)
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "tseq/error.hpp"
#include "tseq/ops.hpp"

namespace {

using tseq::DataType;
using tseq::TensorSequence;
namespace tt = tseq::torch;

// A float tensor over `n` floats whose deleter counts its calls.
at::Tensor counted(std::vector<float>& memory, std::atomic<int>& released) {
  return at::from_blob(
      memory.data(), {static_cast<std::int64_t>(memory.size())}, [&released](void*) { ++released; },
      at::TensorOptions().dtype(at::kFloat));
}

// Calls torch.ops.tseq.<name> through the dispatcher (boxed, as the TorchScript interpreter does).
torch::jit::Stack call(const char* name, torch::jit::Stack stack) {
  const auto op = c10::Dispatcher::singleton().findSchemaOrThrow((std::string("tseq::") + name).c_str(), "");
  op.callBoxed(&stack);
  return stack;
}

TEST(TorchConvert, RoundTripIsTheSameTensorAndMemory) {
  const at::Tensor x = at::arange(12, at::kFloat).reshape({3, 4});
  const tseq::Tensor t = tt::from_torch(x);
  EXPECT_EQ(t.data(), x.data_ptr());
  EXPECT_EQ(t.dtype(), DataType::Float);
  EXPECT_EQ(t.shape(), (tseq::Shape{3, 4}));
  EXPECT_TRUE(t.is_adopted());
  const at::Tensor y = tt::to_torch(t);
  EXPECT_EQ(y.unsafeGetTensorImpl(), x.unsafeGetTensorImpl());  // the original at::Tensor itself
}

TEST(TorchConvert, EveryMappedTypeRoundTrips) {
  for (const auto st : {at::kFloat, at::kDouble, at::kHalf, at::kByte, at::kChar, at::kShort, at::kInt, at::kLong,
                        at::kBool, at::kComplexFloat, at::kComplexDouble}) {
    const at::Tensor x = at::zeros({2, 3}, at::TensorOptions().dtype(st));
    const tseq::Tensor t = tt::from_torch(x);
    EXPECT_EQ(tt::torch_dtype(t.dtype()), st);
    EXPECT_EQ(t.data(), x.data_ptr());
    // A tseq-made copy of it (not from torch) goes back without copying either.
    const tseq::Tensor own = tseq::Tensor(t).into_buffer().freeze();
    const at::Tensor back = tt::to_torch(own);
    EXPECT_EQ(back.data_ptr(), own.data()) << c10::toString(st);
    EXPECT_EQ(back.scalar_type(), st);
    EXPECT_EQ(back.sizes(), x.sizes());
  }
}

TEST(TorchConvert, TorchStorageLivesUntilTheLastTseqHandleGoes) {
  std::vector<float> memory(1000, 1.5f);
  std::atomic<int> released{0};
  TensorSequence s(DataType::Float);
  {
    at::Tensor x = counted(memory, released);
    s = s.push_back(tt::from_torch(x));
  }  // the caller's at::Tensor is gone; the sequence still holds it
  EXPECT_EQ(released, 0);
  TensorSequence copy = s.push_back(s[0]);
  s = TensorSequence(DataType::Float);
  EXPECT_EQ(released, 0);
  EXPECT_EQ(copy[1].values<float>()[999], 1.5f);
  copy = TensorSequence(DataType::Float);
  EXPECT_EQ(released, 1);  // exactly once
}

TEST(TorchConvert, TseqPayloadLivesUntilTorchDropsIt) {
  at::Tensor y;
  {
    const tseq::Tensor t = tseq::Tensor::from_values<std::int64_t>({2, 2}, {1, 2, 3, 4});
    y = tt::to_torch(t);
    EXPECT_EQ(y.data_ptr(), t.data());
  }
  EXPECT_EQ(y.sum().item<std::int64_t>(), 10);         // the deleter's handle keeps the payload
  EXPECT_FALSE(tt::to_torch(tseq::Tensor()).numel());  // the default tensor: float [0]
}

TEST(TorchConvert, ResizeWhileHeldIsRefusedAndSetKeepsTseqsView) {
  at::Tensor x = at::ones({4});
  const tseq::Tensor t = tt::from_torch(x);
  EXPECT_THROW(x.resize_({1 << 20}), c10::Error);  // the storage is not resizable while shared
  x.set_(at::zeros({8}));                          // x now views other memory ...
  EXPECT_EQ(t.values<float>()[3], 1.0f);           // ... tseq's tensor still the old
  const at::Tensor back = tt::to_torch(t);
  EXPECT_NE(back.unsafeGetTensorImpl(), x.unsafeGetTensorImpl());  // not the changed tensor
  EXPECT_EQ(back.data_ptr(), t.data());
}

TEST(TorchConvert, BadTensorsAreClearErrors) {
  const auto message = [](auto&& f) {
    try {
      f();
    } catch (const tseq::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THROW((void)tt::from_torch(at::Tensor()), tseq::TypeError);
  const std::string strided = message([] { (void)tt::from_torch(at::ones({2, 3}).t()); });
  EXPECT_NE(strided.find("strides [1, 3]"), std::string::npos) << strided;
  EXPECT_NE(strided.find("contiguous()"), std::string::npos) << strided;
  EXPECT_THROW((void)tt::from_torch(at::ones({2, 3}).t()), tseq::ShapeError);
  EXPECT_THROW((void)tt::from_torch(at::ones({2}, at::kBFloat16)), tseq::TypeError);
  EXPECT_THROW((void)tt::from_torch(at::ones({2, 2}).to_sparse()), tseq::TypeError);
  EXPECT_THROW((void)tt::from_torch(at::ones({2})._neg_view()), tseq::TypeError);
  const at::Tensor bad_bool = at::full({3}, 2, at::kByte).view(at::kBool);
  const std::string b = message([&] { (void)tt::from_torch(bad_bool); });
  EXPECT_NE(b.find("bool element 0 holds the byte 2"), std::string::npos) << b;
  for (const DataType d : {DataType::Uint16, DataType::Uint32, DataType::Uint64}) {
    EXPECT_THROW((void)tt::to_torch(tseq::TensorBuffer(d, tseq::Shape{2}).freeze()), tseq::TypeError);
  }
  EXPECT_THROW((void)tt::to_torch(tseq::Tensor::from_values<std::string>({1}, {"a"})), tseq::TypeError);
  EXPECT_THROW((void)tt::device_from_torch(c10::Device(c10::DeviceType::Meta)), tseq::DeviceError);
  EXPECT_EQ(tt::device_from_torch(c10::Device(c10::DeviceType::CUDA, 3)), tseq::Device::cuda(3));
}

TEST(TorchOps, DispatcherCallsFollowOnnxSemantics) {
  tt::register_library();
  auto s = call("sequence_empty", {c10::IValue()});
  s = call("sequence_insert", {s[0], at::full({1}, 1.0), c10::IValue()});
  s = call("sequence_insert", {s[0], at::full({1}, 0.0), c10::IValue(std::int64_t{0})});
  s = call("sequence_insert", {s[0], at::full({1}, 2.0), c10::IValue(std::int64_t{-1})});  // before the last
  const TensorSequence v = tt::from_ivalue(s[0]);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].values<float>()[0], 0.0f);
  EXPECT_EQ(v[1].values<float>()[0], 2.0f);
  EXPECT_EQ(v[2].values<float>()[0], 1.0f);
  const auto at = call("sequence_at", {s[0], c10::IValue(std::int64_t{-3})});
  EXPECT_EQ(at[0].toTensor().item<float>(), 0.0f);
  const auto erased = call("sequence_erase", {s[0], c10::IValue()});
  EXPECT_EQ(call("sequence_length", {erased[0]})[0].toInt(), 2);
  EXPECT_EQ(tt::from_ivalue(s[0]).size(), 3u);  // the input is unchanged
  try {
    (void)call("sequence_erase", {s[0], c10::IValue(std::int64_t{3})});
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("position 3 is out of range [-3, 2]"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)tt::from_ivalue(c10::IValue(std::int64_t{1})), tseq::TypeError);
}

const tt::ScriptSequence* holder(const c10::IValue& v) { return v.toCustomClass<tt::ScriptSequence>().get(); }

TEST(TorchOps, UpdatesEditInPlaceOnlyWhenGivenTheOnlyReference) {
  torch::jit::Stack s{tt::to_ivalue(tseq::ops::sequence_empty())};
  const tt::ScriptSequence* first = holder(s[0]);
  for (int i = 0; i < 100; ++i) {
    torch::jit::Stack args;  // not an initializer list, which would copy the IValue
    args.push_back(std::move(s[0]));
    args.emplace_back(at::full({1}, float(i)));
    args.emplace_back();
    s = call("sequence_insert", std::move(args));
  }
  EXPECT_EQ(holder(s[0]), first);  // the only reference each time: the same object, edited
  EXPECT_EQ(tt::from_ivalue(s[0]).size(), 100u);

  const c10::IValue kept = s[0];  // a second reference: the next update must not touch it
  const auto r = call("sequence_erase", {s[0], c10::IValue(std::int64_t{0})});
  EXPECT_NE(holder(r[0]), holder(kept));
  EXPECT_EQ(tt::from_ivalue(kept).size(), 100u);
  EXPECT_EQ(tt::from_ivalue(r[0]).size(), 99u);
  EXPECT_EQ(tt::from_ivalue(r[0])[0].values<float>()[0], 1.0f);

  // A failing in-place update leaves the sequence as it was.
  const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("tseq::sequence_insert", "");
  const c10::intrusive_ptr<tt::ScriptSequence> alone = tt::to_script(tt::from_ivalue(kept));
  torch::jit::Stack u;
  u.emplace_back(alone);  // the stack's object and `alone`: still two references to the holder
  u.emplace_back(at::ones({1}, at::kLong));
  u.emplace_back();
  EXPECT_THROW(op.callBoxed(&u), std::exception);
  EXPECT_EQ(alone->value().size(), 100u);
}

TEST(TorchOps, SplitAndConcatRoundTrip) {
  const at::Tensor x = at::arange(24, at::kFloat).reshape({4, 6});
  const auto pieces =
      call("split_to_sequence", {x, at::tensor({2, 4}, at::kLong), c10::IValue(std::int64_t{1}), c10::IValue(true)});
  const TensorSequence v = tt::from_ivalue(pieces[0]);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].shape(), (tseq::Shape{4, 4}));
  const auto joined = call("concat_from_sequence", {pieces[0], c10::IValue(std::int64_t{1}), c10::IValue(false)});
  EXPECT_TRUE(at::equal(joined[0].toTensor(), x));
  const auto equal = call("split_to_sequence", {x, c10::IValue(), c10::IValue(std::int64_t{0}), c10::IValue(false)});
  const auto stacked = call("concat_from_sequence", {equal[0], c10::IValue(std::int64_t{0}), c10::IValue(true)});
  EXPECT_TRUE(at::equal(stacked[0].toTensor(), x));  // 4 rows of [6], keepdims=False, stacked again
}

TEST(TorchOps, ThreadsShareOneSequence) {
  std::vector<at::Tensor> tensors;
  for (int i = 0; i < 64; ++i) tensors.push_back(at::full({2}, float(i)));
  const c10::IValue shared = call("sequence_construct", {c10::IValue(tensors)})[0];
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (unsigned k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      std::mt19937 rng(k);
      for (int i = 0; i < 300; ++i) {
        const auto pos = static_cast<std::int64_t>(rng() % 64);
        const auto e = call("sequence_erase", {shared, c10::IValue(pos)});
        const auto back = call("sequence_insert", {e[0], tensors[static_cast<std::size_t>(pos)], c10::IValue(pos)});
        const TensorSequence v = tt::from_ivalue(back[0]);
        for (std::size_t j = 0; j < v.size(); ++j) {
          if (v[j].values<float>()[0] != float(j)) ++failures;
        }
        if (tt::to_torch(v[static_cast<std::size_t>(pos)]).unsafeGetTensorImpl() !=
            tensors[static_cast<std::size_t>(pos)].unsafeGetTensorImpl()) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(tt::from_ivalue(shared).size(), 64u);
}

}  // namespace
