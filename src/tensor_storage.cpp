// Tensor storage: the default memory resource, owned blocks (allocation, cache colouring,
// charges, destruction), adoption checks and the shared throw helpers.

#include "tseq/tensor.hpp"

#include "tseq/detail/checked.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <memory_resource>
#include <new>
#include <sstream>
#include <string>

namespace tseq {

namespace {
// ::operator new for the alignments tseq asks for (alignof(std::max_align_t)), the aligned
// form only beyond that.
class NewDeleteResource final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    if (align <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) return ::operator new(bytes);
    return ::operator new(bytes, std::align_val_t(align));
  }
  void do_deallocate(void* p, std::size_t, std::size_t align) override {
    // Unsized forms: clang does not enable sized deallocation by default.
    if (align <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
      ::operator delete(p);
    } else {
      ::operator delete(p, std::align_val_t(align));
    }
  }
  [[nodiscard]] bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }
};
}  // namespace

std::pmr::memory_resource* default_memory_resource() noexcept {
  static NewDeleteResource r;
  return &r;
}

namespace detail {

namespace {
constexpr std::size_t block_alignment = alignof(std::max_align_t);

// The charge slot of an owned block (ChargedResource): right after the header, present for
// string tensors and shapes past Shape::inline_rank when the resource counts charges.
constexpr std::size_t slot_bytes = sizeof(std::size_t);
ChargedResource* charging(std::pmr::memory_resource& r, DataType t, const Shape& s) noexcept {
  if (t != DataType::String && s.rank() <= Shape::inline_rank) return nullptr;
  return dynamic_cast<ChargedResource*>(&r);
}
std::size_t* slot_of(TensorStorage* p) noexcept {
  return reinterpret_cast<std::size_t*>(reinterpret_cast<std::byte*>(p) + sizeof(TensorStorage));
}
// Heap bytes a string holds besides its object (none for a short string stored inside it).
std::size_t heap_bytes(const std::string& x) noexcept {
  const auto* obj = reinterpret_cast<const char*>(&x);
  const bool inside = x.data() >= obj && x.data() < obj + sizeof(std::string);
  return inside ? 0 : x.capacity() + 1;
}

void destroy_owned(TensorStorage* p) noexcept {
  if (p->dtype == DataType::String) {
    auto* d = static_cast<std::string*>(p->data());
    for (std::size_t i = 0; i < p->count; ++i) d[i].~basic_string();
  }
  if (ChargedResource* c = charging(*p->resource, p->dtype, p->shape)) c->uncharge(*slot_of(p));
  std::pmr::memory_resource* r = p->resource;
  const std::size_t bytes = p->block_bytes;
  void* block = reinterpret_cast<std::byte*>(p) - p->block_offset;
  p->~TensorStorage();
  r->deallocate(block, bytes, block_alignment);
}

// Cache colouring of large blocks (TensorStorage::colours). Allocators hand out large blocks at
// one fixed offset of a page (glibc: 16 bytes past a page for a block it maps), so headers
// placed at the block's start would all share one page offset: one set of an L1 cache indexed
// by it (8 lines on the EPYC measured), which a leaf of 32 tensor handles overflows on every copy. The header
// instead starts at one of colours(payload) lines of the block, picked by a hash of its page.
constexpr std::size_t line = TensorStorage::line;
constexpr std::size_t most_slack = (TensorStorage::max_colours - 1) * line;
static_assert(most_slack <= std::numeric_limits<std::uint16_t>::max(), "block_offset holds any colour's offset");
static_assert((TensorStorage::colours(TensorStorage::colour_from) - 1) * line <=
                      TensorStorage::slack_bound(TensorStorage::colour_from) &&
                  most_slack <= TensorStorage::slack_bound(TensorStorage::max_colours * 32 * line),
              "the slack stays within slack_bound");
static_assert(sizeof(void*) != 8 || sizeof(TensorStorage) == 128, "block_offset sits in the header's padding");
std::size_t colour_of(const void* block, std::size_t n) noexcept {
  // The page number through splitmix64's finaliser: blocks at any constant distance get
  // unrelated colours (a multiplicative hash gave 32 blocks 187 pages apart a single colour).
  auto x = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(block) >> 12);
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return static_cast<std::size_t>(x % n);
}
}  // namespace

