#pragma once

// A per-thread cache of freed node blocks. A persistent update allocates a few nodes and, in a
// loop, frees as many when the previous version dies; a bulk build allocates one leaf per B
// elements and a bulk destroy frees them all. Served from this cache, such an allocation is a
// pop from a singly linked list instead of a call into malloc (which glibc serves from a
// 7-entry per-size cache, then from its bins). Design and measurements: docs/design.md,
// "Node cache".
//
// Invariants:
// - Blocks are kept per size class of 8 bytes, up to max_block bytes. Every cacheable request
//   is rounded up to its class both when it is allocated and when it is freed (node sizes are
//   multiples of 8: see round_up), so any block of class k serves any request of k.
// - The cache of a thread holds at most TSEQ_NODE_CACHE_BYTES. A full cache makes room for a
//   freed block by freeing blocks of other classes (the first non-empty ones after a rotating
//   cursor, found with a bit per class), so that a cache one workload filled with its sizes (a
//   bulk destroy) adapts to the sizes the next one frees. A block that cannot fit even so goes
//   to operator delete.
// - A thread's cache is emptied when the thread exits; from then on (and while disabled) every
//   free goes straight to operator delete. A cache that is not accepting is empty, so the
//   allocation path needs no flag test.
// - Blocks are memory from the global operator new: a block allocated by one thread may be
//   cached by another.
// Under AddressSanitizer a cached block is poisoned, so a use after free of a node is still
// reported while its block waits in the cache.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define TSEQ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TSEQ_ASAN 1
#endif
#endif
#if defined(TSEQ_ASAN)
#include <sanitizer/asan_interface.h>
#define TSEQ_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define TSEQ_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define TSEQ_POISON(p, n) ((void)(p), (void)(n))
#define TSEQ_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/// Bytes of freed tree nodes each thread may keep for reuse (docs/embedding.md, "Allocators").
/// 0 turns the cache off: every node is then allocated and freed through the global operator
/// new and delete. Must be the same in every translation unit of a program.
#ifndef TSEQ_NODE_CACHE_BYTES
#define TSEQ_NODE_CACHE_BYTES (std::size_t{256} * 1024)
#endif

namespace tseq::detail {

struct node_cache {
  static constexpr std::size_t granule = 8;
  static constexpr std::size_t max_block = 1024;
  static constexpr std::size_t classes = max_block / granule;  // class k in 1..classes: 8k bytes
  static constexpr std::size_t words = classes / 64;
  static constexpr std::size_t budget = TSEQ_NODE_CACHE_BYTES;
  static_assert(classes % 64 == 0);

  static constexpr std::uint8_t armed = 1;     // the thread-exit release is registered
  static constexpr std::uint8_t disabled = 2;  // set_node_cache_enabled(false) on this thread
  static constexpr std::uint8_t exiting = 4;   // the thread's exit release has run

  struct free_block {
    free_block* next;
  };

  free_block* head[classes + 1];
  std::uint64_t filled[words];  // bit k-1: head[k] is not empty
  std::size_t held;             // bytes in the lists
  std::size_t cursor;           // where the next eviction starts looking (class - 1)
  std::uint8_t state;

  // Node sizes are rounded up to this (leaf_node::bytes and the others).
  static constexpr std::size_t round_up(std::size_t bytes) noexcept {
    return (bytes + granule - 1) / granule * granule;
  }

  // The size class of a request of `bytes`, or 0 if it is not cacheable.
  static constexpr std::size_t class_of(std::size_t bytes) noexcept {
    return budget > 0 && bytes <= max_block ? round_up(bytes) / granule : 0;
  }

  static constexpr std::uint64_t bit(std::size_t k) noexcept { return std::uint64_t{1} << ((k - 1) % 64); }

  void* pop(std::size_t k) noexcept {
    free_block* b = head[k];
    if (b == nullptr) return nullptr;
    TSEQ_UNPOISON(b, sizeof(free_block));
    head[k] = b->next;
    if (b->next == nullptr) filled[(k - 1) / 64] &= ~bit(k);
    held -= k * granule;
    TSEQ_UNPOISON(b, k * granule);
    return b;
  }

