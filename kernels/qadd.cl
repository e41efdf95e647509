// QAdd, portable: z_q = clamp(rne(fma((float)a, A, (float)b · B)), lo, hi) with numpy
// broadcasting (broadcast_offsets and its layout: binary.cl); qadd_same for operands of the
// output's shape (the residual adds of a ResNet), with no index walk, 16 values a work-item in
// vector loads and stores (the same operations lane by lane; the last work-item takes the rest
// one by one).
inline char qadd_value(char a, char b, float a_scale, float b_scale, int lo, int hi) {
  return (char)q8_requantized_sum(a, a_scale, b, b_scale, lo, hi);
}

__kernel void qadd_same(__global const char* a, __global const char* b, __global char* z, long count, float a_scale, float b_scale, int lo,
                        int hi) {
  const long i = get_global_id(0) * 16;
  if (i + 16 <= count) {
    const float16 bb = convert_float16(vload16(0, b + i)) * b_scale;
    const float16 g = fma(convert_float16(vload16(0, a + i)), (float16)(a_scale), bb);
    vstore16(convert_char16(clamp(rint(g), (float16)((float)lo), (float16)((float)hi))), 0, z + i);
    return;
  }
  for (long j = i; j < count; ++j) z[j] = qadd_value(a[j], b[j], a_scale, b_scale, lo, hi);
}
__kernel void qadd(__global const char* a, __global const char* b, __global char* z, long count, __global const long* layout,
                   float a_scale, float b_scale, int lo, int hi) {
  const long i = get_global_id(0);
  if (i >= count) return;
  long ia, ib;
  broadcast_offsets(i, layout, &ia, &ib);
  z[i] = qadd_value(a[ia], b[ib], a_scale, b_scale, lo, hi);
}
