// Add, Sub, Mul, Div and Pow on float32 (the first four one IEEE operation each; Div IEEE-exact only in a program
// built with -cl-fp32-correctly-rounded-divide-sqrt) with numpy broadcasting, and the index walk
// they share with QAdd (qadd.cl, which the program holds after this file: name order). layout
// holds, for Q8_BROADCAST_AXES axes (leading ones padded with size 1), the output's dims, then a's
// and b's strides (0 along broadcast axes), axes merged where both operands allow it
// (engine/opencl/ops/broadcast_layout.h): an axis of size 1 costs no division, and the walk stops
// where the rest of the index is 0. The op codes are abi.h's.
//
// An operand's stride along an axis is at most the output's, so its offset for element i is at
// most i: below 2^31 the walk runs in 32-bit arithmetic (a 64-bit division is many times a 32-bit
// one on GPUs), and an index still inside the innermost axis it reaches needs no division at all
// (operands of the output's shape merge into one axis: no division anywhere).
inline void broadcast_offsets(long i, __global const long* layout, long* ia, long* ib) {
  if (i <= 0x7fffffff) {
    uint rest = (uint)i, oa = 0, ob = 0;
    for (int d = Q8_BROADCAST_AXES - 1; d >= 0 && rest > 0; --d) {
      const uint n = (uint)layout[d];
      if (n == 1) continue;
      const uint at = rest < n ? rest : rest % n;
      rest = rest < n ? 0 : rest / n;
      oa += at * (uint)layout[Q8_BROADCAST_AXES + d];
      ob += at * (uint)layout[2 * Q8_BROADCAST_AXES + d];
    }
    *ia = oa, *ib = ob;
    return;
  }
  long rest = i;
  *ia = 0, *ib = 0;
  for (int d = Q8_BROADCAST_AXES - 1; d >= 0 && rest > 0; --d) {
    if (layout[d] == 1) continue;
    const long at = rest % layout[d];
    rest /= layout[d];
    *ia += at * layout[Q8_BROADCAST_AXES + d];
    *ib += at * layout[2 * Q8_BROADCAST_AXES + d];
  }
}

__kernel void binary_float(__global const float* a, __global const float* b, __global float* z, long count, __global const long* layout,
                           int op) {
  const long i = get_global_id(0);
  if (i >= count) return;
  long ia, ib;
  broadcast_offsets(i, layout, &ia, &ib);
  const float x = a[ia], y = b[ib];
  // Pow: a square x · x and a cube x · x · x, as engine/ops/pow.cpp; other exponents the device's
  // pow (within 16 ulp) against the host's std::pow (under 1 ulp).
  z[i] = op == Q8_ADD   ? x + y
         : op == Q8_SUB ? x - y
         : op == Q8_MUL ? x * y
         : op == Q8_DIV ? x / y
         : y == 2.0f    ? x * x
         : y == 3.0f    ? x * x * x
                        : pow(x, y);
}

// MulQuantize (q8): a float32 Mul and the QuantizeLinear that alone reads it, y = clamp(rne((a · b)
// / s), -128, 127): the product rounded to float32, then quantize.cl's quantize_linear arithmetic.
__kernel void mul_quantize(__global const float* a, __global const float* b, __global char* y, long count, __global const long* layout,
                           float s) {
  const long i = get_global_id(0);
  if (i >= count) return;
  long ia, ib;
  broadcast_offsets(i, layout, &ia, &ib);
  const float v = a[ia] * b[ib];
  y[i] = (char)clamp(rint(v / s) + 0.0f, -128.0f, 127.0f);
}
