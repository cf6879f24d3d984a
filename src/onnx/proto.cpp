// TensorProto / SequenceProto / OptionalProto / TypeProto <-> tseq values.

#include "tseq/onnx/proto.hpp"

#include <Eigen/Core>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <climits>
#include <cstring>
#include <limits>
#include <new>
#include <system_error>

#include "onnx/onnx-data_pb.h"
#include "onnx/onnx_pb.h"
#include "wire.hpp"

namespace tseq::onnx {

namespace {

using ::onnx::TensorProto;

// Where a tensor sits, for messages; built into a string only when one is thrown (a sequence of
// 10^7 tensors under a long name must not build 10^7 long strings).
struct Where {
  std::string_view context;    // the file or the caller's context
  const char* kind = nullptr;  // "sequence" or "optional" holding the tensor, or nullptr
  std::string_view container;  // its name
  std::int64_t element = -1;   // the tensor's index in the sequence
  std::string_view tensor;     // the tensor's name

  explicit Where(std::string_view ctx, const char* k = nullptr, std::string_view c = {})
      : context(ctx), kind(k), container(c) {}
  [[nodiscard]] std::string str() const {
    std::string r(context);
    if (kind != nullptr && !container.empty()) r += std::string(": ") + kind + " '" + escape_name(container) + "'";
    if (element >= 0) r += " element " + std::to_string(element);
    if (!tensor.empty()) r += ": tensor '" + escape_name(tensor) + "'";
    return r;
  }
};

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw Error(where + ": " + what); }

// Which repeated field carries each dtype when raw_data is absent.
enum class Field { Float, Int32, String, Int64, Double, Uint64 };

// All 15 cases, no default: -Wswitch names a new element type here.
Field field_of(DataType t) {
  switch (t) {
    case DataType::Float:
    case DataType::Complex64:
      return Field::Float;
    case DataType::Int64:
      return Field::Int64;
    case DataType::String:
      return Field::String;
    case DataType::Double:
    case DataType::Complex128:
      return Field::Double;
    case DataType::Uint32:
    case DataType::Uint64:
      return Field::Uint64;
    case DataType::Uint8:
    case DataType::Int8:
    case DataType::Uint16:
    case DataType::Int16:
    case DataType::Int32:
    case DataType::Bool:
    case DataType::Float16:  // its bit pattern
      return Field::Int32;
  }
  tseq::detail::throw_invalid_dtype(t);
}

const char* field_name(Field f) {
  switch (f) {
    case Field::Float:
      return "float_data";
    case Field::Int32:
      return "int32_data";
    case Field::String:
      return "string_data";
    case Field::Int64:
      return "int64_data";
    case Field::Double:
      return "double_data";
    case Field::Uint64:
      return "uint64_data";
  }
  return "?";
}

int field_size(const TensorProto& p, Field f) {
  switch (f) {
    case Field::Float:
      return p.float_data_size();
    case Field::Int32:
      return p.int32_data_size();
    case Field::String:
      return p.string_data_size();
    case Field::Int64:
      return p.int64_data_size();
    case Field::Double:
      return p.double_data_size();
    case Field::Uint64:
      return p.uint64_data_size();
  }
  return 0;
}

template <class T>
T from_little_endian(const unsigned char* b) {
  T v;
  std::memcpy(&v, b, sizeof(T));
  if constexpr (std::endian::native == std::endian::big && sizeof(T) > 1) {
    unsigned char tmp[sizeof(T)];
    std::memcpy(tmp, &v, sizeof(T));
    for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(tmp[i], tmp[sizeof(T) - 1 - i]);
    std::memcpy(&v, tmp, sizeof(T));
  }
  return v;
}

// Narrow integer types travel in int32_data; each value must fit.
template <class T>
T narrow(std::int32_t v, const Where& w, std::size_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    if (v != 0 && v != 1)
      fail(w.str(), "int32_data[" + std::to_string(i) + "] = " + std::to_string(v) + " is not a bool (0 or 1)");
    return v != 0;
  } else if constexpr (std::is_same_v<T, Eigen::half>) {
    if (v < 0 || v > 0xFFFF) {
      fail(w.str(),
           "int32_data[" + std::to_string(i) + "] = " + std::to_string(v) + " is not a float16 bit pattern (0..65535)");
    }
    return Eigen::numext::bit_cast<Eigen::half>(static_cast<std::uint16_t>(v));
  } else {
    if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
      fail(w.str(),
           "int32_data[" + std::to_string(i) + "] = " + std::to_string(v) + " does not fit " + dtype_name(dtype_of<T>));
    }
    return static_cast<T>(v);
  }
}

