// The float32 ops of attention masks: Where(condition, X, Y) with numpy broadcasting of its three
// operands (binary.cl's walk twice: the condition's and X's strides in one layout, Y's in another),
// and IsNaN (bool as one byte, 0 or 1), as engine/ops/where.cpp and is_nan.cpp compute them.
__kernel void where_float(__global const uchar* c, __global const float* x, __global const float* y, __global float* z, long count,
                          __global const long* layout_cx, __global const long* layout_y) {
  const long i = get_global_id(0);
  if (i >= count) return;
  long ic, ix, iy, unused;
  broadcast_offsets(i, layout_cx, &ic, &ix);
  broadcast_offsets(i, layout_y, &iy, &unused);
  z[i] = c[ic] ? x[ix] : y[iy];
}

__kernel void is_nan_float(__global const float* x, __global uchar* y, long count) {
  const long i = get_global_id(0);
  if (i < count) y[i] = isnan(x[i]) ? 1 : 0;
}
