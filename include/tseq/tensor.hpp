#pragma once

/// @file
/// tseq::Tensor: an immutable, reference-counted tensor of one of the 15 ONNX element types
/// that sequences may hold (tseq/dtype.hpp). A tensor either owns its payload
/// (allocated by tseq from a std::pmr::memory_resource) or adopts memory that a runtime owns
/// (Tensor::adopt, tseq/dlpack.hpp), on any device. docs/embedding.md states the ownership rules.
/// Eigen views of a payload: tseq/eigen.hpp (this header does not include Eigen).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory_resource>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tseq/detail/intrusive_ref.hpp"
#include "tseq/device.hpp"
#include "tseq/dtype.hpp"
#include "tseq/error.hpp"

namespace tseq {

/// The memory resource tseq allocates payloads from when a caller passes none (nullptr):
/// plain ::operator new / ::operator delete. Never null; thread-safe.
[[nodiscard]] std::pmr::memory_resource* default_memory_resource() noexcept;

/// Dimensions of a tensor: rank 0 is a scalar; zero-size dimensions are allowed. Up to six
/// dimensions are stored inline.
class Shape {
 public:
  /// Dimensions stored in the Shape itself; more take one allocation.
  static constexpr std::size_t inline_rank = 6;

  /// A scalar's shape (rank 0).
  Shape() noexcept = default;
  /// The given dimensions, outermost first. Not validated until num_elements() is asked.
  Shape(std::initializer_list<std::int64_t> dims) : Shape(std::span<const std::int64_t>(dims.begin(), dims.size())) {}
  explicit Shape(std::span<const std::int64_t> dims) { assign(dims.data(), dims.size()); }
  Shape(const Shape& o) { assign(o.data(), o.rank_); }
  Shape(Shape&& o) noexcept : rank_(o.rank_), heap_(std::exchange(o.heap_, nullptr)) {
    for (std::size_t k = 0; k < inline_rank; ++k) inline_[k] = o.inline_[k];
    o.rank_ = 0;
  }
  Shape& operator=(const Shape& o) {
    if (this != &o) {
      Shape t(o);
      swap(t);
    }
    return *this;
  }
  Shape& operator=(Shape&& o) noexcept {
    Shape t(std::move(o));
    swap(t);
    return *this;
  }
  ~Shape() { delete[] heap_; }
  void swap(Shape& o) noexcept {
    std::swap(rank_, o.rank_);
    std::swap(heap_, o.heap_);
    for (std::size_t k = 0; k < inline_rank; ++k) std::swap(inline_[k], o.inline_[k]);
  }

  /// Number of dimensions. O(1).
  [[nodiscard]] std::size_t rank() const noexcept { return rank_; }
  /// Dimension i; precondition i < rank().
  [[nodiscard]] std::int64_t operator[](std::size_t i) const noexcept { return data()[i]; }
  /// All dimensions. The span lives as long as this Shape (or the tensor holding it).
  [[nodiscard]] std::span<const std::int64_t> dims() const noexcept { return {data(), rank_}; }
  [[nodiscard]] const std::int64_t* begin() const noexcept { return data(); }
  [[nodiscard]] const std::int64_t* end() const noexcept { return data() + rank_; }

  /// Product of the dims (1 for a scalar). Throws ShapeError for a negative dim or overflow.
  [[nodiscard]] std::int64_t num_elements() const;

  /// Copy with `d` inserted before axis i / with axis i removed / with axis i set to d.
  [[nodiscard]] Shape inserted(std::size_t i, std::int64_t d) const;
  [[nodiscard]] Shape removed(std::size_t i) const;
  [[nodiscard]] Shape with(std::size_t i, std::int64_t d) const;

  friend bool operator==(const Shape& a, const Shape& b) noexcept {
    if (a.rank_ != b.rank_) return false;
    for (std::size_t k = 0; k < a.rank_; ++k) {
      if (a[k] != b[k]) return false;
    }
    return true;
  }

 private:
  std::size_t rank_ = 0;
  std::int64_t* heap_ = nullptr;  // the dims when rank_ > inline_rank
  std::int64_t inline_[inline_rank] = {};

