// QAdd, portable: z_q = clamp(rne(fma((float)a, A, (float)b · B)), lo, hi) with numpy
// broadcasting. layout holds, for up to 6 axes (leading ones padded with size 1), the output's
// dims, then a's and b's strides (0 along broadcast axes).
__kernel void qadd(__global const char* a, __global const char* b, __global char* z, long count, __global const long* layout,
                   float a_scale, float b_scale, int lo, int hi) {
  const long i = get_global_id(0);
  if (i >= count) return;
  long rest = i, ia = 0, ib = 0;
  for (int d = 5; d >= 0; --d) {
    const long at = rest % layout[d];
    rest /= layout[d];
    ia += at * layout[6 + d];
    ib += at * layout[12 + d];
  }
  const float bb = (float)b[ib] * b_scale;
  const float g = fma((float)a[ia], a_scale, bb);
  z[i] = (char)clamp(rint(g), (float)lo, (float)hi);
}
