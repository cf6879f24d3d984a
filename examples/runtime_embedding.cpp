// A miniature runtime ("mrt") that owns its tensors: refcounted buffers carved out of one
// arena, each labelled with a device. It hands 10^5 of them to tseq, runs SequenceInsert /
// SequenceErase / SequenceAt chains on persistent sequences, takes its tensors back out
// (its own handles, through Tensor::owner) and checks, and prints:
//   - payload bytes copied: 0 (every tensor coming out points at the runtime's own buffer)
//   - one allocation per adopted tensor (its header), nothing proportional to payload size
//   - exactly 10^5 buffer releases, when the last sequence dies.
// Exits non-zero if any of that fails (ctest runs it).

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <random>
#include <utility>
#include <vector>

#include "tseq/ops.hpp"

// ---- counting every heap allocation of the process --------------------------------------------
namespace {
std::atomic<long> g_allocations{0};
std::atomic<std::size_t> g_bytes{0};
}  // namespace
void* operator new(std::size_t n) {
  ++g_allocations;
  g_bytes += n;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

// ---- the runtime's own tensor type ------------------------------------------------------------
namespace mrt {

struct Arena {
  std::vector<float> memory;
  std::atomic<long> released{0};  // buffers whose last reference went
};

struct Buffer {
  std::atomic<int> refs{1};
  float* data;
  Arena* arena;
};

// The runtime's refcounted handle. tseq holds one as the owner of each adopted tensor.
class BufferRef {
 public:
  explicit BufferRef(Buffer* b) noexcept : b_(b) {}
  BufferRef(const BufferRef& o) noexcept : b_(o.b_) { b_->refs.fetch_add(1, std::memory_order_relaxed); }
  BufferRef(BufferRef&& o) noexcept : b_(std::exchange(o.b_, nullptr)) {}
  BufferRef& operator=(BufferRef o) noexcept {
    std::swap(b_, o.b_);
    return *this;
  }
  ~BufferRef() {
    if (b_ != nullptr && b_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      b_->arena->released.fetch_add(1, std::memory_order_relaxed);
    }
  }
  float* data() const noexcept { return b_->data; }

 private:
  Buffer* b_;
};

struct Tensor {
  BufferRef buffer;
  std::int64_t length;
  tseq::Device device;
};

// Into tseq: no copy; the tseq tensor keeps a reference to the runtime's buffer.
tseq::Tensor to_tseq(const Tensor& t) {
  return tseq::Tensor::adopt(tseq::DataType::Float, tseq::Shape{t.length}, t.buffer.data(), t.device, t.buffer);
}

// Back out: the runtime's own handle, found in the tseq tensor.
Tensor from_tseq(const tseq::Tensor& t) {
  const BufferRef* ref = t.owner<BufferRef>();
  if (ref == nullptr) std::abort();  // not one of ours
  return Tensor{*ref, static_cast<std::int64_t>(t.size()), t.device()};
}

}  // namespace mrt

int main() {
  constexpr std::size_t n = 100000;
  constexpr std::int64_t len = 64;  // 256-byte payloads
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      std::printf("FAILED: %s\n", what);
      ++failures;
    }
  };

  mrt::Arena arena;
  arena.memory.assign(n * len, 1.0f);
  std::vector<mrt::Buffer> buffers(n);
  std::vector<mrt::Tensor> tensors;
  tensors.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    buffers[i].data = arena.memory.data() + i * len;
    buffers[i].arena = &arena;
    const tseq::Device d = i % 2 ? tseq::Device::cuda(0) : tseq::Device::cpu();  // half "on the GPU"
    tensors.push_back(mrt::Tensor{mrt::BufferRef(&buffers[i]), len, d});
  }

  std::vector<tseq::Tensor> adopted;
  adopted.reserve(n);
  const long a0 = g_allocations;
  const std::size_t b0 = g_bytes;
  for (const mrt::Tensor& t : tensors) adopted.push_back(mrt::to_tseq(t));
  const long adopt_allocs = g_allocations - a0;
  const std::size_t adopt_bytes = g_bytes - b0;
  tensors.clear();  // from here on tseq holds the only references

  const long c0 = g_allocations;
  const std::size_t c1 = g_bytes;
  std::size_t out_count = 0;
  std::size_t identical = 0;
  {
    namespace ops = tseq::ops;
    std::vector<tseq::TensorSequence> versions;
    versions.push_back(ops::sequence_construct(adopted));
    adopted.clear();
    std::mt19937_64 rng(7);
    for (int step = 0; step < 1000; ++step) {  // every version stays alive: persistent chains
      const tseq::TensorSequence& cur = versions.back();
      const auto size = static_cast<std::int64_t>(cur.size());
      const tseq::Tensor picked = ops::sequence_at(cur, static_cast<std::int64_t>(rng() % cur.size()));
      tseq::TensorSequence next = ops::sequence_erase(cur, static_cast<std::int64_t>(rng() % cur.size()) - size);
      next = ops::sequence_insert(next, picked, static_cast<std::int64_t>(rng() % (next.size() + 1)));
      versions.push_back(std::move(next));
    }
    // Take every tensor of the last version back out as the runtime's own tensor.
    std::vector<mrt::Tensor> out;
    out.reserve(versions.back().size());
    for (const tseq::Tensor& t : versions.back()) {
      mrt::Tensor m = mrt::from_tseq(t);
      identical += m.buffer.data() == t.data() && t.data() >= arena.memory.data() &&
                   t.data() < arena.memory.data() + arena.memory.size();
      out.push_back(std::move(m));
    }
    out_count = out.size();
    check(arena.released == 0, "no buffer released while sequences hold it");
  }
  const long chain_allocs = g_allocations - c0;
  const std::size_t chain_bytes = g_bytes - c1;

  std::printf("adopted %zu runtime tensors of %lld bytes: %ld allocations (%.2f per tensor), %zu bytes\n", n,
              static_cast<long long>(len * 4), adopt_allocs, static_cast<double>(adopt_allocs) / n, adopt_bytes);
  std::printf(
      "1000 persistent at/erase/insert steps, all versions kept, then %zu tensors taken back out: "
      "%ld allocations, %zu bytes\n",
      out_count, chain_allocs, chain_bytes);
  std::printf("tensors handed back pointing at the runtime's own buffer: %zu of %zu\n", identical, out_count);
  std::printf("payload bytes copied: %zu\n", out_count - identical);
  std::printf("buffer releases after the last sequence died: %ld (expected %zu)\n", arena.released.load(), n);

  check(adopt_allocs <= static_cast<long>(n), "at most one allocation per adopted tensor");
  check(adopt_bytes < n * static_cast<std::size_t>(len) * 4, "adoption allocated less than the payloads' size");
  check(identical == out_count && out_count == n, "every pointer identical on the way out");
  check(arena.released == static_cast<long>(n), "exactly one release per buffer");
  return failures == 0 ? 0 : 1;
}