  [[nodiscard]] const std::int64_t* data() const noexcept { return heap_ != nullptr ? heap_ : inline_; }
  [[nodiscard]] std::int64_t* data() noexcept { return heap_ != nullptr ? heap_ : inline_; }
  // Storage for n dims (this Shape is empty); the dims are then written through data().
  void allocate(std::size_t n) {
    if (n > inline_rank) heap_ = new std::int64_t[n];
    rank_ = n;
  }
  void assign(const std::int64_t* d, std::size_t n) {
    allocate(n);
    std::int64_t* out = data();
    for (std::size_t k = 0; k < n; ++k) out[k] = d[k];
  }
};

/// "[2, 3]"; "[]" for a scalar.
[[nodiscard]] std::string to_string(const Shape& s);
std::ostream& operator<<(std::ostream& os, const Shape& s);

namespace detail {

// A memory resource that also counts memory a tensor holds outside its block: the characters
// of string elements (std::string's own allocations) and a shape's dims past
// Shape::inline_rank. An owned block from such a resource has an 8-byte charge slot after its
// header (string tensors and shapes past inline_rank only) holding what was charged for it;
// create() charges the dims, TensorBuffer::freeze() the characters (the change since the last
// freeze), and the block's destruction releases the slot's amount. The executor's run budget
// (max_run_bytes) is one; other resources see no difference.
class ChargedResource : public std::pmr::memory_resource {
 public:
  // Counts `bytes` more; throws (a tseq::Error naming the limit) if that passes a limit.
  virtual void charge(std::size_t bytes) = 0;
  virtual void uncharge(std::size_t bytes) noexcept = 0;
};

// The shared header of a payload. Two kinds:
//  - owned: one block from `resource` holding this header, then the elements at the next
//    64-byte boundary (plain allocation plus slack: an aligned operator new costs about 4x
//    more here); destroy_ = destroy_owned. In a large block the header starts block_offset
//    bytes in, a multiple of 64 that varies from block to block (cache colouring: allocators
//    hand out large blocks at one offset of a page, which would put every large tensor's
//    count in one set of the L1 cache; docs/design.md, section 6).
//  - adopted: an AdoptedStorage<Owner> (one `new`) whose data_ points into memory the owner
//    keeps alive; resource == nullptr; destroy_ runs ~Owner on the thread dropping the last
//    handle.
// Invariants: refs counts Tensor/TensorBuffer handles; count == shape.num_elements();
// data_ != nullptr when count > 0; a host-readable payload is aligned for its element type.
struct TensorStorage {
  static constexpr std::size_t alignment = 64;
  using destroy_fn = void (*)(TensorStorage*) noexcept;

  // Cache colouring (create(); docs/design.md, section 6): an owned payload of colour_from
  // bytes or more starts its header at one of colours(payload) lines of its block, which has
  // (colours - 1) lines of slack: never more than slack_bound(payload).
  static constexpr std::size_t line = 64;
  static constexpr std::size_t colour_from = 16384;
  static constexpr std::size_t max_colours = 64;  // a whole 4 KiB page of offsets
  static constexpr std::size_t colours(std::size_t payload) noexcept {
    if (payload < colour_from) return 1;
    return payload / (32 * line) < max_colours ? payload / (32 * line) : max_colours;
  }
  static constexpr std::size_t slack_bound(std::size_t payload) noexcept { return payload / 32; }
  // Bytes of an owned block besides its payload and the slack: this header and up to
  // alignment - 1 bytes before the payload. A block takes header_bytes() + payload +
  // (colours(payload) - 1) * line.
  static constexpr std::size_t header_bytes() noexcept { return sizeof(TensorStorage) + alignment - 1; }

  std::atomic<std::size_t> refs{1};
  DataType dtype;
  Device device;
  bool writable;                   // the payload may be handed out for writing when refs == 1 (into_buffer)
  std::uint16_t block_offset = 0;  // owned: bytes of the block before this header (k * line, k < colours); else 0
  Shape shape;
  std::size_t count;
  void* data_;
  std::pmr::memory_resource* resource;  // owned: where the block came from; adopted: nullptr
  std::size_t block_bytes;              // owned: size of the block
  destroy_fn destroy_;

  TensorStorage(DataType t, Shape s, std::size_t n, void* d, Device dev, bool w, std::pmr::memory_resource* r,
                std::size_t bytes, destroy_fn destroy) noexcept
      : dtype(t),
        device(dev),
        writable(w),
        shape(std::move(s)),
        count(n),
        data_(d),
        resource(r),
        block_bytes(bytes),
        destroy_(destroy) {}

