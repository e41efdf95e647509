#include "engine/ops/strided_copy.h"

#include <cstring>

#include "engine/cpu/parallel.h"
#include "engine/ops/broadcast.h"

namespace q8 {

std::vector<int64_t> dense_strides(const Dims& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

namespace {
template <typename T>
void copy_rows(const T* src, int64_t offset, const std::vector<int64_t>& strides, const Dims& dims, T* dst) {
  const size_t rank = dims.size();
  const int64_t inner = dims[rank - 1], step = strides[rank - 1];
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= dims[d];
  parallel_for(rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner, 1)), [&](int64_t r0, int64_t r1) {
  for (int64_t row = r0; row < r1; ++row) {
    int64_t base = offset, rest = row;
    for (size_t d = rank - 1; d-- > 0;) {
      base += (rest % dims[d]) * strides[d];
      rest /= dims[d];
    }
    T* out = dst + row * inner;
    if (step == 1) {
      copy_bytes(out, src + base, size_t(inner) * sizeof(T));
    } else {
      for (int64_t j = 0; j < inner; ++j) out[j] = src[base + j * step];
    }
  }
  });
}
}  // namespace

void gather_strided(const Tensor& src, int64_t offset, const std::vector<int64_t>& src_strides, Tensor& dst) {
  if (dst.numel() == 0) return;
  Dims dims = dst.dims();
  std::vector<int64_t> strides = src_strides;
  if (dims.empty()) dims = {1}, strides = {1};
  visit_width(dtype_size(src.dtype()), [&]<typename T>() {
    copy_rows(reinterpret_cast<const T*>(src.raw()), offset, strides, dims, reinterpret_cast<T*>(dst.raw()));
  });
}

}  // namespace q8
