#include "calib/range_table.h"

#include <algorithm>

namespace q8 {

double TensorRange::scale() const {
  const double amax = descriptor.amax.empty() ? 0.0 : descriptor.amax[0];
  return std::max(amax, kMinAmax) / 127.0;
}

}  // namespace q8
