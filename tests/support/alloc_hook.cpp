#include "support/alloc_hook.hpp"

#include <cstdlib>
#include <new>

#include "tseq/detail/node_cache.hpp"

namespace {
thread_local tseq_test::alloc_stats stats;
thread_local long fail_countdown = 0;  // 0: off; otherwise allocations left before the failure
thread_local bool failure_fired = false;

void* counted_alloc(std::size_t n, std::size_t align) {
  if (fail_countdown > 0 && --fail_countdown == 0) {
    failure_fired = true;
    throw std::bad_alloc();
  }
  if (n == 0) n = 1;
  void* p = nullptr;
  if (align <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
    p = std::malloc(n);
  } else {
    p = std::aligned_alloc(align, (n + align - 1) / align * align);
  }
  if (p == nullptr) throw std::bad_alloc();
  ++stats.allocations;
  stats.bytes += n;
  return p;
}

void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  ++stats.deallocations;
  std::free(p);
}
}  // namespace

namespace tseq_test {
alloc_stats current_alloc_stats() noexcept { return stats; }
void reset_alloc_stats() noexcept { stats = {}; }
fail_allocation_at::fail_allocation_at(long k) noexcept : cache_was_on_(tseq::detail::set_node_cache_enabled(false)) {
  fail_countdown = k;
  failure_fired = false;
}
fail_allocation_at::~fail_allocation_at() {
  fail_countdown = 0;
  tseq::detail::set_node_cache_enabled(cache_was_on_);
}
bool fail_allocation_at::fired() const noexcept { return failure_fired; }
count_allocations::count_allocations() noexcept
    : cache_was_on_(tseq::detail::set_node_cache_enabled(false)), start_(stats) {}
count_allocations::~count_allocations() { tseq::detail::set_node_cache_enabled(cache_was_on_); }
alloc_stats count_allocations::delta() const noexcept {
  return {stats.allocations - start_.allocations, stats.deallocations - start_.deallocations,
          stats.bytes - start_.bytes};
}
}  // namespace tseq_test

void* operator new(std::size_t n) { return counted_alloc(n, 0); }
void* operator new[](std::size_t n) { return counted_alloc(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_alloc(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_alloc(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted_alloc(n, 0);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted_alloc(n, 0);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