  [[nodiscard]] void* data() const noexcept { return data_; }  // writable only through a TensorBuffer

  // Value-initialised elements (zeros, false, empty strings), allocated from r (nullptr: the
  // default resource). Throws ShapeError for a bad or too large shape, TypeError for a bad t.
  static TensorStorage* create(DataType t, Shape s, std::pmr::memory_resource* r);

  friend void intrusive_ptr_add_ref(TensorStorage* p) noexcept { p->refs.fetch_add(1, std::memory_order_relaxed); }
  friend void intrusive_ptr_release(TensorStorage* p) noexcept {
    if (p->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) p->destroy_(p);
  }
};

template <class Owner>
struct AdoptedStorage final : TensorStorage {
  Owner owner;

  template <class O>
  AdoptedStorage(DataType t, Shape s, std::size_t n, void* d, Device dev, bool w, O&& o)
      : TensorStorage(t, std::move(s), n, d, dev, w, nullptr, 0, &destroy), owner(std::forward<O>(o)) {}

  static void destroy(TensorStorage* p) noexcept { delete static_cast<AdoptedStorage*>(p); }
};

// What Tensor::adopt accepts as an owner: any object but a raw pointer or a function (which
// would own nothing; the C form takes a release callback instead).
template <class O>
concept payload_owner = !std::is_pointer_v<std::decay_t<O>> && !std::is_null_pointer_v<std::decay_t<O>> &&
                        !std::is_function_v<std::remove_reference_t<O>>;

// The C form of an owner: calls release(context) once, when destroyed (unless moved from).
struct CallbackOwner {
  void (*release)(void*);
  void* context;
  CallbackOwner(void (*r)(void*), void* c) noexcept : release(r), context(c) {}
  CallbackOwner(CallbackOwner&& o) noexcept : release(std::exchange(o.release, nullptr)), context(o.context) {}
  CallbackOwner(const CallbackOwner&) = delete;
  CallbackOwner& operator=(const CallbackOwner&) = delete;
  CallbackOwner& operator=(CallbackOwner&&) = delete;
  ~CallbackOwner() {
    if (release != nullptr) release(context);
  }
};

// Brings a string tensor's charge (ChargedResource) up to date with its characters. O(n).
void charge_strings(TensorStorage& s);

// Validates an adoption; returns the element count. Throws TypeError (string or bad dtype),
// ShapeError (bad shape), Error (null data with elements, misaligned host data, bad device).
std::size_t check_adopt(DataType t, const Shape& s, const void* data, Device device, std::string_view what);
// Bool elements must be the bytes 0 and 1 (any other byte read as a C++ bool is undefined):
// Error "what: bool element I holds the byte B; a bool must be 0 or 1<hint>". O(n).
void check_bool_bytes(const void* data, std::size_t n, std::string_view what, std::string_view hint = {});
// Bool element i of a host-readable payload, read as its byte (nonzero: true): defined for
// any byte an adopted payload holds. Precondition: i < the element count.
[[nodiscard]] inline bool bool_byte(const void* data, std::size_t i) noexcept {
  return static_cast<const unsigned char*>(data)[i] != 0;
}

// s.num_elements(), its ShapeError prefixed with `prefix` ("SplitToSequence: the result's ").
std::int64_t num_elements(const Shape& s, std::string_view prefix);

[[noreturn]] void throw_wrong_type(std::string_view what, DataType requested, DataType actual);
[[noreturn]] void throw_count_mismatch(std::size_t given, const Shape& shape, std::size_t holds);
// DeviceError "op: what is on D; tseq reads only host memory" (no "op: " when op is empty).
[[noreturn]] void throw_not_host(std::string_view op, std::string_view what, Device device);

}  // namespace detail

class TensorBuffer;

namespace detail {
struct tensor_access;  // the checked element views of tseq/eigen.hpp
}  // namespace detail

/// Whether an adopted payload may be written by tseq's user once it is the sole owner
/// (Tensor::into_buffer hands such memory out instead of copying it).
enum class Access : std::uint8_t {
  read_only,  ///< the memory is never written through tseq; into_buffer copies it
  writable,   ///< into_buffer on the only handle returns this memory for writing
};

/// An immutable tensor. Copying a Tensor shares its payload (one atomic increment); nothing
/// can change the payload once a Tensor exists. The default-constructed Tensor is an empty
/// float tensor of shape [0] on the host.
///
/// The payload is either tseq's own (from_values, TensorBuffer, the operators: host memory
/// from a std::pmr::memory_resource) or adopted from its owner (adopt, from_dlpack: any
/// device, never copied). Views of the elements (values, value, raw_data, tseq/eigen.hpp) and
/// everything that reads them throw DeviceError unless device().is_host_readable().
class Tensor {
 public:
  Tensor() noexcept = default;

