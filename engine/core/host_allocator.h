// Host memory for tensors: aligned so an OpenCL device that shares host memory can use it in place
// (a CPU runtime's buffer over it is the same bytes), and large blocks kept warm for reuse.
// A freshly mapped block costs a page fault per page on first touch (writing 64 MiB into fresh
// pages here takes 3x a memcpy into warm ones), so a program run again and again gets back the
// blocks its previous outputs freed.
#pragma once
#include <cstddef>
#include <new>
#include <type_traits>

namespace ks {

// Every block starts at this alignment (an OpenCL CPU device's CL_DEVICE_MEM_BASE_ADDR_ALIGN is
// 128 bytes for PoCL; large blocks are page aligned).
inline constexpr std::size_t kHostAlignment = 128;
inline constexpr std::size_t kPageAlignment = 4096;

// Throws std::bad_alloc. Blocks of at least 1 MiB come from (and go back to) a small bounded cache
// of freed blocks of the same size; the cache never holds more than 512 MiB.
void* hostAllocate(std::size_t bytes);
void hostFree(void* p, std::size_t bytes) noexcept;
// Bytes the cache holds now (for tests).
std::size_t hostCachedBytes();

// Allocator for std::vector: aligned, cached, and elements of trivial types are left
// uninitialised by resize (callers that promise zeros fill them).
template <class T>
struct HostAllocator {
  using value_type = T;
  HostAllocator() = default;
  template <class U>
  HostAllocator(const HostAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(hostAllocate(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { hostFree(p, n * sizeof(T)); }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0 && std::is_trivially_default_constructible_v<U>) ::new (static_cast<void*>(p)) U;
    else ::new (static_cast<void*>(p)) U(static_cast<Args&&>(args)...);
  }
  template <class U>
  bool operator==(const HostAllocator<U>&) const noexcept { return true; }
};

}  // namespace ks
