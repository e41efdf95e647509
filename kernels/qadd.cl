// QAdd, portable: z_q = clamp(rne(fma((float)a, A, (float)b · B)), lo, hi) with numpy
// broadcasting (broadcast_offsets and its layout: binary.cl); qadd_same for operands of the
// output's shape (the residual adds of a ResNet), with no index walk.
inline char qadd_value(char a, char b, float a_scale, float b_scale, int lo, int hi) {
  const float bb = (float)b * b_scale;
  const float g = fma((float)a, a_scale, bb);
  return (char)clamp(rint(g), (float)lo, (float)hi);
}

__kernel void qadd_same(__global const char* a, __global const char* b, __global char* z, long count, float a_scale, float b_scale, int lo,
                        int hi) {
  const long i = get_global_id(0);
  if (i < count) z[i] = qadd_value(a[i], b[i], a_scale, b_scale, lo, hi);
}
__kernel void qadd(__global const char* a, __global const char* b, __global char* z, long count, __global const long* layout,
                   float a_scale, float b_scale, int lo, int hi) {
  const long i = get_global_id(0);
  if (i >= count) return;
  long ia, ib;
  broadcast_offsets(i, layout, &ia, &ib);
  z[i] = qadd_value(a[ia], b[ib], a_scale, b_scale, lo, hi);
}
