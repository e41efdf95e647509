#include "engine/ops/quantize_common.h"

#include "engine/ops/op.h"

namespace q8 {

QuantLayout quant_layout(const Tensor& x, const Tensor& scale, const Tensor* zero_point, int64_t axis, const char* op) {
  check(scale.dtype() == DType::Float32, std::string(op) + ": scale must be float32");
  QuantLayout l;
  if (zero_point) check(zero_point->dims() == scale.dims(), std::string(op) + ": zero point shape " +
                                                                dims_to_string(zero_point->dims()) + " differs from scale shape " +
                                                                dims_to_string(scale.dims()));
  if (scale.rank() == 0 || (scale.rank() == 1 && scale.numel() == 1 && (x.rank() == 0 || x.dim(size_t(normalize_axis(axis, int64_t(x.rank()), op))) != 1))) {
    check(scale.numel() == 1, std::string(op) + ": scale is empty");
    l.inner = x.numel();
    return l;
  }
  check(scale.rank() == 1, std::string(op) + ": scale must be a scalar or 1-D, got shape " + dims_to_string(scale.dims()));
  const size_t a = size_t(normalize_axis(axis, int64_t(x.rank()), op));
  check(scale.dim(0) == x.dim(a), std::string(op) + ": " + std::to_string(scale.dim(0)) + " scales for axis " +
                                      std::to_string(a) + " of size " + std::to_string(x.dim(a)) + " (input " +
                                      dims_to_string(x.dims()) + ")");
  for (size_t d = 0; d < x.rank(); ++d) {
    if (d < a) l.outer *= x.dim(d);
    else if (d > a) l.inner *= x.dim(d);
  }
  l.channels = x.dim(a);
  return l;
}

}  // namespace q8
