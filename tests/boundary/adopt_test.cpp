// The runtime boundary: adopted payloads, devices, into_buffer and memory resources.

#include <gtest/gtest.h>

#include <atomic>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <memory_resource>
#include <new>
#include <string>
#include <vector>

#include "support/alloc_hook.hpp"
#include "support/counting_resource.hpp"
#include "support/error_of.hpp"
#include "tseq/eigen.hpp"
#include "tseq/ops.hpp"

namespace {

using tseq::Access;
using tseq::DataType;
using tseq::Device;
using tseq::DeviceType;
using tseq::Shape;
using tseq::Tensor;
using tseq::TensorSequence;
using tseq_test::count_allocations;
using tseq_test::CountingOwner;
using tseq_test::CountingResource;
using tseq_test::error_of;

// 64-byte aligned host memory the tests adopt at various offsets.
struct alignas(64) Block {
  std::byte bytes[1024] = {};
  template <class T>
  T* at(std::size_t byte_offset) noexcept {
    return reinterpret_cast<T*>(bytes + byte_offset);
  }
};

const Device kGpu = Device::cuda(0);  // host memory labelled as a device: no GPU needed

// ---- adopting ----------------------------------------------------------------------------------

TEST(Adopt, SharesTheCallersMemoryWithOneAllocation) {
  std::vector<float> buf(1024, 1.5f);
  std::atomic<int> released{0};
  const count_allocations c;
  const Tensor t = Tensor::adopt(DataType::Float, Shape{32, 32}, buf.data(), Device::cpu(), CountingOwner(&released));
  EXPECT_EQ(c.delta().allocations, 1);
  EXPECT_LT(c.delta().bytes, 512u);  // a header, not a 4 KiB payload
  EXPECT_EQ(t.data(), buf.data());
  EXPECT_EQ(t.values<float>().data(), buf.data());
  EXPECT_EQ(t.size(), 1024u);
  EXPECT_TRUE(t.is_adopted());
  EXPECT_EQ(t.memory_resource(), nullptr);
  EXPECT_EQ(t.device(), Device::cpu());
  EXPECT_EQ(released, 0);
}

TEST(Adopt, OwnerIsReleasedExactlyOnceWhenTheLastHandleGoes) {
  std::vector<float> buf(4, 2.0f);
  std::atomic<int> released{0};
  {
    Tensor t = Tensor::adopt(DataType::Float, Shape{4}, buf.data(), Device::cpu(), CountingOwner(&released));
    const TensorSequence s = tseq::ops::sequence_construct(std::vector<Tensor>{t, t, t});
    const TensorSequence e = tseq::ops::sequence_erase(s, 0);
    const Tensor back = tseq::ops::sequence_at(e, -1);
    EXPECT_EQ(back.data(), buf.data());
    EXPECT_EQ(t.use_count(), 7u);  // t, back, three in s, two in e's copied leaf
    t = Tensor();
    EXPECT_EQ(released, 0);
  }
  EXPECT_EQ(released, 1);
}

TEST(Adopt, SharedPtrOwner) {
  auto* raw = new float[6]{1, 2, 3, 4, 5, 6};
  std::atomic<int> freed{0};
  std::shared_ptr<void> owner(raw, [&](void* p) {
    delete[] static_cast<float*>(p);
    ++freed;
  });
  const std::weak_ptr<void> watch = owner;
  {
    const Tensor t = Tensor::adopt(DataType::Float, Shape{2, 3}, raw, Device::cpu(), std::move(owner));
    EXPECT_EQ((tseq::eigen_tensor<float, 2>(t)(1, 2)), 6.0f);
    EXPECT_FALSE(watch.expired());
  }
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(freed, 1);
}

// A raw pointer (or null) owns nothing: such owners do not compile.
template <class O>
constexpr bool can_adopt_with = requires(O o) {
  (void)Tensor::adopt(DataType::Float, Shape{1}, nullptr, Device{}, std::move(o));
};
static_assert(!can_adopt_with<float*>);
static_assert(!can_adopt_with<std::nullptr_t>);
static_assert(can_adopt_with<std::shared_ptr<void>>);
static_assert(can_adopt_with<CountingOwner>);

TEST(Adopt, TheOwnerCanBeHadBack) {
  auto buf = std::make_shared<std::vector<float>>(3, 1.f);
  const Tensor t = Tensor::adopt(DataType::Float, Shape{3}, buf->data(), Device::cpu(), std::shared_ptr<void>(buf));
  const auto* owner = t.owner<std::shared_ptr<void>>();
  ASSERT_NE(owner, nullptr);
  EXPECT_EQ(owner->get(), buf.get());
  EXPECT_EQ(t.owner<std::shared_ptr<float>>(), nullptr);  // another type
  EXPECT_EQ(Tensor::scalar(1.f).owner<std::shared_ptr<void>>(), nullptr);
  EXPECT_EQ(Tensor().owner<std::shared_ptr<void>>(), nullptr);
}

TEST(Adopt, AnLvalueOwnerIsCopied) {
  auto owner = std::make_shared<std::vector<std::int32_t>>(std::vector<std::int32_t>{7, 8});
  {
    const Tensor t = Tensor::adopt(DataType::Int32, Shape{2}, owner->data(), Device::cpu(), owner);
    EXPECT_EQ(owner.use_count(), 2);
    EXPECT_EQ(t.value<std::int32_t>(1), 8);
  }
  EXPECT_EQ(owner.use_count(), 1);
}

struct CRelease {
  int calls = 0;
  void* last = nullptr;
};
void count_release(void* context) { ++static_cast<CRelease*>(context)->calls; }

TEST(Adopt, CCallbackIsCalledOnceWithItsContext) {
  double values[3] = {1, 2, 3};
  CRelease r;
  {
    const Tensor t = Tensor::adopt(DataType::Double, Shape{3}, values, Device::cpu(), &count_release, &r);
    const Tensor u = t;
    EXPECT_EQ(r.calls, 0);
  }
  EXPECT_EQ(r.calls, 1);
  // A null callback: nothing to release.
  const Tensor t = Tensor::adopt(DataType::Double, Shape{3}, values, Device::cpu(), nullptr, nullptr);
  EXPECT_EQ(t.value<double>(2), 3.0);
}

TEST(Adopt, PayloadsNotAlignedTo64BytesGiveCorrectViews) {
  Block b;
  float* p = b.at<float>(4);  // 4 bytes past a 64-byte boundary
  for (int i = 0; i < 12; ++i) p[i] = static_cast<float>(i);
  const Tensor t = Tensor::adopt(DataType::Float, Shape{3, 4}, p, Device::cpu(), nullptr, nullptr);
  EXPECT_NE(reinterpret_cast<std::uintptr_t>(t.data()) % 64, 0u);
  EXPECT_EQ(t.values<float>()[5], 5.0f);
  EXPECT_EQ(tseq::eigen_array<float>(t).sum(), 66.0f);
  EXPECT_EQ((tseq::eigen_tensor<float, 2>(t)(2, 3)), 11.0f);
  // Operators that read the payload: split along axis 1, then concatenate back.
  const TensorSequence parts = tseq::ops::split_to_sequence(t, Tensor::scalar<std::int64_t>(2), 1);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_TRUE(tseq::equal(parts[1], Tensor::from_values<float>(Shape{3, 2}, {2, 3, 6, 7, 10, 11})));
  EXPECT_TRUE(tseq::equal(tseq::ops::concat_from_sequence(parts, 1), t));
  // Element types with 8-byte alignment at an 8-byte (not 64-byte) offset.
  auto* c = b.at<std::complex<double>>(520);
  c[0] = {1, -1};
  const Tensor z = Tensor::adopt(DataType::Complex128, Shape{1}, c, Device::cpu(), nullptr, nullptr);
  EXPECT_EQ(z.value<std::complex<double>>(0), std::complex<double>(1, -1));
}

TEST(Adopt, EveryElementTypeButString) {
  Block b;
  for (DataType d : tseq::all_dtypes) {
    if (d == DataType::String) continue;
    const Tensor t = Tensor::adopt(d, Shape{2, 3}, b.bytes, Device::cpu(), nullptr, nullptr);
    EXPECT_EQ(t.dtype(), d);
    EXPECT_EQ(t.size(), 6u);
    EXPECT_EQ(t.raw_data().data(), b.bytes);
    EXPECT_EQ(t.raw_data().size(), 6 * tseq::dtype_size(d));
  }
}

TEST(Adopt, RejectsBadInputAndLeavesTheOwnerWithTheCaller) {
  Block b;
  std::atomic<int> released{0};
  CountingOwner owner(&released);
  struct Case {
    DataType dtype;
    Shape shape;
    const void* data;
    Device device;
    std::string message;
  };
  const std::vector<Case> cases = {
      {DataType::String, Shape{1}, b.bytes, Device::cpu(),
       "Tensor::adopt: string tensors cannot be adopted (their elements are std::string objects that tseq must "
       "own); build them with Tensor::from_values"},
      {static_cast<DataType>(16), Shape{1}, b.bytes, Device::cpu(),
       "Tensor::adopt: element type code 16 is not a sequence element type"},
      {DataType::Float, Shape{2, -1}, b.bytes, Device::cpu(), "Tensor::adopt: shape [2, -1] has a negative dimension"},
      {DataType::Float, Shape{3}, nullptr, Device::cpu(), "Tensor::adopt: data is null but shape [3] has 3 elements"},
      {DataType::Float, Shape{3}, b.bytes + 2, Device::cpu(), "is not aligned to 4 bytes, as float elements need"},
      {DataType::Float, Shape{3}, b.bytes, Device{static_cast<DeviceType>(5), 0},
       "Tensor::adopt: device device_type(5):0 is not a valid device"},
      {DataType::Float, Shape{3}, b.bytes, Device{DeviceType::Cuda, -1}, "Tensor::adopt: device cuda:-1"},
  };
  for (const Case& c : cases) {
    const std::string m = error_of([&] { (void)Tensor::adopt(c.dtype, c.shape, c.data, c.device, std::move(owner)); });
    EXPECT_NE(m.find(c.message), std::string::npos) << m;
    EXPECT_EQ(owner.releases, &released) << "the owner was taken by a failed adopt";
  }
  EXPECT_THROW((void)Tensor::adopt(DataType::String, Shape{1}, b.bytes, Device::cpu(), std::move(owner)),
               tseq::TypeError);
  EXPECT_THROW((void)Tensor::adopt(DataType::Float, Shape{-1}, b.bytes, Device::cpu(), std::move(owner)),
               tseq::ShapeError);
  // C form: the callback is not called when adopt throws.
  CRelease r;
  EXPECT_THROW((void)Tensor::adopt(DataType::Float, Shape{3}, nullptr, Device::cpu(), &count_release, &r), tseq::Error);
  EXPECT_EQ(r.calls, 0);
  EXPECT_EQ(released, 0);
  // Null data is fine without elements; device memory need not be aligned (it may be a handle).
  EXPECT_EQ(Tensor::adopt(DataType::Float, Shape{0, 4}, nullptr, Device::cpu(), nullptr, nullptr).size(), 0u);
  EXPECT_EQ(Tensor::adopt(DataType::Float, Shape{3}, b.bytes + 2, kGpu, nullptr, nullptr).data(), b.bytes + 2);
}

TEST(Adopt, AllocationFailureLeavesTheOwnerWithTheCaller) {
  float x[2] = {1, 2};
  std::atomic<int> released{0};
  CountingOwner owner(&released);
  CRelease r;
  {
    const tseq_test::fail_allocation_at f(1);
    EXPECT_THROW((void)Tensor::adopt(DataType::Float, Shape{2}, x, Device::cpu(), std::move(owner)), std::bad_alloc);
    EXPECT_TRUE(f.fired());
  }
  {
    const tseq_test::fail_allocation_at f(1);
    EXPECT_THROW((void)Tensor::adopt(DataType::Float, Shape{2}, x, Device::cpu(), &count_release, &r), std::bad_alloc);
  }
  EXPECT_EQ(owner.releases, &released);
  EXPECT_EQ(released, 0);
  EXPECT_EQ(r.calls, 0);
}

// ---- devices ----------------------------------------------------------------------------------

TEST(Device, NamesAndHostReadability) {
  EXPECT_EQ(tseq::to_string(Device::cpu()), "cpu:0");
  EXPECT_EQ(tseq::to_string(Device::cuda(1)), "cuda:1");
  EXPECT_EQ(tseq::to_string(Device{DeviceType::RocmHost, 2}), "rocm_host:2");
  EXPECT_EQ(tseq::device_type_name(static_cast<DeviceType>(99)), "device_type(99)");
  EXPECT_TRUE(Device::cpu().is_host_readable());
  EXPECT_TRUE((Device{DeviceType::CudaHost, 0}.is_host_readable()));
  EXPECT_TRUE((Device{DeviceType::RocmHost, 0}.is_host_readable()));
  EXPECT_FALSE(Device::cuda().is_host_readable());
  EXPECT_FALSE((Device{DeviceType::CudaManaged, 0}.is_host_readable()));
  EXPECT_FALSE((Device{DeviceType::OpenCl, 0}.is_host_readable()));
  EXPECT_EQ(Tensor().device(), Device::cpu());
  EXPECT_EQ(Tensor::scalar(1.0f).device(), Device::cpu());
}

Tensor on_gpu(float* p, std::int64_t n) { return Tensor::adopt(DataType::Float, Shape{n}, p, kGpu, nullptr, nullptr); }

TEST(Device, HandleOnlyOperationsWorkOnAnyDevice) {
  Block b;
  std::vector<Tensor> ts;
  for (std::size_t i = 0; i < 8; ++i) ts.push_back(on_gpu(b.at<float>(16 * i), 4));
  namespace ops = tseq::ops;
  TensorSequence s = ops::sequence_construct(ts);
  s = ops::sequence_insert(s, ts[3], Tensor::scalar<std::int64_t>(0));
  s = ops::sequence_erase(std::move(s), Tensor::scalar<std::int64_t>(-1));
  s = s.push_back(ts[7]).insert(2, ts[1]).erase(0);
  EXPECT_EQ(ops::sequence_length(s).value<std::int64_t>(0), 9);
  const Tensor at = ops::sequence_at(s, 1);
  EXPECT_EQ(at.device(), kGpu);
  EXPECT_TRUE(at.identical_to(ts[1]));
  std::size_t i = 0;
  const std::vector<std::size_t> expected = {0, 1, 1, 2, 3, 4, 5, 6, 7};
  for (const Tensor& t : s) EXPECT_EQ(t.data(), ts[expected[i++]].data());
  tseq::rrb_vector<Tensor> v(ts.begin(), ts.end());
  v = v.erase(0).take(3);
  EXPECT_EQ(v[0].data(), ts[1].data());
}

TEST(Device, PayloadReadsThrowNamingTheOperationAndTheDevice) {
  Block b;
  const Tensor g = on_gpu(b.at<float>(0), 4);
  const Tensor h = Tensor::from_values<float>(Shape{4}, {1, 2, 3, 4});
  const std::string tail = " is on cuda:0; tseq reads only host memory";
  namespace ops = tseq::ops;
  const TensorSequence mixed = ops::sequence_construct(std::vector<Tensor>{h, g});
  const Tensor gpu_index = Tensor::adopt(DataType::Int64, Shape{}, b.at<std::int64_t>(512), kGpu, nullptr, nullptr);
  const std::vector<std::pair<std::function<void()>, std::string>> cases = {
      {[&] { (void)g.values<float>(); }, "Tensor::values: the tensor"},
      {[&] { (void)g.value<float>(0); }, "Tensor::values: the tensor"},
      {[&] { (void)tseq::eigen_array<float>(g); }, "tseq::eigen_array: the tensor"},
      {[&] { (void)tseq::eigen_tensor<float, 1>(g); }, "tseq::eigen_tensor: the tensor"},
      {[&] { (void)g.raw_data(); }, "Tensor::raw_data: the tensor"},
      {[&] { (void)tseq::equal(g, h); }, "equal: the first tensor"},
      {[&] { (void)tseq::equal(h, g); }, "equal: the second tensor"},
      {[&] { (void)tseq::to_string(g); }, "to_string: the tensor"},
      {[&] { (void)ops::split_to_sequence(g); }, "SplitToSequence: input"},
      {[&] { (void)ops::split_to_sequence(h, gpu_index); }, "SplitToSequence: split"},
      {[&] { (void)ops::concat_from_sequence(mixed, 0); }, "ConcatFromSequence: tensor 1 of the sequence"},
      {[&] { (void)ops::sequence_at(mixed, gpu_index); }, "SequenceAt: position"},
      {[&] { (void)ops::sequence_erase(mixed, gpu_index); }, "SequenceErase: position"},
      {[&] { (void)ops::sequence_insert(mixed, h, gpu_index); }, "SequenceInsert: position"},
      {[&] { (void)Tensor(g).into_buffer(); }, "Tensor::into_buffer: the tensor is on cuda:0 and read-only"},
  };
  for (const auto& [f, what] : cases) {
    try {
      f();
      ADD_FAILURE() << what << ": no exception";
    } catch (const tseq::DeviceError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind(what, 0), 0u) << m;
      if (what.find("into_buffer") == std::string::npos) {
        EXPECT_EQ(m, what + tail);
      }
    }
  }
  static_assert(std::is_base_of_v<tseq::Error, tseq::DeviceError>);
}

