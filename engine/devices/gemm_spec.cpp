// The readable form of an AOT matrix product.
#include "engine/devices/gemm_spec.h"

#include <sstream>

namespace ks {

std::string GemmSpec::str() const {
  std::ostringstream os;
  os << "sgemm " << m << "x" << n << "x" << k;
  if (transA) os << " A^T";
  if (transB) os << " B^T";
  if (batch > 1) os << " batch " << batch;
  return os.str();
}

}  // namespace ks
