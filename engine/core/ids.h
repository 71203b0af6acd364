// Strong integer ids, so a class id cannot be passed where a node id is expected.
#pragma once
#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace ks {

template <class Tag>
struct Id {
  static constexpr uint32_t kNull = std::numeric_limits<uint32_t>::max();
  uint32_t v = kNull;
  constexpr Id() = default;
  constexpr explicit Id(uint32_t value) : v(value) {}
  constexpr bool valid() const { return v != kNull; }
  constexpr auto operator<=>(const Id&) const = default;
};

}  // namespace ks

template <class Tag>
struct std::hash<ks::Id<Tag>> {
  std::size_t operator()(const ks::Id<Tag>& id) const noexcept { return std::hash<uint32_t>()(id.v); }
};
