#pragma once

// Counting and failure injection for global operator new, for tests that link tseq_alloc_hook.
// Counters are per thread, so gtest's own threads (if any) do not disturb them. While a
// count_allocations or fail_allocation_at is alive, the calling thread's node cache is off
// (tseq/detail/node_cache.hpp), so that every node is allocated through operator new.

#include <cstddef>

namespace tseq_test {

struct alloc_stats {
  long allocations = 0;
  long deallocations = 0;
  std::size_t bytes = 0;
};

// Counts of the calling thread since the last reset.
alloc_stats current_alloc_stats() noexcept;
void reset_alloc_stats() noexcept;

// While alive: the k-th allocation (1-based) on this thread from now on throws std::bad_alloc.
class fail_allocation_at {
 public:
  explicit fail_allocation_at(long k) noexcept;
  ~fail_allocation_at();
  fail_allocation_at(const fail_allocation_at&) = delete;
  fail_allocation_at& operator=(const fail_allocation_at&) = delete;
  // True if the failure was injected.
  bool fired() const noexcept;

 private:
  bool cache_was_on_;
};

// Counts allocations made by the calling thread while alive.
class count_allocations {
 public:
  count_allocations() noexcept;
  ~count_allocations();
  count_allocations(const count_allocations&) = delete;
  count_allocations& operator=(const count_allocations&) = delete;
  alloc_stats delta() const noexcept;

 private:
  bool cache_was_on_;
  alloc_stats start_;
};

}  // namespace tseq_test
