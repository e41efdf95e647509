// Concat of int8 or float32 values (the default domain's op, QConcat being the one that
// requantizes): one launch per input, x_i viewed as [outer, inner_i] copied to columns
// [offset, offset + inner_i) of y viewed as [outer, inner]. One work-item per element.
__kernel void concat_part_int8(__global const char* x, __global char* y, long outer, long inner_i, long inner, long offset) {
  const long e = get_global_id(0);
  if (e < outer * inner_i) y[(e / inner_i) * inner + offset + e % inner_i] = x[e];
}

__kernel void concat_part_float(__global const float* x, __global float* y, long outer, long inner_i, long inner, long offset) {
  const long e = get_global_id(0);
  if (e < outer * inner_i) y[(e / inner_i) * inner + offset + e % inner_i] = x[e];
}
