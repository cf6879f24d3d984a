// The protobuf bridge: every dtype both ways, and every malformed input as a clear error.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "onnx/onnx-data_pb.h"
#include "onnx/onnx_pb.h"
#include "tseq/eigen.hpp"
#include "tseq/onnx/proto.hpp"

namespace {

using namespace tseq;
using namespace tseq::onnx;
using ::onnx::TensorProto;

template <class T>
Tensor sample(DataType t) {
  std::vector<T> v(6);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_same_v<T, std::string>) {
      v[i] = std::string(i, 'x') + "\xff";
    } else if constexpr (std::is_same_v<T, bool>) {
      v[i] = i % 2 == 0;
    } else if constexpr (std::is_same_v<T, Eigen::half>) {
      v[i] = Eigen::half(static_cast<float>(i) - 2.5f);
    } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
      v[i] = T(static_cast<typename T::value_type>(i), -1);
    } else if constexpr (std::is_signed_v<T>) {
      v[i] = static_cast<T>(std::numeric_limits<T>::min() + static_cast<T>(i));
    } else {
      v[i] = static_cast<T>(std::numeric_limits<T>::max() - static_cast<T>(i));
    }
  }
  (void)t;
  return Tensor::from_values<T>(Shape{2, 3}, v);
}

Tensor sample(DataType t) {
  return visit_dtype(t, [&](auto tag) { return sample<typename decltype(tag)::type>(t); });
}

// The same tensor written with the typed field ONNX defines for its dtype.
TensorProto typed(const Tensor& x) {
  TensorProto p;
  p.set_data_type(static_cast<int>(x.dtype()));
  for (auto d : x.shape()) p.add_dims(d);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (const T& v : x.values<T>()) {
      if constexpr (std::is_same_v<T, std::string>) {
        p.add_string_data(v);
      } else if constexpr (std::is_same_v<T, float>) {
        p.add_float_data(v);
      } else if constexpr (std::is_same_v<T, double>) {
        p.add_double_data(v);
      } else if constexpr (std::is_same_v<T, std::complex<float>>) {
        p.add_float_data(v.real());
        p.add_float_data(v.imag());
      } else if constexpr (std::is_same_v<T, std::complex<double>>) {
        p.add_double_data(v.real());
        p.add_double_data(v.imag());
      } else if constexpr (std::is_same_v<T, std::int64_t>) {
        p.add_int64_data(v);
      } else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, std::uint32_t>) {
        p.add_uint64_data(v);
      } else if constexpr (std::is_same_v<T, Eigen::half>) {
        p.add_int32_data(Eigen::numext::bit_cast<std::uint16_t>(v));
      } else {
        p.add_int32_data(static_cast<std::int32_t>(v));
      }
    }
  });
  return p;
}

TEST(OnnxProto, EveryTypeRoundTripsThroughRawAndTypedFields) {
  for (DataType t : all_dtypes) {
    const Tensor x = sample(t);
    TensorProto p;
    to_proto(x, p, "x");
    EXPECT_EQ(p.data_type(), static_cast<int>(t));
    EXPECT_EQ(p.has_raw_data(), t != DataType::String);
    EXPECT_TRUE(equal(from_proto(p, "test"), x)) << dtype_name(t);
    EXPECT_TRUE(equal(from_proto(typed(x), "test"), x)) << dtype_name(t);
    std::string bytes;
    ASSERT_TRUE(p.SerializeToString(&bytes));
    const Value v =
        parse_value(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), ValueType::tensor(t), "mem");
    EXPECT_TRUE(equal(v.tensor(), x));
  }
}

TEST(OnnxProto, RawDataIsLittleEndian) {
  TensorProto p;
  p.set_data_type(6);
  p.add_dims(1);
  p.set_raw_data(std::string("\x01\x02\x00\x00", 4));
  EXPECT_EQ(from_proto(p, "le").value<std::int32_t>(0), 0x0201);
}

TEST(OnnxProto, ZeroSizedDims) {
  TensorProto p;
  p.set_data_type(1);
  p.add_dims(3);
  p.add_dims(0);
  const Tensor t = from_proto(p, "zero");
  EXPECT_EQ(t.shape(), (Shape{3, 0}));
  EXPECT_EQ(t.size(), 0u);
}

