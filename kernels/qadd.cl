// QAdd, portable: z_q = clamp(rne(fma((float)a, A, (float)b · B)), lo, hi) with numpy
// broadcasting (broadcast_offsets and its layout: binary.cl).
__kernel void qadd(__global const char* a, __global const char* b, __global char* z, long count, __global const long* layout,
                   float a_scale, float b_scale, int lo, int hi) {
  const long i = get_global_id(0);
  if (i >= count) return;
  long ia, ib;
  broadcast_offsets(i, layout, &ia, &ib);
  const float bb = (float)b[ib] * b_scale;
  const float g = fma((float)a[ia], a_scale, bb);
  z[i] = (char)clamp(rint(g), (float)lo, (float)hi);
}
