// QConvTranspose, portable: one work-item per output element, gathering the input positions that
// reach it: output o = i·stride − pad_begin + k·dilation along each axis, so for tap k the input
// is i = (o + pad_begin − k·dilation) / stride where that divides exactly and lands inside. w is
// [C, M/g, k…]; then the epilogue (requantize.cl). geometry as qconv's, in[] being X's spatial dims.
__kernel void qconv_transpose(__global const char* x, __global const char* w, int c, int m, int group, __global const int* geometry,
                              int mode, __global char* y_q, __global float* y_f, __global const int* bias_q,
                              __global const float* bias_f, __global const float* scale, __global const char* residual, float r_scale,
                              float y_ratio, int lo, int hi) {
  const int in_d = geometry[Q8_GEO_IN], in_h = geometry[Q8_GEO_IN + 1], in_w = geometry[Q8_GEO_IN + 2];
  const int out_d = geometry[Q8_GEO_OUT], out_h = geometry[Q8_GEO_OUT + 1], out_w = geometry[Q8_GEO_OUT + 2];
  const int k_d = geometry[Q8_GEO_KERNEL], k_h = geometry[Q8_GEO_KERNEL + 1], k_w = geometry[Q8_GEO_KERNEL + 2];
  const int out_size = out_d * out_h * out_w;
  const int o = get_global_id(0), plane = get_global_id(1);
  if (o >= out_size) return;
  const int s = plane / m, oc = plane % m, cg = c / group, mg = m / group, gi = oc / mg, j = oc % mg;
  const int oz = o / (out_h * out_w), oy = (o / out_w) % out_h, ox = o % out_w;
  const long in_size = (long)in_d * in_h * in_w;
  const int taps = k_d * k_h * k_w;
  // Taps outside, channels inside: which input a tap reaches (the divisions and remainders) does
  // not depend on the channel, so it is worked out once per tap. Integer sums are exact, so the
  // order of the terms does not change the result.
  const __global char* image = x + ((long)s * c + (long)gi * cg) * in_size;
  const __global char* filter = w + ((long)gi * cg * mg + j) * taps;
  const long filter_step = (long)mg * taps;
  int acc = 0;
  for (int a = 0; a < k_d; ++a) {
    const int tz = oz + geometry[Q8_GEO_PADS] - a * geometry[Q8_GEO_DILATIONS];
    if (tz < 0 || tz % geometry[Q8_GEO_STRIDES] != 0 || tz / geometry[Q8_GEO_STRIDES] >= in_d) continue;
    for (int b = 0; b < k_h; ++b) {
      const int ty = oy + geometry[Q8_GEO_PADS + 1] - b * geometry[Q8_GEO_DILATIONS + 1];
      if (ty < 0 || ty % geometry[Q8_GEO_STRIDES + 1] != 0 || ty / geometry[Q8_GEO_STRIDES + 1] >= in_h) continue;
      for (int e = 0; e < k_w; ++e) {
        const int tx = ox + geometry[Q8_GEO_PADS + 2] - e * geometry[Q8_GEO_DILATIONS + 2];
        if (tx < 0 || tx % geometry[Q8_GEO_STRIDES + 2] != 0 || tx / geometry[Q8_GEO_STRIDES + 2] >= in_w) continue;
        const long at = ((long)(tz / geometry[Q8_GEO_STRIDES]) * in_h + ty / geometry[Q8_GEO_STRIDES + 1]) * in_w + tx / geometry[Q8_GEO_STRIDES + 2];
        const int tap = (a * k_h + b) * k_w + e;
        for (int ci = 0; ci < cg; ++ci) acc += (int)image[ci * in_size + at] * (int)filter[ci * filter_step + tap];
      }
    }
  }
  store_output(mode, y_q, y_f, (long)plane * out_size + o, oc, acc, bias_q, bias_f, scale, residual, r_scale, y_ratio, lo, hi);
}
