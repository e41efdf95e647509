// Linear Resize on float32 as engine/ops/resize_common.cpp's interpolate computes it, over up to 6
// axes (leading ones padded with size 1). geometry holds the output's dims, the input's strides and
// each axis's first entry in the tap tables; taps_i holds per output index the two source indices
// (i0, i1), taps_w their weights (w0, w1), outside whether the coordinate falls outside
// (tf_crop_and_resize: y is the extrapolation value). Bit k of active says the k-th axis
// interpolates. The corners are summed in the host's order (corner bits over the active axes in
// axis order; each weight the product of its axes' weights, in axis order, from 1), a zero weight
// skipped, so every value has the host's bits.
__kernel void resize_linear(__global const float* x, __global float* y, long count, __global const long* geometry,
                            __global const long* taps_i, __global const float* taps_w, __global const char* outside, int active,
                            float extrapolation) {
  const long o = get_global_id(0);
  if (o >= count) return;
  long at[6], rest = o, base = 0;
  bool out_of_range = false;
  for (int d = 5; d >= 0; --d) {
    at[d] = geometry[12 + d] + rest % geometry[d];
    rest /= geometry[d];
    base += taps_i[2 * at[d]] * geometry[6 + d];
    out_of_range = out_of_range || outside[at[d]];
  }
  if (out_of_range) {
    y[o] = extrapolation;
    return;
  }
  int axes[6], n = 0;
  for (int d = 0; d < 6; ++d)
    if (active >> d & 1) axes[n++] = d;
  float sum = 0.0f;
  for (int corner = 0; corner < 1 << n; ++corner) {
    float w = 1.0f;
    long off = base;
    for (int k = 0; k < n; ++k) {
      const int d = axes[k];
      if (corner >> k & 1) {
        w *= taps_w[2 * at[d] + 1];
        off += (taps_i[2 * at[d] + 1] - taps_i[2 * at[d]]) * geometry[6 + d];
      } else {
        w *= taps_w[2 * at[d]];
      }
    }
    if (w != 0.0f) sum += w * x[off];
  }
  y[o] = sum;
}
