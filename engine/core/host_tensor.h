// A dense row-major array in host memory: program inputs, parameters and outputs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/core/dtype.h"
#include "engine/core/host_allocator.h"
#include "engine/core/shape.h"

namespace ks {

class HostTensor {
 public:
  HostTensor() = default;
  HostTensor(DType t, Shape shape);  // zero-filled
  // Contents left as the memory held them: for a value about to be written whole (an output a
  // device writes in place) the zero fill would be one more pass over the bytes.
  static HostTensor uninitialized(DType t, Shape shape);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return ks::numel(shape_); }
  std::size_t byteSize() const { return bytes_.size(); }
  std::byte* bytes() { return bytes_.data(); }
  const std::byte* bytes() const { return bytes_.data(); }
  template <class T> T* data() { return reinterpret_cast<T*>(bytes_.data()); }
  template <class T> const T* data() const { return reinterpret_cast<const T*>(bytes_.data()); }

  // Element access through the widest type of the dtype's kind. f16 reads/writes round.
  double getDouble(int64_t i) const;
  int64_t getInt(int64_t i) const;
  void setDouble(int64_t i, double v);  // casts as the engine does (trunc for ints)
  void setInt(int64_t i, int64_t v);    // wraps for ints, converts for floats

  HostTensor reshaped(Shape s) const;  // same data, new shape of equal numel
  HostTensor castTo(DType t) const;
  uint64_t contentHash() const;

 private:
  DType dtype_ = DType::F32;
  Shape shape_;
  HostTensor(DType t, Shape shape, bool zero);
  std::vector<std::byte, HostAllocator<std::byte>> bytes_;  // aligned: see host_allocator.h
};

}  // namespace ks
