// A dense row-major array in host memory: program inputs, parameters and outputs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/core/dtype.h"
#include "engine/core/shape.h"

namespace ks {

class HostTensor {
 public:
  HostTensor() = default;
  HostTensor(DType t, Shape shape);  // zero-filled

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
  std::vector<std::byte> bytes_;
};

}  // namespace ks