// The tensor p describes, checked against `lim` (null: no limits) before it is built; adds
// its bytes to *built.
Tensor read_tensor(const TensorProto& p, Where w, const ReadLimits* lim, std::int64_t* built,
                   std::pmr::memory_resource* resource) {
  w.tensor = p.name();
  if (p.data_location() == TensorProto::EXTERNAL || p.external_data_size() > 0) {
    fail(w.str(), "external data is not supported (the payload is stored in another file)");
  }
  if (p.has_segment()) fail(w.str(), "segmented tensors are not supported");
  const std::int32_t code = p.data_type();
  if (!is_dtype_code(code))
    fail(w.str(), "data type " + std::to_string(code) + " is not supported (valid: " + valid_dtypes() + ")");
  const auto t = static_cast<DataType>(code);
  if (static_cast<std::size_t>(p.dims_size()) > max_rank) {
    fail(w.str(),
         "rank " + std::to_string(p.dims_size()) + " is over tseq::onnx's max_rank of " + std::to_string(max_rank));
  }
  Shape shape(std::span<const std::int64_t>(p.dims().data(), static_cast<std::size_t>(p.dims_size())));
  std::int64_t count = 0;
  try {
    count = shape.num_elements();
  } catch (const ShapeError& e) {
    fail(w.str(), e.what());
  }
  // What the tensor will take: its payload, the characters of its strings and a header.
  std::int64_t bytes = count;  // elements * size, below; count fits int64
  if (count > std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(dtype_size(t))) {
    fail(w.str(), "shape " + to_string(shape) + " of " + dtype_name(t) + " has more bytes than fit in int64");
  }
  bytes *= static_cast<std::int64_t>(dtype_size(t));
  // Saturating: a payload near INT64_MAX plus characters or a header must not overflow.
  const auto plus = [](std::int64_t a, std::int64_t b) {
    return b > std::numeric_limits<std::int64_t>::max() - a ? std::numeric_limits<std::int64_t>::max() : a + b;
  };
  if (t == DataType::String) {
    for (const std::string& x : p.string_data()) bytes = plus(bytes, static_cast<std::int64_t>(x.size()));
  }
  if (lim != nullptr) {
    if (count > lim->max_tensor_elements) {
      fail(w.str(), "shape " + to_string(shape) + " holds " + std::to_string(count) +
                        " elements, over max_tensor_elements of " + std::to_string(lim->max_tensor_elements));
    }
    if (bytes > lim->max_tensor_bytes) {
      fail(w.str(), "the tensor would take " + std::to_string(bytes) + " bytes, over max_tensor_bytes of " +
                        std::to_string(lim->max_tensor_bytes));
    }
    const std::int64_t total =
        plus(plus(*built, bytes), static_cast<std::int64_t>(tseq::detail::TensorStorage::header_bytes()));
    if (bytes > lim->max_bytes || total > lim->max_bytes) {
      fail(w.str(), "the value would take " + std::to_string(total) + " bytes or more, over max_bytes of " +
                        std::to_string(lim->max_bytes));
    }
    *built = total;
  }
  const Field own = field_of(t);
  for (Field f : {Field::Float, Field::Int32, Field::String, Field::Int64, Field::Double, Field::Uint64}) {
    if (f != own && field_size(p, f) > 0) {
      fail(w.str(), std::string(field_name(f)) + " does not belong to a " + dtype_name(t) + " tensor (expected " +
                        (t == DataType::String ? "string_data" : std::string("raw_data or ") + field_name(own)) + ")");
    }
  }
  const bool complex = dtype_kind(t) == DTypeKind::complex;
  const auto n = static_cast<std::size_t>(count);
  if (p.has_raw_data()) {
    if (t == DataType::String) fail(w.str(), "a string tensor cannot use raw_data");
    if (field_size(p, own) > 0) fail(w.str(), std::string("both raw_data and ") + field_name(own) + " are set");
    const std::size_t elem = dtype_size(t);
    if (n > std::numeric_limits<std::size_t>::max() / elem || p.raw_data().size() != n * elem) {
      fail(w.str(), "raw_data has " + std::to_string(p.raw_data().size()) + " bytes; shape " + to_string(shape) +
                        " of " + dtype_name(t) + " needs " + std::to_string(n) + " x " + std::to_string(elem));
    }
    TensorBuffer b(t, shape, resource);
    const auto* raw = reinterpret_cast<const unsigned char*>(p.raw_data().data());
    visit_dtype(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, std::string>) {
      } else if constexpr (std::is_same_v<T, bool>) {
        auto out = b.values<bool>();
        for (std::size_t i = 0; i < n; ++i) out[i] = raw[i] != 0;
      } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
        using R = typename T::value_type;
        auto out = b.values<T>();
        for (std::size_t i = 0; i < n; ++i) {
          out[i] =
              T(from_little_endian<R>(raw + 2 * i * sizeof(R)), from_little_endian<R>(raw + (2 * i + 1) * sizeof(R)));
        }
      } else if constexpr (std::is_same_v<T, Eigen::half>) {
        auto out = b.values<T>();
        for (std::size_t i = 0; i < n; ++i) {
          out[i] = Eigen::numext::bit_cast<Eigen::half>(from_little_endian<std::uint16_t>(raw + 2 * i));
        }
      } else {
        auto out = b.values<T>();
        for (std::size_t i = 0; i < n; ++i) out[i] = from_little_endian<T>(raw + i * sizeof(T));
      }
    });
    return std::move(b).freeze();
  }
  const auto have = static_cast<std::size_t>(field_size(p, own));
  const std::size_t want = complex ? 2 * n : n;
  if (have != want) {
    fail(w.str(), std::string(field_name(own)) + " has " + std::to_string(have) + " values; shape " + to_string(shape) +
                      " of " + dtype_name(t) + " needs " + std::to_string(want));
  }
  TensorBuffer b(t, shape, resource);
  visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto out = b.values<T>();
    if constexpr (std::is_same_v<T, std::string>) {
      for (std::size_t i = 0; i < n; ++i) out[i] = p.string_data(static_cast<int>(i));
    } else if constexpr (std::is_same_v<T, float>) {
      for (std::size_t i = 0; i < n; ++i) out[i] = p.float_data(static_cast<int>(i));
    } else if constexpr (std::is_same_v<T, double>) {
      for (std::size_t i = 0; i < n; ++i) out[i] = p.double_data(static_cast<int>(i));
    } else if constexpr (std::is_same_v<T, std::complex<float>>) {
      for (std::size_t i = 0; i < n; ++i) {
        out[i] = T(p.float_data(static_cast<int>(2 * i)), p.float_data(static_cast<int>(2 * i + 1)));
      }
    } else if constexpr (std::is_same_v<T, std::complex<double>>) {
      for (std::size_t i = 0; i < n; ++i) {
        out[i] = T(p.double_data(static_cast<int>(2 * i)), p.double_data(static_cast<int>(2 * i + 1)));
      }
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      for (std::size_t i = 0; i < n; ++i) out[i] = p.int64_data(static_cast<int>(i));
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
      for (std::size_t i = 0; i < n; ++i) out[i] = p.uint64_data(static_cast<int>(i));
    } else if constexpr (std::is_same_v<T, std::uint32_t>) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t v = p.uint64_data(static_cast<int>(i));
        if (v > std::numeric_limits<std::uint32_t>::max()) {
          fail(w.str(), "uint64_data[" + std::to_string(i) + "] = " + std::to_string(v) + " does not fit uint32");
        }
        out[i] = static_cast<std::uint32_t>(v);
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) out[i] = narrow<T>(p.int32_data(static_cast<int>(i)), w, i);
    }
  });
  return std::move(b).freeze();
}

}  // namespace

