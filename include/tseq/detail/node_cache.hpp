#pragma once

// A per-thread cache of freed node blocks. A persistent update allocates a few nodes and, in a
// loop, frees as many when the previous version dies; a bulk build allocates one leaf per B
// elements and a bulk destroy frees them all. Served from this cache, such an allocation is a
// pop from a singly linked list instead of a call into malloc (which glibc serves from a
// 7-entry per-size cache, then from its bins). Design and measurements: docs/design.md,
// "Node cache".
//
// Invariants:
// - Blocks are kept per size class of 8 bytes, up to max_block bytes. Every request of up to
//   max_block bytes is rounded up to its class both when it is allocated and when it is freed
//   (whether or not a cache keeps it), so any block of class k serves any request of k.
// - The cache of a thread holds at most its budget (TSEQ_NODE_CACHE_BYTES). A full cache makes
//   room for a freed block by freeing blocks of other classes (the first non-empty ones after a
//   rotating cursor, found with a bit per class), so that a cache one workload filled with its
//   sizes (a bulk destroy) adapts to the sizes the next one frees. A block that cannot fit even
//   so goes to operator delete.
// - A thread's cache is emptied when the thread exits; from then on (and while disabled) every
//   free goes straight to operator delete. A cache that is not accepting is empty, so the
//   allocation path needs no flag test.
// - Blocks are memory from the global operator new: a block allocated by one thread may be
//   cached by another, and one allocated through one cache may be freed into another.
// Under AddressSanitizer a cached block is poisoned, so a use after free of a node is still
// reported while its block waits in the cache.
//
// One cache per configuration. Translation units of one program may be built differently: an
// application compiled with -fsanitize=address linking an uninstrumented libtseq, or with
// another TSEQ_NODE_CACHE_BYTES. The cache is therefore a template, basic_node_cache<Budget,
// Poison>, and every function and variable that touches its state is a member or a
// specialisation of it, so each configuration has its own thread-local lists under its own
// symbol names: a block is poisoned by the pushes of a cache exactly when its pops unpoison
// it. (With one shared cache, the application's instrumented code poisoned the blocks it freed
// and the library's popped them without unpoisoning: use-after-poison reports on correct
// code.) `node_cache` names this translation unit's configuration; the inline functions that
// use it (cached_allocate, cached_free, and rrb_node.hpp's callers) have the same name in
// every configuration, and whichever copy the linker keeps is correct, since each copy uses one
// cache throughout. Blocks move between caches only through operator new and delete, with the
// same size classes in all of them. What is common to every configuration (node_cache_list:
// the thread's caches and its on/off switch) depends on no macro.

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
#endif

/// Bytes of freed tree nodes each thread may keep for reuse (docs/embedding.md, "Allocators").
/// 0 turns the cache off: every node is then allocated and freed through the global operator
/// new and delete. Translation units built with different values (or with and without
/// AddressSanitizer) use different caches, so they may be linked together.
#ifndef TSEQ_NODE_CACHE_BYTES
#define TSEQ_NODE_CACHE_BYTES (std::size_t{256} * 1024)
#endif

