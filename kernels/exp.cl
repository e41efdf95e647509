// e^x in float32, the same bits on the host and on every OpenCL device: the host's Exp, Sigmoid
// and Softmax (engine/ops/exp_float.h includes this file) and the OpenCL kernels call this one
// function. Cephes' expf: x = n·ln2 + r with |r| <= ln2/2 (Cody–Waite, ln2 in two parts), e^r by a
// degree-5 polynomial, then · 2^n in two multiplications by powers of two, so a subnormal result
// is rounded once. Every step is one IEEE operation or an explicit fma and nothing is contracted
// (requantize.cl's pragma; -ffp-contract=off on the host), so no compiler or device may change a
// bit. Within 1.02 ulp of e^x, measured over every 97th float32 (docs/ops.md, "Exp"). Written in the subset of C++ and OpenCL C both
// compile; the three macros are the only difference.
#if defined(__OPENCL_C_VERSION__) || defined(__OPENCL_VERSION__)
#define Q8_FMA(a, b, c) fma(a, b, c)
#define Q8_RINT(x) rint(x)
#define Q8_POW2(k) as_float(((k) + 127) << 23)
#else
#define Q8_FMA(a, b, c) std::fma(float(a), float(b), float(c))
#define Q8_RINT(x) std::rint(float(x))
#define Q8_POW2(k) std::bit_cast<float>(int((k) + 127) << 23)
#endif

inline float q8_exp(float x) {
  if (!(x == x)) return x;                            // NaN
  if (x > 88.72283935546875f) return x * 2.0e38f;    // e^x > FLT_MAX: +inf, as an IEEE overflow
  if (x < -103.97208404541015625f) return 0.0f;      // below half the smallest subnormal
  const float n = Q8_RINT(x * 1.44269502162933349609375f);
  float r = Q8_FMA(n, -0.693359375f, x);
  r = Q8_FMA(n, 2.12194440e-4f, r);
  float p = 1.9875691500e-4f;
  p = Q8_FMA(p, r, 1.3981999507e-3f);
  p = Q8_FMA(p, r, 8.3334519073e-3f);
  p = Q8_FMA(p, r, 4.1665795894e-2f);
  p = Q8_FMA(p, r, 1.6666665459e-1f);
  p = Q8_FMA(p, r, 5.0000001201e-1f);
  const float y = Q8_FMA(p, r * r, r) + 1.0f;
  const int k = (int)n, k1 = k / 2;                   // 2^k1 and 2^(k - k1) are normal floats
  return y * Q8_POW2(k1) * Q8_POW2(k - k1);
}

// Sigmoid, 1 / (1 + e^-x). A NaN goes through as x + x (quiet, with its own sign), whatever a
// compiler makes of 1 + (-x) (it may write 1 - x, whose NaN would take x's sign).
inline float q8_sigmoid(float x) { return x != x ? x + x : 1.0f / (1.0f + q8_exp(-x)); }