Tensor from_proto(const TensorProto& p, std::string_view context, std::pmr::memory_resource* resource) {
  return read_tensor(p, Where{context}, nullptr, nullptr, resource);
}

void to_proto(const Tensor& t, TensorProto& out, const std::string& name) {
  out.Clear();
  if (!name.empty()) out.set_name(name);
  if (!t.device().is_host_readable()) {
    tseq::detail::throw_not_host("to_proto", name.empty() ? "the tensor" : "tensor '" + name + "'", t.device());
  }
  out.set_data_type(static_cast<std::int32_t>(t.dtype()));
  for (std::int64_t d : t.shape()) out.add_dims(d);
  if (t.dtype() == DataType::String) {
    for (const std::string& s : t.values<std::string>()) out.add_string_data(s);
    return;
  }
  const auto bytes = t.raw_data();
  std::string raw(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if constexpr (std::endian::native == std::endian::big) {
    // Each number swapped: a complex value's two parts separately.
    const std::size_t w = dtype_size(t.dtype()) / (dtype_kind(t.dtype()) == DTypeKind::complex ? 2 : 1);
    for (std::size_t i = 0; i + w <= raw.size(); i += w)
      std::reverse(raw.begin() + static_cast<std::ptrdiff_t>(i), raw.begin() + static_cast<std::ptrdiff_t>(i + w));
  }
  out.set_raw_data(std::move(raw));
}

namespace {

TensorSequence read_sequence(const ::onnx::SequenceProto& p, DataType declared, std::string_view context,
                             const ReadLimits* lim, std::int64_t* built, std::pmr::memory_resource* resource) {
  const Where at{context, "sequence", p.name()};
  if (p.sparse_tensor_values_size() > 0) {
    fail(at.str(), "sparse tensors (sparse_tensor_values) are not supported (only dense tensors)");
  }
  if (p.sequence_values_size() > 0 || p.map_values_size() > 0 || p.optional_values_size() > 0) {
    fail(at.str(), "sequences of sequences, maps or optionals are not supported (only sequences of tensors)");
  }
  if (p.elem_type() != ::onnx::SequenceProto::TENSOR && !(p.elem_type() == 0 && p.tensor_values_size() == 0)) {
    fail(at.str(), "elem_type " + std::to_string(p.elem_type()) + " is not supported (only 1, TENSOR)");
  }
  if (lim != nullptr && p.tensor_values_size() > lim->max_sequence_length) {
    fail(at.str(), "holds " + std::to_string(p.tensor_values_size()) + " tensors, over max_sequence_length of " +
                       std::to_string(lim->max_sequence_length));
  }
  TensorSequence::container_type::builder b;
  for (int i = 0; i < p.tensor_values_size(); ++i) {
    Where w = at;
    w.element = i;
    Tensor t = read_tensor(p.tensor_values(i), w, lim, built, resource);
    if (t.dtype() != declared) {
      throw TypeError(at.str() + ": element " + std::to_string(i) + " is " + dtype_name(t.dtype()) +
                      " but the sequence is declared seq(tensor(" + dtype_name(declared) + "))");
    }
    b.push_back(std::move(t));
  }
  return TensorSequence(declared, std::move(b).persistent());
}

OptionalValue read_optional(const ::onnx::OptionalProto& p, const ValueType& declared, std::string_view context,
                            const ReadLimits* lim, std::int64_t* built, std::pmr::memory_resource* resource) {
  const Where at{context, "optional", p.name()};
  const std::string where = at.str();
  OptionalValue r{nullptr, declared};
  if (p.has_sparse_tensor_value() || p.has_map_value() || p.has_optional_value()) {
    fail(where, "sparse tensors, maps and optionals of optionals are not supported (only tensors and sequences)");
  }
  switch (p.elem_type()) {
    case ::onnx::OptionalProto::UNDEFINED:
      return r;
    case ::onnx::OptionalProto::TENSOR: {
      if (declared.optional_of != ValueType::Kind::Tensor)
        fail(where, "holds a tensor but is declared " + to_string(declared));
      Tensor t = read_tensor(p.tensor_value(), Where{where}, lim, built, resource);
      if (t.dtype() != declared.dtype) {
        throw TypeError(where + ": holds a " + dtype_name(t.dtype()) + " tensor but is declared " +
                        to_string(declared));
      }
      r.element = std::make_shared<const Value>(std::move(t));
      return r;
    }
    case ::onnx::OptionalProto::SEQUENCE:
      if (declared.optional_of != ValueType::Kind::Sequence)
        fail(where, "holds a sequence but is declared " + to_string(declared));
      r.element =
          std::make_shared<const Value>(read_sequence(p.sequence_value(), declared.dtype, where, lim, built, resource));
      return r;
    default:
      fail(where, "elem_type " + std::to_string(p.elem_type()) + " is not supported (0, 1 TENSOR or 3 SEQUENCE)");
  }
}

}  // namespace

TensorSequence from_proto(const ::onnx::SequenceProto& p, DataType declared, std::string_view context,
                          std::pmr::memory_resource* resource) {
  return read_sequence(p, declared, context, nullptr, nullptr, resource);
}

void to_proto(const TensorSequence& s, ::onnx::SequenceProto& out, const std::string& name) {
  out.Clear();
  if (!name.empty()) out.set_name(name);
  out.set_elem_type(::onnx::SequenceProto::TENSOR);
  for (const Tensor& t : s) to_proto(t, *out.add_tensor_values());
}

OptionalValue from_proto(const ::onnx::OptionalProto& p, const ValueType& declared, std::string_view context,
                         std::pmr::memory_resource* resource) {
  return read_optional(p, declared, context, nullptr, nullptr, resource);
}

namespace {
DataType tensor_elem(const ::onnx::TypeProto_Tensor& t, const std::string& where) {
  const std::int32_t c = t.elem_type();
  if (!is_dtype_code(c))
    fail(where, "element type " + std::to_string(c) + " is not supported (valid: " + valid_dtypes() + ")");
  return static_cast<DataType>(c);
}
}  // namespace

ValueType from_proto(const ::onnx::TypeProto& p, std::string_view context) {
  const std::string where(context);
  if (p.has_tensor_type()) return ValueType::tensor(tensor_elem(p.tensor_type(), where));
  if (p.has_sequence_type()) {
    const auto& e = p.sequence_type().elem_type();
    if (!e.has_tensor_type()) fail(where, "only sequences of tensors are supported");
    return ValueType::sequence(tensor_elem(e.tensor_type(), where));
  }
  if (p.has_optional_type()) {
    const auto& e = p.optional_type().elem_type();
    if (e.has_tensor_type()) return ValueType::optional(ValueType::Kind::Tensor, tensor_elem(e.tensor_type(), where));
    if (e.has_sequence_type() && e.sequence_type().elem_type().has_tensor_type()) {
      return ValueType::optional(ValueType::Kind::Sequence,
                                 tensor_elem(e.sequence_type().elem_type().tensor_type(), where));
    }
    fail(where, "only optionals of tensors or of sequences of tensors are supported");
  }
  fail(where, "type is not supported (only tensors, sequences of tensors and optionals of those)");
}

namespace {

// Parses bytes already walked (wire.hpp) as message M; a message holding fields M does not
// have is refused: other ONNX messages parse as M with their fields left unknown (a
// TensorProto where a SequenceProto is declared would be an empty sequence).
template <class M>
void parse_into(M& m, std::span<const std::byte> bytes, const std::string& where, const char* what) {
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) fail(where, std::string("malformed ") + what);
  if (m.unknown_fields().field_count() > 0) {
    fail(where, std::string("holds field ") + std::to_string(m.unknown_fields().field(0).number()) + ", which a " +
                    what + " does not have (is it another message?)");
  }
}

}  // namespace

