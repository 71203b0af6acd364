// Typed element access for HostTensor.
#include "engine/core/host_tensor.h"

#include <new>

#include "engine/core/alloc_error.h"
#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/core/scalar.h"

namespace ks {

HostTensor::HostTensor(DType t, Shape shape) : HostTensor(t, std::move(shape), true) {}

HostTensor HostTensor::uninitialized(DType t, Shape shape) { return HostTensor(t, std::move(shape), false); }

HostTensor::HostTensor(DType t, Shape shape, bool zero) : dtype_(t), shape_(std::move(shape)) {
  const long double bytes = tensorBytes(shape_, dtypeSize(t));
  if (bytes < 0 || bytes > static_cast<long double>(bytes_.max_size())) throw allocationFailure(t, shape_, bytes, "host memory");
  try {
    bytes_.resize(static_cast<std::size_t>(bytes));
  } catch (const std::bad_alloc&) {
    throw allocationFailure(t, shape_, bytes, "host memory");
  }
  if (zero && !bytes_.empty()) std::memset(bytes_.data(), 0, bytes_.size());
}

double HostTensor::getDouble(int64_t i) const {
  switch (dtype_) {
    case DType::F16: return halfToFloat(data<uint16_t>()[i]);
    case DType::F32: return data<float>()[i];
    case DType::F64: return data<double>()[i];
    default: return static_cast<double>(getInt(i));
  }
}

int64_t HostTensor::getInt(int64_t i) const {
  switch (dtype_) {
    case DType::Bool: return data<uint8_t>()[i] != 0;
    case DType::U8: return data<uint8_t>()[i];
    case DType::I8: return data<int8_t>()[i];
    case DType::I16: return data<int16_t>()[i];
    case DType::I32: return data<int32_t>()[i];
    case DType::I64: return data<int64_t>()[i];
    case DType::U32: return data<uint32_t>()[i];
    default: return floatToInt(DType::I64, getDouble(i));
  }
}

void HostTensor::setDouble(int64_t i, double v) {
  switch (dtype_) {
    case DType::F16: data<uint16_t>()[i] = floatToHalf(static_cast<float>(v)); return;
    case DType::F32: data<float>()[i] = static_cast<float>(v); return;
    case DType::F64: data<double>()[i] = v; return;
    default: setInt(i, floatToInt(dtype_, v)); return;
  }
}

void HostTensor::setInt(int64_t i, int64_t v) {
  switch (dtype_) {
    case DType::Bool: data<uint8_t>()[i] = v != 0; return;
    case DType::U8: data<uint8_t>()[i] = static_cast<uint8_t>(v); return;
    case DType::I8: data<int8_t>()[i] = static_cast<int8_t>(v); return;
    case DType::I16: data<int16_t>()[i] = static_cast<int16_t>(v); return;
    case DType::I32: data<int32_t>()[i] = static_cast<int32_t>(v); return;
    case DType::I64: data<int64_t>()[i] = v; return;
    case DType::U32: data<uint32_t>()[i] = static_cast<uint32_t>(v); return;
    default: setDouble(i, static_cast<double>(v)); return;
  }
}

HostTensor HostTensor::reshaped(Shape s) const {
  if (ks::numel(s) != numel())
    throw Error(ErrorCode::Shape, "cannot view " + shapeStr(shape_) + " as " + shapeStr(s), {}, "reshape");
  HostTensor r = *this;
  r.shape_ = std::move(s);
  return r;
}

HostTensor HostTensor::castTo(DType t) const {
  HostTensor r(t, shape_);
  const int64_t n = numel();
  for (int64_t i = 0; i < n; ++i) {
    if (isFloat(dtype_)) r.setDouble(i, getDouble(i));
    else if (t == DType::Bool) r.setInt(i, getInt(i) != 0);
    else r.setInt(i, getInt(i));
  }
  return r;
}

uint64_t HostTensor::contentHash() const {
  uint64_t h = 1469598103934665603ull ^ static_cast<uint64_t>(dtype_);
  for (Dim d : shape_) h = (h ^ static_cast<uint64_t>(d)) * 1099511628211ull;
  for (std::byte b : bytes_) h = (h ^ static_cast<uint8_t>(b)) * 1099511628211ull;
  return h;
}

}  // namespace ks