TEST(Device, OneSequenceMayMixDevicesAndPinnedHostMemoryIsReadable) {
  Block b;
  float* p = b.at<float>(0);
  for (int i = 0; i < 4; ++i) p[i] = static_cast<float>(i);
  const Tensor pinned = Tensor::adopt(DataType::Float, Shape{4}, p, Device{DeviceType::CudaHost, 0}, nullptr, nullptr);
  const Tensor host = Tensor::from_values<float>(Shape{2}, {9, 9});
  const Tensor gpu = on_gpu(b.at<float>(64), 4);
  namespace ops = tseq::ops;
  const TensorSequence s = ops::sequence_construct(std::vector<Tensor>{pinned, host, gpu});
  EXPECT_EQ(s[0].device().type, DeviceType::CudaHost);
  EXPECT_EQ(s[2].device(), kGpu);
  const Tensor joined = ops::concat_from_sequence(ops::sequence_erase(s, 2), 0);
  EXPECT_TRUE(tseq::equal(joined, Tensor::from_values<float>(Shape{6}, {0, 1, 2, 3, 9, 9})));
  EXPECT_EQ(joined.device(), Device::cpu());  // what tseq creates is on the host
  EXPECT_THROW((void)ops::concat_from_sequence(s, 0), tseq::DeviceError);
}