Value parse_value(std::span<const std::byte> bytes, const ValueType& type, std::string_view context,
                  const ReadLimits& limits, std::pmr::memory_resource* resource) {
  const std::string where = escape_name(context, 1024);  // a file name may hold a newline
  try {
    if (bytes.size() > static_cast<std::size_t>(std::max<std::int64_t>(limits.max_file_bytes, 0))) {
      fail(where,
           std::to_string(bytes.size()) + " bytes, over max_file_bytes of " + std::to_string(limits.max_file_bytes));
    }
    const google::protobuf::Descriptor* d = type.kind == ValueType::Kind::Tensor ? TensorProto::descriptor()
                                            : type.kind == ValueType::Kind::Sequence
                                                ? ::onnx::SequenceProto::descriptor()
                                                : ::onnx::OptionalProto::descriptor();
    // Before protobuf allocates: what parsing would take, and how many tensors the bytes hold.
    const detail::WireCost cost =
        detail::walk(bytes, d, TensorProto::descriptor(), limits.max_bytes, where, "max_bytes");
    // A tensor's own TensorProto is counted too; a sequence's or optional's are its elements.
    const std::int64_t tensors = type.kind == ValueType::Kind::Tensor ? cost.counted - 1 : cost.counted;
    if (tensors > limits.max_sequence_length) {
      fail(where, "holds " + std::to_string(tensors) + " tensors, over max_sequence_length of " +
                      std::to_string(limits.max_sequence_length));
    }
    std::int64_t built = cost.bytes;  // what protobuf's message takes counts against max_bytes too
    switch (type.kind) {
      case ValueType::Kind::Tensor: {
        TensorProto p;
        parse_into(p, bytes, where, "TensorProto");
        Tensor t = read_tensor(p, Where{where}, &limits, &built, resource);
        if (t.dtype() != type.dtype) {
          throw TypeError(where + ": holds a " + dtype_name(t.dtype()) + " tensor but " + to_string(type) +
                          " is declared");
        }
        return t;
      }
      case ValueType::Kind::Sequence: {
        ::onnx::SequenceProto p;
        parse_into(p, bytes, where, "SequenceProto");
        return read_sequence(p, type.dtype, where, &limits, &built, resource);
      }
      case ValueType::Kind::Optional: {
        ::onnx::OptionalProto p;
        parse_into(p, bytes, where, "OptionalProto");
        return read_optional(p, type, where, &limits, &built, resource);
      }
    }
    fail(where, "unknown value kind");
  } catch (const std::bad_alloc&) {
    fail(where, "out of memory while reading the value (std::bad_alloc); ReadLimits bound what a value may take");
  }
}

