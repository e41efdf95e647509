// GELU in a weighted op's epilogue (docs/quantization.md, "Activations in the epilogue"), the same bits on
// the host and on every OpenCL device: the INT8 reference's epilogue (engine/plan/reference/
// epilogue.cpp includes this file through engine/ops/gelu_float.h) and epilogue.cl call these
// functions. erf and tanh are Cephes' erff and tanhf, polynomials in Horner form with explicit fma
// (exp.cl's macros), their exponentials q8_exp; every step is one IEEE operation or an explicit
// fma and nothing is contracted. Measured against the double erf and tanh in
// tests/plan/gelu_epilogue_test.cpp. Written in the subset of C++ and OpenCL C both compile; needs
// exp.cl first.

// erf(x): x · T(x²) for |x| < 1; 1 − erfc(|x|) with the sign of x above, erfc(a) = e^(−a²) / a ·
// P(1/a²) for a < 2 and e^(−a²) / a · R(1/a²) up to 4, where erf rounds to ±1 in float32.
inline float q8_erf(float x) {
  if (!(x == x)) return x;
  const float a = x < 0.0f ? -x : x;
  if (a < 1.0f) {
    const float z = x * x;
    float t = 7.853861353153693e-5f;
    t = Q8_FMA(t, z, -8.010193625184903e-4f);
    t = Q8_FMA(t, z, 5.188327685732524e-3f);
    t = Q8_FMA(t, z, -2.685381193529856e-2f);
    t = Q8_FMA(t, z, 1.128358514861418e-1f);
    t = Q8_FMA(t, z, -3.761262582423300e-1f);
    t = Q8_FMA(t, z, 1.128379165726710e+0f);
    return x * t;
  }
  if (a >= 4.0f) return x < 0.0f ? -1.0f : 1.0f;
  const float e = q8_exp(-(a * a)), y = 1.0f / a, z = y * y;
  float erfc;
  if (a < 2.0f) {
    float p = 2.326819970068386e-2f;
    p = Q8_FMA(p, z, -1.387039388740657e-1f);
    p = Q8_FMA(p, z, 3.687424674597105e-1f);
    p = Q8_FMA(p, z, -5.824733027278666e-1f);
    p = Q8_FMA(p, z, 6.210004621745983e-1f);
    p = Q8_FMA(p, z, -4.944515323274145e-1f);
    p = Q8_FMA(p, z, 3.404879937665872e-1f);
    p = Q8_FMA(p, z, -2.741127028184656e-1f);
    p = Q8_FMA(p, z, 5.638259427386472e-1f);
    erfc = (e * y) * p;
  } else {
    float r = -1.047766399936249e+1f;
    r = Q8_FMA(r, z, 1.297719955372516e+1f);
    r = Q8_FMA(r, z, -7.495518717768503e+0f);
    r = Q8_FMA(r, z, 2.921019019210786e+0f);
    r = Q8_FMA(r, z, -1.015265279202700e+0f);
    r = Q8_FMA(r, z, 4.218463358204948e-1f);
    r = Q8_FMA(r, z, -2.820767439740514e-1f);
    r = Q8_FMA(r, z, 5.641895067754075e-1f);
    erfc = (e * y) * r;
  }
  const float v = 1.0f - erfc;
  return x < 0.0f ? -v : v;
}

// tanh(x): x + x³ · P(x²) for |x| < 0.625, else 1 − 2 / (e^(2|x|) + 1) with the sign of x; ±1 past 9.
inline float q8_tanh(float x) {
  if (!(x == x) || x == 0.0f) return x;  // NaN, ±0
  const float a = x < 0.0f ? -x : x;
  if (a >= 9.0f) return x < 0.0f ? -1.0f : 1.0f;
  if (a >= 0.625f) {
    const float v = 1.0f - 2.0f / (q8_exp(a + a) + 1.0f);
    return x < 0.0f ? -v : v;
  }
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = Q8_FMA(p, z, 2.06390887954e-2f);
  p = Q8_FMA(p, z, -5.37397155531e-2f);
  p = Q8_FMA(p, z, 1.33314422036e-1f);
  p = Q8_FMA(p, z, -3.33332819422e-1f);
  return Q8_FMA(p * z, x, x);
}

// GELU, ONNX's formulas in their order: x/2 · (1 + erf(x/√2)), and approximate = "tanh":
// x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³))).
inline float q8_gelu(float x) { return 0.5f * x * (1.0f + q8_erf(x * 0.7071067811865476f)); }
inline float q8_gelu_tanh(float x) { return 0.5f * x * (1.0f + q8_tanh(0.7978845608028654f * (x + 0.044715f * x * x * x))); }