// ---- into_buffer ------------------------------------------------------------------------------

TEST(IntoBuffer, TheSoleOwnerGetsTheSameMemoryWithoutAllocating) {
  Tensor t = Tensor::from_values<float>(Shape{3}, {1, 2, 3});
  const void* p = t.data();
  const count_allocations c;
  tseq::TensorBuffer b = std::move(t).into_buffer();
  EXPECT_EQ(c.delta().allocations, 0);
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(t.use_count(), 0u);  // consumed
  b.values<float>()[0] = 10;
  const Tensor u = std::move(b).freeze();
  EXPECT_EQ(u.data(), p);
  EXPECT_EQ(u.value<float>(0), 10.0f);
}

TEST(IntoBuffer, ASharedTensorIsCopiedAndTheOtherHandleKeepsItsValues) {
  const Tensor keep = Tensor::from_values<std::int64_t>(Shape{2}, {5, 6});
  Tensor t = keep;
  tseq::TensorBuffer b = std::move(t).into_buffer();
  EXPECT_NE(b.data(), keep.data());
  b.values<std::int64_t>()[1] = 60;
  EXPECT_EQ(keep.value<std::int64_t>(1), 6);
  EXPECT_EQ(keep.use_count(), 1u);
  EXPECT_EQ(std::move(b).freeze().value<std::int64_t>(1), 60);
  // Strings are copied as strings.
  const Tensor s = Tensor::from_values<std::string>(Shape{2}, {"a", "bc"});
  tseq::TensorBuffer sb = Tensor(s).into_buffer();
  sb.values<std::string>()[1] += "d";
  EXPECT_EQ(s.value<std::string>(1), "bc");
  EXPECT_EQ(std::move(sb).freeze().value<std::string>(1), "bcd");
}

