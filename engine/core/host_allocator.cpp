// Aligned host blocks and the cache of large freed ones.
#include "engine/core/host_allocator.h"

#include <cstdlib>
#include <mutex>
#include <vector>

namespace ks {

namespace {
constexpr std::size_t kCachedFrom = std::size_t{1} << 20;
constexpr std::size_t kCacheLimit = std::size_t{512} << 20;
constexpr std::size_t kCacheBlocks = 16;

struct Block {
  void* p;
  std::size_t bytes;
};

// Freed large blocks, oldest first. Leaked on purpose at exit (static destruction order).
struct BlockCache {
  std::mutex mutex;
  std::vector<Block> blocks;
  std::size_t bytes = 0;
};
BlockCache& cache() {
  static BlockCache* c = new BlockCache();
  return *c;
}

std::size_t rounded(std::size_t bytes, std::size_t align) { return (bytes + align - 1) / align * align; }
}  // namespace

void* hostAllocate(std::size_t bytes) {
  const std::size_t align = bytes >= kCachedFrom ? kPageAlignment : kHostAlignment;
  const std::size_t size = rounded(bytes == 0 ? 1 : bytes, align);
  if (size < bytes) throw std::bad_alloc();
  if (size >= kCachedFrom) {
    BlockCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    for (std::size_t i = c.blocks.size(); i-- > 0;)
      if (c.blocks[i].bytes == size) {
        void* p = c.blocks[i].p;
        c.bytes -= size;
        c.blocks.erase(c.blocks.begin() + static_cast<std::ptrdiff_t>(i));
        return p;
      }
  }
  void* p = std::aligned_alloc(align, size);
  if (!p) throw std::bad_alloc();
  return p;
}

void hostFree(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  const std::size_t size = rounded(bytes == 0 ? 1 : bytes, bytes >= kCachedFrom ? kPageAlignment : kHostAlignment);
  if (size >= kCachedFrom && size <= kCacheLimit) {
    BlockCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    while (!c.blocks.empty() && (c.bytes + size > kCacheLimit || c.blocks.size() >= kCacheBlocks)) {
      std::free(c.blocks.front().p);
      c.bytes -= c.blocks.front().bytes;
      c.blocks.erase(c.blocks.begin());
    }
    c.blocks.push_back({p, size});
    c.bytes += size;
    return;
  }
  std::free(p);
}

std::size_t hostCachedBytes() {
  BlockCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.bytes;
}

}  // namespace ks