void expect_error(const TensorProto& p, const std::string& message) {
  try {
    (void)from_proto(p, "file.pb");
    ADD_FAILURE() << "expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(OnnxProto, MalformedTensorsAreClearErrors) {
  TensorProto p;
  p.set_name("t");
  p.set_data_type(16);
  expect_error(p,
               "file.pb: tensor 't': data type 16 is not supported (valid: 1..15: float, uint8, int8, uint16, int16, "
               "int32, int64, string, bool, float16, double, uint32, uint64, complex64, complex128)");
  p.set_data_type(0);
  EXPECT_THROW((void)from_proto(p, "f"), Error);

  TensorProto ext;
  ext.set_data_type(1);
  ext.set_data_location(TensorProto::EXTERNAL);
  expect_error(ext, "file.pb: external data is not supported (the payload is stored in another file)");

  TensorProto count;
  count.set_data_type(1);
  count.add_dims(3);
  count.add_float_data(1);
  expect_error(count, "file.pb: float_data has 1 values; shape [3] of float needs 3");
  count.set_raw_data(std::string(8, '\0'));
  expect_error(count, "file.pb: both raw_data and float_data are set");
  count.clear_float_data();
  expect_error(count, "file.pb: raw_data has 8 bytes; shape [3] of float needs 3 x 4");

  TensorProto wrong;
  wrong.set_data_type(7);
  wrong.add_float_data(1);
  expect_error(wrong, "file.pb: float_data does not belong to a int64 tensor (expected raw_data or int64_data)");

  TensorProto narrow;
  narrow.set_data_type(3);
  narrow.add_int32_data(300);
  expect_error(narrow, "file.pb: int32_data[0] = 300 does not fit int8");
  narrow.set_data_type(9);
  narrow.set_int32_data(0, 2);
  expect_error(narrow, "file.pb: int32_data[0] = 2 is not a bool (0 or 1)");
  narrow.set_data_type(10);
  narrow.set_int32_data(0, 70000);
  expect_error(narrow, "file.pb: int32_data[0] = 70000 is not a float16 bit pattern (0..65535)");

  TensorProto u32;
  u32.set_data_type(12);
  u32.add_uint64_data(std::uint64_t{1} << 40);
  expect_error(u32, "file.pb: uint64_data[0] = 1099511627776 does not fit uint32");

  TensorProto str;
  str.set_data_type(8);
  str.set_raw_data("abc");
  expect_error(str, "file.pb: a string tensor cannot use raw_data");

  TensorProto neg;
  neg.set_data_type(1);
  neg.add_dims(-1);
  expect_error(neg, "file.pb: shape [-1] has a negative dimension");
  TensorProto huge;
  huge.set_data_type(1);
  for (int i = 0; i < 4; ++i) huge.add_dims(std::int64_t{1} << 20);
  expect_error(huge, "file.pb: shape [1048576, 1048576, 1048576, 1048576] has more elements than fit in int64");
}

TEST(OnnxProto, Sequences) {
  ::onnx::SequenceProto empty;
  empty.set_elem_type(::onnx::SequenceProto::TENSOR);
  const TensorSequence e = from_proto(empty, DataType::Int64, "s.pb");
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(e.dtype(), DataType::Int64) << "an empty sequence takes its type from the declaration";

  ::onnx::SequenceProto two;
  to_proto(TensorSequence(DataType::Float, std::vector<Tensor>{sample(DataType::Float), sample(DataType::Float)}), two);
  const TensorSequence s = from_proto(two, DataType::Float, "s.pb");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(equal(s[1], sample(DataType::Float)));
  try {
    (void)from_proto(two, DataType::Double, "s.pb");
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_STREQ(e.what(), "s.pb: element 0 is float but the sequence is declared seq(tensor(double))");
  }
  ::onnx::SequenceProto nested;
  nested.set_elem_type(::onnx::SequenceProto::SEQUENCE);
  nested.add_sequence_values();
  EXPECT_THROW((void)from_proto(nested, DataType::Float, "n.pb"), Error);
}

TEST(OnnxProto, Optionals) {
  const ValueType of_seq = ValueType::optional(ValueType::Kind::Sequence, DataType::Int32);
  ::onnx::OptionalProto none;
  EXPECT_FALSE(from_proto(none, of_seq, "o.pb").has_value());
  ::onnx::OptionalProto some;
  some.set_elem_type(::onnx::OptionalProto::SEQUENCE);
  to_proto(TensorSequence(DataType::Int32, std::vector<Tensor>{sample(DataType::Int32)}),
           *some.mutable_sequence_value());
  const OptionalValue o = from_proto(some, of_seq, "o.pb");
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o.element->sequence().size(), 1u);
  EXPECT_THROW((void)from_proto(some, ValueType::optional(ValueType::Kind::Tensor, DataType::Int32), "o.pb"), Error);
}

TEST(OnnxProto, TypeProtos) {
  ::onnx::TypeProto t;
  t.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(7);
  EXPECT_EQ(from_proto(t, "x"), ValueType::sequence(DataType::Int64));
  ::onnx::TypeProto m;
  m.mutable_map_type()->set_key_type(7);
  EXPECT_THROW((void)from_proto(m, "x"), Error);
  EXPECT_EQ(to_string(ValueType::optional(ValueType::Kind::Sequence, DataType::Float)), "optional(seq(tensor(float)))");
}

// Random and truncated bytes: always a tseq error or a value, never a crash.
TEST(OnnxProto, GarbageBytesNeverCrash) {
  TensorProto p;
  to_proto(sample(DataType::Double), p);
  std::string good;
  p.SerializeToString(&good);
  std::mt19937_64 rng(1);
  int errors = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string b = good;
    if (i % 3 == 0) b.resize(rng() % (b.size() + 1));
    for (int k = 0; k < 3 && !b.empty(); ++k) b[rng() % b.size()] = static_cast<char>(rng());
    for (const ValueType& vt : {ValueType::tensor(DataType::Double), ValueType::sequence(DataType::Double),
                                ValueType::optional(ValueType::Kind::Tensor, DataType::Double)}) {
      try {
        (void)parse_value(std::as_bytes(std::span<const char>(b.data(), b.size())), vt, "fuzz");
      } catch (const Error&) {
        ++errors;
      }
    }
  }
  EXPECT_GT(errors, 0);
  EXPECT_THROW((void)parse_value(std::as_bytes(std::span<const char>("\xff\xff\xff", 3)),
                                 ValueType::tensor(DataType::Float), "x"),
               Error);
}

TEST(OnnxProto, MissingFileIsAnError) {
  try {
    (void)load_value("/nonexistent/input_0.pb", ValueType::tensor(DataType::Float));
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/input_0.pb: cannot be opened (No such file or directory)");
  }
}

}  // namespace