TEST(IntoBuffer, ReadOnlyAdoptedMemoryIsCopiedAndItsOwnerReleased) {
  float x[2] = {1, 2};
  std::atomic<int> released{0};
  Tensor t = Tensor::adopt(DataType::Float, Shape{2}, x, Device::cpu(), CountingOwner(&released));
  tseq::TensorBuffer b = std::move(t).into_buffer();
  EXPECT_NE(b.data(), static_cast<void*>(x));
  EXPECT_EQ(released, 1);  // the only handle went into the copy
  b.values<float>()[0] = 7;
  EXPECT_EQ(x[0], 1.0f);
}

TEST(IntoBuffer, WritableAdoptedMemoryIsHandedOutToTheSoleOwner) {
  float x[2] = {1, 2};
  std::atomic<int> released{0};
  Tensor t = Tensor::adopt(DataType::Float, Shape{2}, x, Device::cpu(), CountingOwner(&released), Access::writable);
  {
    Tensor shared = t;  // shared: copied
    tseq::TensorBuffer copy = std::move(shared).into_buffer();
    EXPECT_NE(copy.data(), static_cast<void*>(x));
  }
  tseq::TensorBuffer b = std::move(t).into_buffer();
  EXPECT_EQ(b.data(), static_cast<void*>(x));
  b.values<float>()[1] = 20;
  EXPECT_EQ(x[1], 20.0f);
  {
    const Tensor back = std::move(b).freeze();
    EXPECT_TRUE(back.is_adopted());
    EXPECT_EQ(released, 0);
  }
  EXPECT_EQ(released, 1);
  // A writable device tensor: handed out as well, but tseq will not write to it.
  float y[1] = {0};
  tseq::TensorBuffer d =
      Tensor::adopt(DataType::Float, Shape{1}, y, kGpu, nullptr, nullptr, Access::writable).into_buffer();
  EXPECT_EQ(d.data(), static_cast<void*>(y));
  EXPECT_EQ(d.device(), kGpu);
  EXPECT_THROW((void)d.values<float>(), tseq::DeviceError);
}

