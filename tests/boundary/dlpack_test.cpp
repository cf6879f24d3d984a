// DLPack: zero-copy import and export, deleters, type table, rejected tensors.

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "boundary/c_producer.h"
#include "support/alloc_hook.hpp"
#include "support/error_of.hpp"
#include "tseq/dlpack.hpp"
#include "tseq/eigen.hpp"
#include "tseq/ops.hpp"

namespace {

using tseq::DataType;
using tseq::Device;
using tseq::Shape;
using tseq::Tensor;
using tseq::TensorSequence;
using tseq_test::count_allocations;
using tseq_test::error_of;

TEST(DLPack, TypeTableBothWays) {
  struct Row {
    DataType t;
    std::uint8_t code;
    std::uint8_t bits;
  };
  const std::vector<Row> rows = {{DataType::Float, kDLFloat, 32},        {DataType::Double, kDLFloat, 64},
                                 {DataType::Float16, kDLFloat, 16},      {DataType::Int8, kDLInt, 8},
                                 {DataType::Int16, kDLInt, 16},          {DataType::Int32, kDLInt, 32},
                                 {DataType::Int64, kDLInt, 64},          {DataType::Uint8, kDLUInt, 8},
                                 {DataType::Uint16, kDLUInt, 16},        {DataType::Uint32, kDLUInt, 32},
                                 {DataType::Uint64, kDLUInt, 64},        {DataType::Complex64, kDLComplex, 64},
                                 {DataType::Complex128, kDLComplex, 128}};
  for (const Row& r : rows) {
    const auto d = tseq::to_dlpack_dtype(r.t);
    ASSERT_TRUE(d.has_value()) << tseq::dtype_name(r.t);
    EXPECT_EQ(d->code, r.code) << tseq::dtype_name(r.t);
    EXPECT_EQ(d->bits, r.bits) << tseq::dtype_name(r.t);
    EXPECT_EQ(d->lanes, 1);
    EXPECT_EQ(tseq::from_dlpack_dtype(*d), r.t);
    EXPECT_EQ(d->bits / 8u, tseq::dtype_size(r.t)) << tseq::dtype_name(r.t);
  }
  EXPECT_FALSE(tseq::to_dlpack_dtype(DataType::String).has_value());
#if DLPACK_VERSION < 80
  EXPECT_FALSE(tseq::to_dlpack_dtype(DataType::Bool).has_value());  // no kDLBool before DLPack 0.8
#endif
}

TEST(DLPack, RejectsElementTypesItCannotHold) {
  const std::vector<std::pair<DLDataType, std::string>> cases = {
      {{kDLBfloat, 16, 1},
       "from_dlpack: DLPack type (code 4 kDLBfloat, bits 16, lanes 1) is not a sequence element type"},
      {{kDLFloat, 32, 4}, "from_dlpack: DLPack type (code 2 kDLFloat, bits 32, lanes 4) is a vector type"},
      {{kDLFloat, 24, 1}, "(code 2 kDLFloat, bits 24, lanes 1) is not a sequence element type"},
      {{kDLInt, 1, 1}, "(code 0 kDLInt, bits 1, lanes 1) is not"},
      {{kDLOpaqueHandle, 64, 1}, "(code 3 kDLOpaqueHandle, bits 64, lanes 1) is not"},
      {{kDLComplex, 32, 1}, "(code 5 kDLComplex, bits 32, lanes 1) is not"},
      {{42, 8, 1}, "(code 42 unknown, bits 8, lanes 1) is not"},
  };
  for (const auto& c : cases) {  // (no structured binding: clang 14 cannot capture one)
    const std::string e = error_of<tseq::TypeError>([&] { (void)tseq::from_dlpack_dtype(c.first); });
    EXPECT_NE(e.find(c.second), std::string::npos) << e;
  }
}

TEST(DLPack, ImportSharesThePayloadAndCallsTheDeleterOnceAtTheLastHandle) {
  int deleted = 0;
  DLManagedTensor* m = c_make_float_matrix(3, 4, &deleted);
  const void* data = m->dl_tensor.data;
  {
    const count_allocations c;
    const Tensor t = tseq::from_dlpack(m);
    EXPECT_EQ(c.delta().allocations, 1);
    EXPECT_EQ(t.data(), data);
    EXPECT_EQ(t.shape(), (Shape{3, 4}));
    EXPECT_EQ(t.dtype(), DataType::Float);
    EXPECT_EQ((tseq::eigen_tensor<float, 2>(t)(2, 3)), 11.0f);
    TensorSequence s = tseq::ops::sequence_construct(std::vector<Tensor>{t, t});
    s = tseq::ops::sequence_erase(std::move(s), 0);
    const Tensor back = tseq::ops::sequence_at(s, 0);
    EXPECT_EQ(back.data(), data);
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(DLPack, ExportSharesThePayloadAndItsDeleterReleasesOneHandle) {
  const Tensor t = Tensor::from_values<float>(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  const count_allocations c;
  DLManagedTensor* m = tseq::to_dlpack(t);
  EXPECT_EQ(c.delta().allocations, 1);
  EXPECT_EQ(t.use_count(), 2u);
  const DLTensor& d = m->dl_tensor;
  EXPECT_EQ(d.data, t.data());
  EXPECT_EQ(d.byte_offset, 0u);
  EXPECT_EQ(d.device.device_type, kDLCPU);
  EXPECT_EQ(d.device.device_id, 0);
  ASSERT_EQ(d.ndim, 2);
  EXPECT_EQ(d.shape[0], 2);
  EXPECT_EQ(d.shape[1], 3);
  ASSERT_NE(d.strides, nullptr);
  EXPECT_EQ(d.strides[0], 3);
  EXPECT_EQ(d.strides[1], 1);
  EXPECT_EQ(d.dtype.code, kDLFloat);
  EXPECT_EQ(d.dtype.bits, 32);
  EXPECT_EQ(d.dtype.lanes, 1);
  EXPECT_EQ(c_sum_float(m), 21.0);  // a consumer in C reads it
  c_release(m);
  EXPECT_EQ(t.use_count(), 1u);
  // A scalar and an empty tensor travel too.
  DLManagedTensor* s = tseq::to_dlpack(Tensor::scalar(2.5f));
  EXPECT_EQ(s->dl_tensor.ndim, 0);
  EXPECT_EQ(c_sum_float(s), 2.5);
  c_release(s);
  DLManagedTensor* e = tseq::to_dlpack(Tensor());
  EXPECT_EQ(e->dl_tensor.ndim, 1);
  EXPECT_EQ(e->dl_tensor.shape[0], 0);
  c_release(e);
}

TEST(DLPack, RoundTripsKeepTheDataPointer) {
  // tseq -> DLPack -> tseq: the original tensor comes back, no allocation.
  const Tensor t = Tensor::from_values<std::int64_t>(Shape{4}, {1, 2, 3, 4});
  DLManagedTensor* m = tseq::to_dlpack(t);
  {
    const count_allocations c;
    const Tensor back = tseq::from_dlpack(m);
    EXPECT_EQ(c.delta().allocations, 0);
    EXPECT_TRUE(back.identical_to(t));
  }
  EXPECT_EQ(t.use_count(), 1u);
  // C -> tseq -> DLPack -> tseq: one data pointer throughout; the C deleter runs once, last.
  int deleted = 0;
  DLManagedTensor* c = c_make_float_matrix(2, 2, &deleted);
  const void* data = c->dl_tensor.data;
  {
    const Tensor a = tseq::from_dlpack(c);
    DLManagedTensor* out = tseq::to_dlpack(a);
    EXPECT_EQ(out->dl_tensor.data, data);
    EXPECT_EQ(c_sum_float(out), 6.0);
    const Tensor again = tseq::from_dlpack(out);
    EXPECT_EQ(again.data(), data);
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
  // A changed export is not unwrapped: it is adopted as what it now says.
  DLManagedTensor* sliced = tseq::to_dlpack(t);
  sliced->dl_tensor.byte_offset = 8;
  sliced->dl_tensor.ndim = 0;
  {
    const Tensor x = tseq::from_dlpack(sliced);
    EXPECT_EQ(x.rank(), 0u);
    EXPECT_EQ(x.value<std::int64_t>(0), 2);
    EXPECT_TRUE(x.is_adopted());
    EXPECT_EQ(t.use_count(), 2u);
  }
  EXPECT_EQ(t.use_count(), 1u);
}

TEST(DLPack, AcceptsCompactStridesAndByteOffset) {
  int deleted = 0;
  {
    DLManagedTensor* m = c_make_float_matrix(2, 3, &deleted);
    std::int64_t strides[2] = {3, 1};
    m->dl_tensor.strides = strides;
    EXPECT_EQ(tseq::from_dlpack(m).value<float>(4), 4.0f);
  }
  {
    DLManagedTensor* m = c_make_float_matrix(1, 3, &deleted);
    std::int64_t strides[2] = {12345, 1};  // a dimension of extent 1 may have any stride
    m->dl_tensor.strides = strides;
    EXPECT_EQ(tseq::from_dlpack(m).size(), 3u);
  }
  {
    DLManagedTensor* m = c_make_float_matrix(0, 3, &deleted);
    std::int64_t strides[2] = {7, 7};  // no elements: any strides
    m->dl_tensor.strides = strides;
    EXPECT_EQ(tseq::from_dlpack(m).shape(), (Shape{0, 3}));
  }
  {
    DLManagedTensor* m = c_make_float_matrix(2, 3, &deleted);
    const auto* base = static_cast<const std::byte*>(m->dl_tensor.data);
    m->dl_tensor.byte_offset = 8;  // skip two floats: view [1, 4] of elements 2..5
    m->dl_tensor.shape[0] = 1;
    m->dl_tensor.shape[1] = 4;
    const Tensor t = tseq::from_dlpack(m);
    EXPECT_EQ(t.data(), base + 8);
    EXPECT_EQ(t.value<float>(0), 2.0f);
    EXPECT_EQ(t.value<float>(3), 5.0f);
  }
  EXPECT_EQ(deleted, 4);
}

TEST(DLPack, RejectsBadTensorsAndTheCallerKeepsOwnership) {
  int deleted = 0;
  std::int64_t transposed[2] = {1, 2};
  std::int64_t negative[2] = {2, -3};
  const std::vector<std::pair<std::function<void(DLTensor&)>, std::string>> cases = {
      {[&](DLTensor& d) { d.strides = transposed; },
       "from_dlpack: strides [1, 2] of shape [2, 3] are not compact row-major; tseq adopts only compact row-major "
       "tensors"},
      {[](DLTensor& d) { d.dtype.lanes = 2; }, "from_dlpack: DLPack type (code 2 kDLFloat, bits 32, lanes 2)"},
      {[](DLTensor& d) { d.dtype.bits = 16 + 8; }, "bits 24, lanes 1) is not a sequence element type"},
      {[](DLTensor& d) { d.dtype.code = 77; }, "(code 77 unknown"},
      {[&](DLTensor& d) { d.shape = negative; }, "from_dlpack: dimension 1 of shape [2, -3] is negative"},
      {[](DLTensor& d) { d.data = nullptr; }, "from_dlpack: data is null but shape [2, 3] has 6 elements"},
      {[](DLTensor& d) { d.ndim = -1; }, "from_dlpack: ndim is -1; it must be >= 0"},
      {[](DLTensor& d) { d.shape = nullptr; }, "from_dlpack: shape is null but ndim is 2"},
      {[](DLTensor& d) { d.device.device_type = static_cast<DLDeviceType>(5); },
       "from_dlpack: device (type 5, id 0) is not a DLPack device"},
      {[](DLTensor& d) { d.device.device_id = -2; }, "from_dlpack: device (type 1, id -2)"},
      {[](DLTensor& d) {
         d.device.device_type = kDLOpenCL;
         d.byte_offset = 16;
       },
       "from_dlpack: byte_offset 16 on opencl:0, whose data is an opaque handle, is not supported (only 0)"},
      {[](DLTensor& d) { d.byte_offset = 2; }, "is not aligned to 4 bytes, as float elements need"},
      {[](DLTensor& d) { d.byte_offset = ~std::uint64_t{0}; }, "byte_offset 18446744073709551615 does not fit"},
  };
  DLManagedTensor* m = c_make_float_matrix(2, 3, &deleted);
  const DLTensor pristine = m->dl_tensor;
  for (const auto& [spoil, message] : cases) {
    spoil(m->dl_tensor);
    const std::string e = error_of<tseq::Error>([&] { (void)tseq::from_dlpack(m); });
    EXPECT_NE(e.find(message), std::string::npos) << e;
    EXPECT_EQ(deleted, 0) << "a failed import called the deleter: " << message;
    m->dl_tensor = pristine;
  }
  // The error classes.
  m->dl_tensor.strides = transposed;
  EXPECT_THROW((void)tseq::from_dlpack(m), tseq::ShapeError);
  m->dl_tensor = pristine;
  m->dl_tensor.dtype.lanes = 4;
  EXPECT_THROW((void)tseq::from_dlpack(m), tseq::TypeError);
  m->dl_tensor = pristine;
  EXPECT_EQ(error_of<tseq::Error>([] { (void)tseq::from_dlpack(nullptr); }),
            "from_dlpack: the DLManagedTensor pointer is null");
  // Still the caller's: importing it now works, and the deleter runs once.
  { const Tensor t = tseq::from_dlpack(m); }
  EXPECT_EQ(deleted, 1);
}

TEST(DLPack, AFailedHeaderAllocationLeavesOwnership) {
  int deleted = 0;
  DLManagedTensor* m = c_make_float_matrix(1, 1, &deleted);
  {
    const tseq_test::fail_allocation_at f(1);
    EXPECT_THROW((void)tseq::from_dlpack(m), std::bad_alloc);
  }
  EXPECT_EQ(deleted, 0);
  c_release(m);
  EXPECT_EQ(deleted, 1);
}

TEST(DLPack, DevicesTravelBothWays) {
  int deleted = 0;
  DLManagedTensor* m = c_make_float_matrix(2, 2, &deleted);
  m->dl_tensor.device = DLDevice{kDLCUDA, 1};
  {
    const Tensor t = tseq::from_dlpack(m);
    EXPECT_EQ(t.device(), Device::cuda(1));
    EXPECT_THROW((void)t.values<float>(), tseq::DeviceError);
    const TensorSequence s = tseq::ops::sequence_construct(std::vector<Tensor>{t});
    DLManagedTensor* out = tseq::to_dlpack(tseq::ops::sequence_at(s, 0));
    EXPECT_EQ(out->dl_tensor.device.device_type, kDLCUDA);
    EXPECT_EQ(out->dl_tensor.device.device_id, 1);
    c_release(out);
  }
  EXPECT_EQ(deleted, 1);
}

// Regression (issue 28): DLDevice::device_type was loaded as DLDeviceType, so a code outside
// DLPack 0.6's enum (a newer producer's Hexagon = 16, or garbage) was undefined behaviour
// (UBSan: load of an invalid enum value), and Hexagon was exported by casting 16 into it. The
// field is now read and written as the 32-bit integer it is.
std::int32_t raw_device_code(const DLDevice& d) {
  std::int32_t c = 0;
  std::memcpy(&c, &d.device_type, sizeof c);
  return c;
}

TEST(DLPack, DeviceCodesOutsideTheEnumAreReadAsIntegers) {
  int deleted = 0;
  DLManagedTensor* m = c_make_float_matrix(1, 2, &deleted);
  const DLTensor pristine = m->dl_tensor;
  for (const std::int32_t garbage : {0, 5, 17, 1000, INT32_MAX, -1, INT32_MIN}) {
    std::memcpy(&m->dl_tensor.device.device_type, &garbage, sizeof garbage);
    const std::string e = error_of<tseq::Error>([&] { (void)tseq::from_dlpack(m); });
    EXPECT_NE(e.find("from_dlpack: device (type " + std::to_string(garbage) + ", id 0) is not a DLPack device"),
              std::string::npos)
        << e;
    EXPECT_EQ(deleted, 0);
  }
  m->dl_tensor = pristine;
  const std::int32_t hexagon = 16;
  std::memcpy(&m->dl_tensor.device.device_type, &hexagon, sizeof hexagon);
  {
    const Tensor t = tseq::from_dlpack(m);
    EXPECT_EQ(t.device().type, tseq::DeviceType::Hexagon);
    DLManagedTensor* out = tseq::to_dlpack(t);
    EXPECT_EQ(raw_device_code(out->dl_tensor.device), 16);
    c_release(out);
  }
  EXPECT_EQ(deleted, 1);
}

// Regression (issue 28): to_dlpack's strides of a zero-element tensor whose other dimensions
// multiply past int64 overflowed (its comment said they could not: num_elements() is 0 and
// fits). Checked: a ShapeError naming the shape; a tensor whose strides fit still exports.
TEST(DLPack, ExportStridesThatOverflowAreAShapeError) {
  const std::int64_t big = std::int64_t{1} << 40;
  const Tensor bad = tseq::TensorBuffer(DataType::Float, Shape{0, big, big, big}).freeze();
  EXPECT_EQ(error_of<tseq::ShapeError>([&] { (void)tseq::to_dlpack(bad); }),
            "to_dlpack: the row-major strides of shape [0, 1099511627776, 1099511627776, 1099511627776] do not "
            "fit int64 (DLPack's stride type)");
  const Tensor ok =
      tseq::TensorBuffer(DataType::Float, Shape{0, std::int64_t{1} << 20, std::int64_t{1} << 30}).freeze();
  DLManagedTensor* out = tseq::to_dlpack(ok);
  EXPECT_EQ(out->dl_tensor.strides[0], std::int64_t{1} << 50);
  EXPECT_EQ(out->dl_tensor.strides[2], 1);
  c_release(out);
}

TEST(DLPack, StringAndBoolCannotBeExported) {
  EXPECT_EQ(error_of<tseq::TypeError>([] { (void)tseq::to_dlpack(Tensor::scalar(std::string("x"))); }),
            "to_dlpack: string tensors cannot travel through DLPack (their elements are std::string objects, not "
            "plain memory)");
#if DLPACK_VERSION < 80
  EXPECT_EQ(error_of<tseq::TypeError>([] { (void)tseq::to_dlpack(Tensor::scalar(true)); }),
            "to_dlpack: bool has no DLPack type code in DLPack 0.6 (kDLBool arrived in 0.8)");
#endif
}

TEST(DLPack, ANullDeleterIsAllowed) {
  float x[2] = {3, 4};
  std::int64_t shape[1] = {2};
  DLManagedTensor m{};
  m.dl_tensor = DLTensor{x, DLDevice{kDLCPU, 0}, 1, DLDataType{kDLFloat, 32, 1}, shape, nullptr, 0};
  const Tensor t = tseq::from_dlpack(&m);
  EXPECT_EQ(t.value<float>(1), 4.0f);
}

}  // namespace