  /// A tensor of `shape` holding `values` (row-major), allocated from `resource` (nullptr:
  /// default_memory_resource()), which must outlive the tensor. O(n) copy, one allocation.
  /// Throws ShapeError if the element count does not match the shape.
  template <class T>
  [[nodiscard]] static Tensor from_values(Shape shape, std::span<const T> values,
                                          std::pmr::memory_resource* resource = nullptr);
  template <class T>
  [[nodiscard]] static Tensor from_values(Shape shape, const std::vector<T>& values,
                                          std::pmr::memory_resource* resource = nullptr) {
    if constexpr (std::is_same_v<T, bool>) {  // vector<bool> is not contiguous
      const std::vector<char> tmp(values.begin(), values.end());
      return from_bools(std::move(shape), tmp, resource);
    } else {
      return from_values<T>(std::move(shape), std::span<const T>(values.data(), values.size()), resource);
    }
  }
  template <class T>
  [[nodiscard]] static Tensor from_values(Shape shape, std::initializer_list<T> values,
                                          std::pmr::memory_resource* resource = nullptr) {
    return from_values<T>(std::move(shape), std::span<const T>(values.begin(), values.size()), resource);
  }
  /// A rank-0 tensor holding v (allocated from `resource`, nullptr: the default).
  template <class T>
  [[nodiscard]] static Tensor scalar(T v, std::pmr::memory_resource* resource = nullptr) {
    return from_values<T>(Shape{}, std::span<const T>(&v, 1), resource);
  }

  /// Adopts memory the caller's runtime owns: a tensor of `dtype` and `shape` whose elements
  /// (row-major, compact) start at `data` on `device`. O(1): no payload copy, exactly one
  /// small allocation (the tensor header, which holds `owner`).
  ///
  /// `owner` is any object that keeps the memory alive (a std::shared_ptr<void>, an arena
  /// lease, a framework's tensor handle); it is moved (or copied, if an lvalue) into the
  /// header and destroyed exactly once, when the last Tensor/TensorBuffer sharing the
  /// payload goes, on whichever thread drops that handle. Its move constructor must not
  /// throw; it must not be a raw pointer (which would own nothing).
  ///
  /// `data` may be null only when the shape has no elements. On a host-readable device it
  /// must be aligned for the element type (64-byte alignment is not needed). With
  /// Access::writable, into_buffer() on the only handle returns this memory for writing.
  ///
  /// Bool payloads: every byte must be 0 or 1 (a C++ bool holding another byte is undefined
  /// behaviour). adopt does not scan the payload (O(1)); tseq's own readers (to_string, equal,
  /// the executor) read bool elements as bytes (nonzero is true), but values<bool>() hands the
  /// memory to the caller as bool. Check foreign memory with a scan first, as the Python and
  /// torch bridges do.
  ///
  /// Throws TypeError for a string dtype (string payloads are std::string objects that tseq
  /// owns) or an invalid dtype, ShapeError for a negative dim or a size that overflows, Error
  /// for null data with elements, misaligned host data, or an unknown device; std::bad_alloc
  /// if the header cannot be allocated. On any throw `owner` is left untouched: the caller
  /// still owns the memory.
  template <detail::payload_owner Owner>
  [[nodiscard]] static Tensor adopt(DataType dtype, Shape shape, const void* data, Device device, Owner&& owner,
                                    Access access = Access::read_only) {
    using O = std::decay_t<Owner>;
    static_assert(std::is_nothrow_move_constructible_v<O>, "an owner's move constructor must not throw");
    static_assert(std::is_nothrow_destructible_v<O>, "an owner's destructor must not throw");
    const std::size_t n = detail::check_adopt(dtype, shape, data, device, "Tensor::adopt");
    return Tensor(detail::intrusive_ref<detail::TensorStorage>(
        new detail::AdoptedStorage<O>(dtype, std::move(shape), n, const_cast<void*>(data), device,
                                      access == Access::writable, std::forward<Owner>(owner)),
        false));
  }

