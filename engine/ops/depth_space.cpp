#include "engine/ops/depth_space.h"

namespace q8 {

Tensor move_depth(const Tensor& x, int64_t b, bool to_space, bool crd, const char* op) {
  check(x.rank() == 4, std::string(op) + ": input must be 4-D (NCHW), got " + dims_to_string(x.dims()));
  check(b > 0, std::string(op) + ": blocksize must be positive");
  const int64_t n = x.dim(0);
  // The space side's dims: [n, c, h·b, w·b]; the depth side's: [n, c·b², h, w].
  int64_t c, h, w;
  if (to_space) {
    check(x.dim(1) % (b * b) == 0, std::string(op) + ": channels " + std::to_string(x.dim(1)) + " are not a multiple of blocksize² " +
                                       std::to_string(b * b));
    c = x.dim(1) / (b * b), h = x.dim(2), w = x.dim(3);
  } else {
    check(x.dim(2) % b == 0 && x.dim(3) % b == 0, std::string(op) + ": height and width must be multiples of blocksize " + std::to_string(b));
    c = x.dim(1), h = x.dim(2) / b, w = x.dim(3) / b;
  }
  Tensor y(x.dtype(), to_space ? Dims{n, c, h * b, w * b} : Dims{n, c * b * b, h, w});
  const size_t elem = dtype_size(x.dtype());
  for (int64_t in = 0; in < n; ++in)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t by = 0; by < b; ++by)
        for (int64_t bx = 0; bx < b; ++bx) {
          const int64_t depth = crd ? ic * b * b + by * b + bx : (by * b + bx) * c + ic;
          for (int64_t ih = 0; ih < h; ++ih)
            for (int64_t iw = 0; iw < w; ++iw) {
              const int64_t deep = ((in * c * b * b + depth) * h + ih) * w + iw;
              const int64_t flat = ((in * c + ic) * h * b + ih * b + by) * w * b + iw * b + bx;
              const int64_t dst = to_space ? flat : deep, src = to_space ? deep : flat;
              copy_bytes(y.raw() + size_t(dst) * elem, x.raw() + size_t(src) * elem, elem);
            }
        }
  return y;
}

}  // namespace q8