TensorStorage* TensorStorage::create(DataType t, Shape s, std::pmr::memory_resource* r) {
  const std::size_t elem = dtype_size(t);  // throws TypeError for an invalid t
  const auto n = static_cast<std::size_t>(s.num_elements());
  constexpr std::size_t header = TensorStorage::header_bytes();
  if (n > (std::numeric_limits<std::size_t>::max() - header - most_slack - slot_bytes) / elem) {
    throw ShapeError("shape " + to_string(s) + " is too large to allocate");
  }
  if (r == nullptr) r = default_memory_resource();
  ChargedResource* const charged = charging(*r, t, s);
  const std::size_t slot = charged != nullptr ? slot_bytes : 0;
  const std::size_t dims = s.rank() > Shape::inline_rank ? s.rank() * sizeof(std::int64_t) : 0;
  const std::size_t payload = n * elem;
  const std::size_t k = TensorStorage::colours(payload);
  const std::size_t bytes = header + slot + payload + (k - 1) * line;
  if (charged != nullptr && dims != 0) charged->charge(dims);  // before the block: a throw leaves nothing
  void* block = nullptr;
  try {
    block = r->allocate(bytes, block_alignment);
  } catch (...) {
    if (charged != nullptr && dims != 0) charged->uncharge(dims);
    throw;
  }
  const std::size_t offset = k == 1 ? 0 : colour_of(block, k) * line;
  void* p = static_cast<std::byte*>(block) + offset;
  void* data = static_cast<std::byte*>(p) + sizeof(TensorStorage) + slot;
  std::size_t space = alignment - 1 + payload;
  std::align(alignment, payload, data, space);  // cannot fail: `alignment - 1` bytes of slack
  auto* st = ::new (p) TensorStorage(t, std::move(s), n, data, Device{}, true, r, bytes, &destroy_owned);
  st->block_offset = static_cast<std::uint16_t>(offset);
  if (charged != nullptr) *slot_of(st) = dims;
  if (t == DataType::String) {
    auto* d = static_cast<std::string*>(st->data());
    for (std::size_t i = 0; i < n; ++i) ::new (static_cast<void*>(d + i)) std::string();
  } else if (n != 0) {
    std::memset(st->data(), 0, n * elem);  // zero is 0, 0.0, false, half 0 and complex 0
  }
  return st;
}

void charge_strings(TensorStorage& st) {
  if (st.destroy_ != &destroy_owned) return;
  ChargedResource* c = charging(*st.resource, st.dtype, st.shape);  // owned: never null
  if (c == nullptr) return;
  const auto* d = static_cast<const std::string*>(st.data());
  std::size_t chars = 0;
  for (std::size_t i = 0; i < st.count; ++i) chars += heap_bytes(d[i]);
  const std::size_t dims = st.shape.rank() > Shape::inline_rank ? st.shape.rank() * sizeof(std::int64_t) : 0;
  const std::size_t now = dims + chars;
  std::size_t& charged = *slot_of(&st);
  if (now > charged) {
    c->charge(now - charged);  // may throw: nothing changed yet
  } else {
    c->uncharge(charged - now);
  }
  charged = now;
}

std::size_t check_adopt(DataType t, const Shape& s, const void* data, Device device, std::string_view what) {
  const std::size_t elem = dtype_size(dtype_from_code(static_cast<std::int32_t>(t), what));
  if (t == DataType::String) {
    throw TypeError(std::string(what) +
                    ": string tensors cannot be adopted (their elements are std::string objects that tseq "
                    "must own); build them with Tensor::from_values");
  }
  if (!is_valid(device.type) || device.id < 0) {
    throw Error(std::string(what) + ": device " + to_string(device) +
                " is not a valid device (DLPack device type codes 1-4 and 7-16, id >= 0)");
  }
  const auto n = static_cast<std::size_t>(num_elements(s, std::string(what) + ": "));
  if (n > std::numeric_limits<std::size_t>::max() / elem) {
    throw ShapeError(std::string(what) + ": shape " + to_string(s) + " has more bytes than fit in memory");
  }
  if (data == nullptr && n != 0) {
    throw Error(std::string(what) + ": data is null but shape " + to_string(s) + " has " + std::to_string(n) +
                " elements");
  }
  const std::size_t align = dtype_alignment(t);
  if (device.is_host_readable() && reinterpret_cast<std::uintptr_t>(data) % align != 0) {
    std::ostringstream os;
    os << what << ": data " << data << " on " << to_string(device) << " is not aligned to " << align << " bytes, as "
       << dtype_name(t) << " elements need";
    throw Error(os.str());
  }
  return n;
}

void check_bool_bytes(const void* data, std::size_t n, std::string_view what, std::string_view hint) {
  const auto* b = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    if (b[i] > 1) {
      throw Error(std::string(what) + ": bool element " + std::to_string(i) + " holds the byte " +
                  std::to_string(b[i]) + "; a bool must be 0 or 1" + std::string(hint));
    }
  }
}

void throw_wrong_type(std::string_view what, DataType requested, DataType actual) {
  throw TypeError(std::string(what) + ": requested " + dtype_name(requested) + " but the tensor holds " +
                  dtype_name(actual));
}

void throw_count_mismatch(std::size_t given, const Shape& shape, std::size_t holds) {
  throw ShapeError("Tensor::from_values: " + std::to_string(given) + " values for shape " + to_string(shape) +
                   ", which holds " + std::to_string(holds));
}

void throw_overflow(std::string_view op, std::string_view what, std::int64_t a, char sym, std::int64_t b) {
  throw ShapeError(std::string(op) + ": " + std::string(what) + " overflows int64 (" + std::to_string(a) + " " + sym +
                   " " + std::to_string(b) + ")");
}

void throw_not_host(std::string_view op, std::string_view what, Device device) {
  throw DeviceError((op.empty() ? std::string() : std::string(op) + ": ") + std::string(what) + " is on " +
                    to_string(device) + "; tseq reads only host memory");
}

}  // namespace detail

}  // namespace tseq