Value parse_value(std::span<const std::byte> bytes, const ValueType& type, std::string_view context,
                  std::pmr::memory_resource* resource) {
  return parse_value(bytes, type, context, ReadLimits{}, resource);
}

namespace {

// Closes a descriptor on every path.
struct Fd {
  int fd;
  explicit Fd(int d) noexcept : fd(d) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

const char* file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "a special file";
}

}  // namespace

std::string read_file(const std::filesystem::path& file, std::int64_t max_bytes) {
  const std::string name = escape_name(file.native(), 1024);
  // The path is stat'ed before it is opened (opening some devices has effects: a tape rewinds),
  // then opened without blocking, so that a FIFO nobody writes does not wait, and fstat'ed on
  // the descriptor, so that what is checked is what is read.
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    throw Error(name + ": cannot be opened (" + std::generic_category().message(errno) + ")");
  }
  if (!S_ISREG(st.st_mode)) throw Error(name + ": is " + file_kind(st.st_mode) + ", not a regular file");
  const Fd f(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (f.fd < 0) throw Error(name + ": cannot be opened (" + std::generic_category().message(errno) + ")");
  if (::fstat(f.fd, &st) != 0) throw Error(name + ": cannot be read (" + std::generic_category().message(errno) + ")");
  if (!S_ISREG(st.st_mode)) throw Error(name + ": is " + file_kind(st.st_mode) + ", not a regular file");
  const auto size = static_cast<std::int64_t>(st.st_size);
  if (size > max_bytes) {
    throw Error(name + ": " + std::to_string(size) + " bytes, over the limit of " + std::to_string(max_bytes) +
                " bytes for this file");
  }
  std::string bytes;
  try {
    bytes.resize(static_cast<std::size_t>(size));
  } catch (const std::bad_alloc&) {
    throw Error(name + ": out of memory reading its " + std::to_string(size) + " bytes");
  }
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t r = ::read(f.fd, bytes.data() + got, bytes.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw Error(name + ": read error (" + std::generic_category().message(errno) + ")");
    if (r == 0) {
      throw Error(name + ": changed size while it was read (" + std::to_string(got) + " of " + std::to_string(size) +
                  " bytes)");
    }
    got += static_cast<std::size_t>(r);
  }
  char extra = 0;
  ssize_t r = 0;
  do {
    r = ::read(f.fd, &extra, 1);
  } while (r < 0 && errno == EINTR);
  if (r > 0) throw Error(name + ": changed size while it was read (it grew past " + std::to_string(size) + " bytes)");
  return bytes;
}

Value load_value(const std::filesystem::path& file, const ValueType& type, const ReadLimits& limits,
                 std::pmr::memory_resource* resource) {
  const std::string bytes = read_file(file, limits.max_file_bytes);
  return parse_value(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), type, file.string(), limits,
                     resource);
}

Value load_value(const std::filesystem::path& file, const ValueType& type, std::pmr::memory_resource* resource) {
  return load_value(file, type, ReadLimits{}, resource);
}

}  // namespace tseq::onnx