namespace tseq::detail {

// The size classes, the same in every configuration.
inline constexpr std::size_t node_block_granule = 8;
inline constexpr std::size_t node_block_max = 1024;
static_assert(node_block_max % node_block_granule == 0);
static_assert(node_block_granule >= sizeof(void*) && __STDCPP_DEFAULT_NEW_ALIGNMENT__ >= alignof(void*),
              "a cached block holds the pointer to the next one");

// Poisons and unpoisons cached blocks; a no-op except for the caches of instrumented
// translation units (only those define and instantiate the `true` specialisation).
template <bool Poison>
struct node_block_poison {
  static void poison(void*, std::size_t) noexcept {}
  static void unpoison(void*, std::size_t) noexcept {}
};
#if defined(TSEQ_ASAN)
template <>
struct node_block_poison<true> {
  static void poison(void* p, std::size_t n) noexcept { ASAN_POISON_MEMORY_REGION(p, n); }
  static void unpoison(void* p, std::size_t n) noexcept { ASAN_UNPOISON_MEMORY_REGION(p, n); }
};
#endif

// A thread's caches (one per configuration that freed a node on it), for release_node_cache(),
// node_cache_held() and set_node_cache_enabled(), which act on all of them.
struct node_cache_list {
  struct entry {
    entry* next;
    std::size_t (*release)() noexcept;    // frees the calling thread's blocks of that cache
    std::size_t (*held)() noexcept;       // their bytes
    void (*set_disabled)(bool) noexcept;  // turns that cache off (emptying it) or on again
  };
  entry* first;
  bool disabled;  // set_node_cache_enabled(false) on this thread
};
inline thread_local constinit node_cache_list tl_node_caches{};

template <std::size_t Budget, bool Poison>
struct basic_node_cache {
  static constexpr std::size_t granule = node_block_granule;
  static constexpr std::size_t max_block = node_block_max;
  static constexpr std::size_t classes = max_block / granule;  // class k in 1..classes: 8k bytes
  static constexpr std::size_t words = classes / 64;
  static constexpr std::size_t budget = Budget;
  static_assert(classes % 64 == 0);

  static constexpr std::uint8_t armed = 1;     // registered: thread-exit release, node_cache_list
  static constexpr std::uint8_t disabled = 2;  // set_node_cache_enabled(false) on this thread
  static constexpr std::uint8_t exiting = 4;   // the thread's exit release has run

  struct free_block {
    free_block* next;
  };

  free_block* head[classes + 1]{};
  std::uint64_t filled[words]{};  // bit k-1: head[k] is not empty
  std::size_t held{};             // bytes in the lists
  std::size_t cursor{};           // where the next eviction starts looking (class - 1)
  std::uint8_t state{};
  node_cache_list::entry entry{nullptr, &release_mine, &held_mine, &set_disabled_mine};

  // Node sizes are rounded up to this (leaf_node::bytes and the others).
  static constexpr std::size_t round_up(std::size_t bytes) noexcept {
    return (bytes + granule - 1) / granule * granule;
  }

  // The size class of a request of 1..max_block bytes.
  static constexpr std::size_t class_of(std::size_t bytes) noexcept { return round_up(bytes) / granule; }

  static constexpr std::uint64_t bit(std::size_t k) noexcept { return std::uint64_t{1} << ((k - 1) % 64); }

  // The calling thread's cache of this configuration. Constant-initialised and trivially
  // destructible, so that an access needs no guard; the thread-exit release is a separate
  // object, registered by the first free (arm()).
  static basic_node_cache& mine() noexcept;

  void* pop(std::size_t k) noexcept {
    free_block* b = head[k];
    if (b == nullptr) return nullptr;
    node_block_poison<Poison>::unpoison(b, sizeof(free_block));
    head[k] = b->next;
    if (b->next == nullptr) filled[(k - 1) / 64] &= ~bit(k);
    held -= k * granule;
    node_block_poison<Poison>::unpoison(b, k * granule);
    return b;
  }