  /// The C form of adopt: `release(context)` is called exactly once, when the last handle
  /// goes (never if adopt throws: then the caller still owns the memory). `release` may be
  /// null (nothing to release).
  [[nodiscard]] static Tensor adopt(DataType dtype, Shape shape, const void* data, Device device,
                                    void (*release)(void* context), void* context, Access access = Access::read_only);

  /// Element type. O(1).
  [[nodiscard]] DataType dtype() const noexcept { return s_ ? s_->dtype : DataType::Float; }
  /// Dimensions. O(1). The reference lives as long as any handle to this payload.
  [[nodiscard]] const Shape& shape() const noexcept;
  /// Number of dimensions. O(1).
  [[nodiscard]] std::size_t rank() const noexcept { return shape().rank(); }
  /// Number of elements (product of dims). O(1).
  [[nodiscard]] std::size_t size() const noexcept { return s_ ? s_->count : 0; }
  /// Where the payload lives. O(1). Host (cpu:0) for every tensor tseq creates.
  [[nodiscard]] Device device() const noexcept { return s_ ? s_->device : Device{}; }
  /// The first element, on any device (an opaque handle on some); null for an empty
  /// default-constructed tensor. Reading through it on a device that is not host-readable is
  /// the caller's business. O(1), never throws.
  [[nodiscard]] const void* data() const noexcept { return raw(); }
  /// True if the payload was adopted (adopt, from_dlpack) rather than allocated by tseq.
  [[nodiscard]] bool is_adopted() const noexcept { return s_ && s_->resource == nullptr; }
  /// The owner an adopted payload was given, if it was adopted with an owner of exactly type
  /// Owner (after decay); nullptr otherwise. How a runtime gets its own handle back from a
  /// tensor that went through tseq. O(1); lives as long as any handle to this payload.
  template <class Owner>
  [[nodiscard]] const Owner* owner() const noexcept {
    if (!s_ || s_->destroy_ != &detail::AdoptedStorage<Owner>::destroy) return nullptr;
    return &static_cast<const detail::AdoptedStorage<Owner>*>(s_.get())->owner;
  }
  /// The resource a tseq-owned payload was allocated from; nullptr for an adopted payload
  /// and for the default-constructed tensor.
  [[nodiscard]] std::pmr::memory_resource* memory_resource() const noexcept { return s_ ? s_->resource : nullptr; }

  /// The elements, row-major. Throws TypeError if T is not the tensor's element type,
  /// DeviceError if the payload is not host-readable. The span lives as long as any handle
  /// to this payload.
  template <class T>
  [[nodiscard]] std::span<const T> values() const {
    check_readable<T>("Tensor::values");
    return {static_cast<const T*>(raw()), size()};
  }
  /// Element i of the flat, row-major payload (checked type and device, unchecked index).
  template <class T>
  [[nodiscard]] const T& value(std::size_t i) const {
    return values<T>()[i];
  }

  /// The payload bytes (little-endian, row-major). Throws TypeError for string tensors, whose
  /// elements are std::string objects; DeviceError if not host-readable.
  [[nodiscard]] std::span<const std::byte> raw_data() const;

  /// Turns this tensor into a writable buffer, consuming the handle (*this is left empty).
  /// If this is the only handle and the payload is tseq's own or adopted Access::writable:
  /// O(1), the same memory (and owner), no allocation. Otherwise a copy of the elements in
  /// a new buffer from `resource` (nullptr: the default); the other handles keep the
  /// original. Throws DeviceError when a copy is needed and the payload is not host-readable
  /// (tseq copies only host memory), std::bad_alloc if the copy cannot be allocated (then
  /// *this is unchanged).
  [[nodiscard]] TensorBuffer into_buffer(std::pmr::memory_resource* resource = nullptr) &&;

  /// True if both are handles of one payload (one is a copy of the other): O(1) identity,
  /// not value equality (see tseq::equal).
  [[nodiscard]] bool identical_to(const Tensor& o) const noexcept { return s_ == o.s_; }

  /// Number of Tensor handles sharing this payload (for tests and diagnostics).
  [[nodiscard]] std::size_t use_count() const noexcept { return s_ ? s_->refs.load(std::memory_order_relaxed) : 0; }

 private:
  friend class TensorBuffer;
  friend struct detail::tensor_access;
  detail::intrusive_ref<detail::TensorStorage> s_;