TEST(IntoBuffer, AFailedCopyLeavesTheTensor) {
  const Tensor keep = Tensor::from_values<float>(Shape{2}, {1, 2});
  Tensor t = keep;
  CountingResource r;
  r.fail_at(1);
  EXPECT_THROW((void)std::move(t).into_buffer(&r), std::bad_alloc);
  EXPECT_TRUE(t.identical_to(keep));
  EXPECT_EQ(Tensor().into_buffer().size(), 0u);
}

// ---- memory resources -------------------------------------------------------------------------

TEST(Allocator, EveryPayloadTseqCreatesComesFromTheGivenResourceAndGoesBack) {
  CountingResource r;
  {
    namespace ops = tseq::ops;
    const Tensor a = Tensor::from_values<float>(Shape{2, 3}, {1, 2, 3, 4, 5, 6}, &r);
    const Tensor s = Tensor::scalar<std::int64_t>(2, &r);
    tseq::TensorBuffer buf(DataType::String, Shape{2}, &r);
    buf.values<std::string>()[0] = std::string(100, 'x');  // the string's own heap block is not a payload
    const Tensor str = std::move(buf).freeze();
    EXPECT_EQ(r.allocations(), 3);
    const TensorSequence parts = ops::split_to_sequence(a, std::nullopt, 1, 0, &r);  // 3 pieces
    const Tensor joined = ops::concat_from_sequence(parts, 1, 1, &r);                // stacked back along axis 1
    const Tensor n = ops::sequence_length(parts, &r);
    const tseq::TensorBuffer copy = Tensor(a).into_buffer(&r);
    EXPECT_EQ(r.allocations(), 3 + 3 + 1 + 1 + 1);
    for (const Tensor* t : {&a, &s, &str, &joined, &n}) EXPECT_EQ(t->memory_resource(), &r);
    for (const Tensor& p : parts) EXPECT_EQ(p.memory_resource(), &r);
    EXPECT_TRUE(tseq::equal(joined, Tensor::from_values<float>(Shape{2, 3}, {1, 2, 3, 4, 5, 6})));
    EXPECT_GT(r.bytes_outstanding(), 0u);
  }
  EXPECT_EQ(r.bytes_outstanding(), 0u);
  EXPECT_EQ(r.deallocations(), r.allocations());
}

