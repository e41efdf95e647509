// QConv, portable: one work-item per output element (position o of plane s·M + oc), up to three
// spatial axes (fewer are padded with size 1). Taps outside the input are zero; groups, strides,
// dilations and pads as ONNX's Conv. Then the epilogue (requantize.cl).
// geometry: in[3], out[3], kernel[3], strides[3], dilations[3], pads_begin[3].
__kernel void qconv(__global const char* x, __global const char* w, int c, int m, int group, __global const int* geometry,
                    int mode, __global char* y_q, __global float* y_f, __global const int* bias_q, __global const float* bias_f,
                    __global const float* scale, __global const char* residual, float r_scale, int lo, int hi) {
  const int in_d = geometry[0], in_h = geometry[1], in_w = geometry[2];
  const int out_d = geometry[3], out_h = geometry[4], out_w = geometry[5];
  const int k_d = geometry[6], k_h = geometry[7], k_w = geometry[8];
  const int out_size = out_d * out_h * out_w;
  const int o = get_global_id(0), plane = get_global_id(1);
  if (o >= out_size) return;
  const int s = plane / m, oc = plane % m, cg = c / group, mg = m / group, g = oc / mg;
  const int oz = o / (out_h * out_w), oy = (o / out_w) % out_h, ox = o % out_w;
  const int z0 = oz * geometry[9] - geometry[15], y0 = oy * geometry[10] - geometry[16], x0 = ox * geometry[11] - geometry[17];
  const long in_size = (long)in_d * in_h * in_w;
  const int taps = k_d * k_h * k_w;
  int acc = 0;
  for (int ci = 0; ci < cg; ++ci) {
    const __global char* image = x + ((long)s * c + (long)g * cg + ci) * in_size;
    const __global char* filter = w + ((long)oc * cg + ci) * taps;
    for (int a = 0; a < k_d; ++a) {
      const int iz = z0 + a * geometry[12];
      if (iz < 0 || iz >= in_d) continue;
      for (int b = 0; b < k_h; ++b) {
        const int iy = y0 + b * geometry[13];
        if (iy < 0 || iy >= in_h) continue;
        for (int e = 0; e < k_w; ++e) {
          const int ix = x0 + e * geometry[14];
          if (ix < 0 || ix >= in_w) continue;
          acc += (int)image[((long)iz * in_h + iy) * in_w + ix] * (int)filter[(a * k_h + b) * k_w + e];
        }
      }
    }
  }
  store_output(mode, y_q, y_f, (long)plane * out_size + o, oc, acc, bias_q, bias_f, scale, residual, r_scale, lo, hi);
}