  void push(std::size_t k, void* p) noexcept {
    auto* f = static_cast<free_block*>(p);
    f->next = head[k];
    if (head[k] == nullptr) filled[(k - 1) / 64] |= bit(k);
    head[k] = f;
    held += k * granule;
    TSEQ_POISON(p, k * granule);
  }

  // A non-empty class other than k, the first at or after the cursor (wrapping), or 0.
  std::size_t victim(std::size_t k) noexcept {
    const std::size_t first = cursor / 64;
    for (std::size_t step = 0; step <= words; ++step) {
      const std::size_t w = (first + step) % words;
      std::uint64_t m = filled[w];
      if (w == (k - 1) / 64) m &= ~bit(k);
      if (step == 0) m &= ~std::uint64_t{0} << (cursor % 64);  // bits before the cursor come last
      if (m != 0) {
        const std::size_t v = w * 64 + static_cast<std::size_t>(std::countr_zero(m));
        cursor = (v + 1) % classes;
        return v + 1;
      }
    }
    return 0;
  }

  // Frees blocks of classes other than k until `b` more bytes fit; false if they cannot.
  [[gnu::noinline]] bool evict_for(std::size_t k, std::size_t b) noexcept {
    while (held + b > budget) {
      const std::size_t v = victim(k);
      if (v == 0) return false;
      ::operator delete(pop(v));
    }
    return true;
  }

  // Frees every block; returns their bytes.
  std::size_t release() noexcept {
    const std::size_t bytes = held;
    for (std::size_t k = 1; k <= classes; ++k) {
      while (void* p = pop(k)) ::operator delete(p);
    }
    return bytes;
  }
};

// Constant-initialised and trivially destructible, so that an access needs no guard; the
// thread-exit release is a separate object, registered by the first free (arm_node_cache()).
inline thread_local constinit node_cache tl_node_cache{};

struct node_cache_reaper {
  node_cache_reaper() = default;
  node_cache_reaper(const node_cache_reaper&) = delete;
  node_cache_reaper& operator=(const node_cache_reaper&) = delete;
  ~node_cache_reaper() {
    node_cache& c = tl_node_cache;
    c.state = static_cast<std::uint8_t>(c.state | node_cache::exiting);
    c.release();
  }
};

// Registers this thread's exit release (its first pass constructs the reaper).
[[gnu::noinline]] inline void arm_node_cache() noexcept {
  static thread_local const node_cache_reaper reaper;
  tl_node_cache.state = static_cast<std::uint8_t>(tl_node_cache.state | node_cache::armed);
}

inline void* cached_allocate(std::size_t bytes) {
  const std::size_t k = node_cache::class_of(bytes);
  if (k == 0) return ::operator new(bytes);
  if (void* p = tl_node_cache.pop(k)) return p;
  return ::operator new(k* node_cache::granule);
}

inline void cached_free(void* p, std::size_t bytes) noexcept {
  const std::size_t k = node_cache::class_of(bytes);
  if (k != 0) {
    node_cache& c = tl_node_cache;
    if (c.state == 0) arm_node_cache();
    if (c.state == node_cache::armed) {
      const std::size_t b = k * node_cache::granule;
      if (c.held + b <= node_cache::budget || c.evict_for(k, b)) {
        c.push(k, p);
        return;
      }
    }
  }
  ::operator delete(p);
}

// Bytes the calling thread's cache holds.
[[nodiscard]] inline std::size_t node_cache_held() noexcept { return tl_node_cache.held; }

// Frees the calling thread's cached blocks; returns their bytes.
inline std::size_t release_node_cache() noexcept { return tl_node_cache.release(); }

// Turns the calling thread's cache on or off (off empties it); returns whether it was on.
// For tests that count or fail every node allocation through operator new.
inline bool set_node_cache_enabled(bool on) noexcept {
  node_cache& c = tl_node_cache;
  const bool was = (c.state & node_cache::disabled) == 0;
  if (on) {
    c.state = static_cast<std::uint8_t>(c.state & ~node_cache::disabled);
  } else {
    c.state = static_cast<std::uint8_t>(c.state | node_cache::disabled);
    c.release();
  }
  return was;
}

}  // namespace tseq::detail