TEST(Allocator, WithoutAResourceTheDefaultIsUsed) {
  const Tensor t = Tensor::from_values<float>(Shape{1}, {1});
  EXPECT_EQ(t.memory_resource(), tseq::default_memory_resource());
  const TensorSequence parts = tseq::ops::split_to_sequence(t);
  EXPECT_EQ(parts[0].memory_resource(), tseq::default_memory_resource());
}

TEST(Allocator, AnArenaResourceWorks) {
  alignas(64) std::byte arena[8192];
  std::pmr::monotonic_buffer_resource mono(arena, sizeof arena, std::pmr::null_memory_resource());
  const Tensor t = Tensor::from_values<double>(Shape{4}, {1, 2, 3, 4}, &mono);
  EXPECT_GE(static_cast<const std::byte*>(t.data()), arena);
  EXPECT_LT(static_cast<const std::byte*>(t.data()), arena + sizeof arena);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data()) % 64, 0u);  // tseq's payloads stay 64-byte aligned
  // Exhausted: the resource's exception comes through, the input is untouched.
  EXPECT_THROW((void)tseq::TensorBuffer(DataType::Double, Shape{2000}, &mono), std::bad_alloc);
  EXPECT_EQ(t.value<double>(3), 4.0);
}

TEST(Allocator, AFailingResourceLeavesTheOperatorsInputsIntact) {
  CountingResource r;
  const Tensor a = Tensor::from_values<float>(Shape{4}, {1, 2, 3, 4});
  for (long k = 1; k <= 4; ++k) {
    r.fail_at(k);
    try {
      const TensorSequence parts = tseq::ops::split_to_sequence(a, std::nullopt, 0, 1, &r);
      ADD_FAILURE() << "allocation " << k << " of 4 did not fail";
    } catch (const std::bad_alloc&) {
    }
    r.fail_at(0);
    EXPECT_EQ(r.bytes_outstanding(), 0u) << "k = " << k;
    EXPECT_EQ(a.use_count(), 1u);
    EXPECT_EQ(a.value<float>(3), 4.0f);
  }
}

}  // namespace