  explicit Tensor(detail::intrusive_ref<detail::TensorStorage> s) noexcept : s_(std::move(s)) {}
  [[nodiscard]] const void* raw() const noexcept { return s_ ? s_->data() : nullptr; }
  static Tensor from_bools(Shape shape, std::span<const char> values, std::pmr::memory_resource* resource);

  template <class T>
  void check_readable(std::string_view what) const {
    static_assert(is_element_type<T>, "T must be one of the 15 ONNX sequence element types");
    if (dtype_of<T> != dtype()) detail::throw_wrong_type(what, dtype_of<T>, dtype());
    if (s_ && !s_->device.is_host_readable()) detail::throw_not_host(what, "the tensor", s_->device);
  }
};

/// Builds a new tensor: a mutable buffer of value-initialised elements, frozen into a Tensor.
/// Also what Tensor::into_buffer returns (then possibly adopted or device memory).
class TensorBuffer {
 public:
  /// Allocates shape.num_elements() elements of type t on the host, from `resource`
  /// (nullptr: default_memory_resource()), which must outlive the buffer and every tensor
  /// frozen from it. One allocation. Throws ShapeError for a bad shape, TypeError for an
  /// invalid t, whatever the resource throws (std::bad_alloc) when it cannot allocate.
  TensorBuffer(DataType t, Shape shape, std::pmr::memory_resource* resource = nullptr);

  [[nodiscard]] DataType dtype() const noexcept { return s_->dtype; }
  [[nodiscard]] const Shape& shape() const noexcept { return s_->shape; }
  [[nodiscard]] std::size_t size() const noexcept { return s_->count; }
  [[nodiscard]] Device device() const noexcept { return s_->device; }
  /// The first element, writable, on any device.
  [[nodiscard]] void* data() noexcept { return s_->data(); }

  /// The elements, writable. Throws TypeError if T is not the element type, DeviceError if
  /// the memory is not host-readable.
  template <class T>
  [[nodiscard]] std::span<T> values() {
    if (dtype_of<T> != dtype()) detail::throw_wrong_type("TensorBuffer::values", dtype_of<T>, dtype());
    if (!s_->device.is_host_readable()) detail::throw_not_host("TensorBuffer::values", "the buffer", s_->device);
    return {static_cast<T*>(data()), size()};
  }

  /// The finished tensor; the buffer is left empty.
  ///
  /// Throws only for a string buffer from the executor's run budget whose characters pass
  /// max_run_bytes (the buffer is then unchanged).
  [[nodiscard]] Tensor freeze() && {
    if (s_ && s_->dtype == DataType::String) detail::charge_strings(*s_);
    return Tensor(std::move(s_));
  }

 private:
  friend class Tensor;
  explicit TensorBuffer(detail::intrusive_ref<detail::TensorStorage> s) noexcept : s_(std::move(s)) {}
  detail::intrusive_ref<detail::TensorStorage> s_;
};

template <class T>
Tensor Tensor::from_values(Shape shape, std::span<const T> values, std::pmr::memory_resource* resource) {
  static_assert(is_element_type<T>, "T must be one of the 15 ONNX sequence element types");
  TensorBuffer b(dtype_of<T>, std::move(shape), resource);
  if (b.size() != values.size()) detail::throw_count_mismatch(values.size(), b.shape(), b.size());
  auto out = b.values<T>().begin();
  for (const T& v : values) *out++ = v;
  return std::move(b).freeze();
}

/// Value equality: same dtype, same shape, every element equal (NaN is never equal). Throws
/// DeviceError if a payload to compare is not host-readable.
[[nodiscard]] bool equal(const Tensor& a, const Tensor& b);

/// "float[2, 3]{-1, 0, 1.5, ...}" with at most `max_values` values. Throws DeviceError for a
/// payload that is not host-readable.
[[nodiscard]] std::string to_string(const Tensor& t, std::size_t max_values = 8);
std::ostream& operator<<(std::ostream& os, const Tensor& t);

/// The single value of a one-element int32/int64 tensor (rank 0, [1], [1, 1], ...) as int64.
/// Throws TypeError for another dtype, ShapeError for another element count and DeviceError
/// for a payload that is not host-readable; messages start with `op` and name `what`.
[[nodiscard]] std::int64_t to_index(const Tensor& t, std::string_view op, std::string_view what);

}  // namespace tseq
