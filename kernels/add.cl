// Add on float32 (z = a + b, one IEEE addition) with numpy broadcasting, and the index walk it
// shares with QAdd (qadd.cl, which the program holds after this file: the kernel files follow
// requantize.cl in name order). layout holds, for up to 6 axes (leading ones padded with size 1),
// the output's dims, then a's and b's strides (0 along broadcast axes).
inline void broadcast_offsets(long i, __global const long* layout, long* ia, long* ib) {
  long rest = i;
  *ia = 0, *ib = 0;
  for (int d = 5; d >= 0; --d) {
    const long at = rest % layout[d];
    rest /= layout[d];
    *ia += at * layout[6 + d];
    *ib += at * layout[12 + d];
  }
}

__kernel void add_float(__global const float* a, __global const float* b, __global float* z, long count, __global const long* layout) {
  const long i = get_global_id(0);
  if (i >= count) return;
  long ia, ib;
  broadcast_offsets(i, layout, &ia, &ib);
  z[i] = a[ia] + b[ib];
}