  void push(std::size_t k, void* p) noexcept {
    auto* f = static_cast<free_block*>(p);
    f->next = head[k];
    if (head[k] == nullptr) filled[(k - 1) / 64] |= bit(k);
    head[k] = f;
    held += k * granule;
    node_block_poison<Poison>::poison(p, k * granule);
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

  static std::size_t release_mine() noexcept { return mine().release(); }
  static std::size_t held_mine() noexcept { return mine().held; }
  static void set_disabled_mine(bool off) noexcept {
    basic_node_cache& c = mine();
    if (off) {
      c.state = static_cast<std::uint8_t>(c.state | disabled);
      c.release();
    } else {
      c.state = static_cast<std::uint8_t>(c.state & ~disabled);
    }
  }

  struct reaper {
    reaper() = default;
    reaper(const reaper&) = delete;
    reaper& operator=(const reaper&) = delete;
    ~reaper() {
      basic_node_cache& c = mine();
      c.state = static_cast<std::uint8_t>(c.state | exiting);
      c.release();
    }
  };

  // Registers this thread's exit release (its first pass constructs the reaper) and the cache
  // in the thread's node_cache_list, whose on/off switch it takes over.
  [[gnu::noinline]] static void arm() noexcept {
    static thread_local const reaper r;
    basic_node_cache& c = mine();
    node_cache_list& l = tl_node_caches;
    c.entry.next = l.first;
    l.first = &c.entry;
    c.state = static_cast<std::uint8_t>(c.state | armed | (l.disabled ? disabled : 0));
  }

  // Every node is allocated and freed through these (tseq/detail/rrb_node.hpp).
  // (bytes - 1 >= max_block: 0 or above max_block, one comparison.)
  static void* allocate(std::size_t bytes) {
    if (bytes - 1 >= max_block) return ::operator new(bytes);
    const std::size_t k = class_of(bytes);
    if constexpr (budget > 0) {
      if (void* p = mine().pop(k)) return p;
    }
    return ::operator new(k* granule);
  }

  static void deallocate(void* p, std::size_t bytes) noexcept {
    if constexpr (budget > 0) {
      if (bytes - 1 < max_block) {
        const std::size_t k = class_of(bytes);
        basic_node_cache& c = mine();
        if (c.state == 0) arm();
        if (c.state == armed) {
          const std::size_t b = k * granule;
          if (c.held + b <= budget || c.evict_for(k, b)) {
            c.push(k, p);
            return;
          }
        }
      }
    }
    ::operator delete(p);
  }
};

// One per thread and configuration (instantiated only for a budget above 0).
template <std::size_t Budget, bool Poison>
inline thread_local constinit basic_node_cache<Budget, Poison> tl_node_cache{};

template <std::size_t Budget, bool Poison>
basic_node_cache<Budget, Poison>& basic_node_cache<Budget, Poison>::mine() noexcept {
  return tl_node_cache<Budget, Poison>;
}

#if defined(TSEQ_ASAN)
#define TSEQ_NODE_CACHE_POISONS true
#else
#define TSEQ_NODE_CACHE_POISONS false
#endif
// This translation unit's cache.
using node_cache = basic_node_cache<TSEQ_NODE_CACHE_BYTES, TSEQ_NODE_CACHE_POISONS>;
#undef TSEQ_NODE_CACHE_POISONS

inline void* cached_allocate(std::size_t bytes) { return node_cache::allocate(bytes); }

inline void cached_free(void* p, std::size_t bytes) noexcept { node_cache::deallocate(p, bytes); }

// Bytes the calling thread's caches hold.
[[nodiscard]] inline std::size_t node_cache_held() noexcept {
  std::size_t bytes = 0;
  for (const node_cache_list::entry* e = tl_node_caches.first; e != nullptr; e = e->next) bytes += e->held();
  return bytes;
}

// Frees the calling thread's cached blocks; returns their bytes.
inline std::size_t release_node_cache() noexcept {
  std::size_t bytes = 0;
  for (const node_cache_list::entry* e = tl_node_caches.first; e != nullptr; e = e->next) bytes += e->release();
  return bytes;
}

// Turns the calling thread's caches on or off (off empties them); returns whether they were on.
// For tests that count or fail every node allocation through operator new.
inline bool set_node_cache_enabled(bool on) noexcept {
  node_cache_list& l = tl_node_caches;
  const bool was = !l.disabled;
  l.disabled = !on;
  for (const node_cache_list::entry* e = l.first; e != nullptr; e = e->next) e->set_disabled(!on);
  return was;
}

}  // namespace tseq::detail
