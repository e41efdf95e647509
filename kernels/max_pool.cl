// MaxPool on int8 (a Q moved back across it: max commutes with quantization), portable: one
// work-item per output element of a 2-D window, padding never winning, as the CPU op computes it.
// geometry: in_h, in_w, out_h, out_w, kernel_h, kernel_w, stride_h, stride_w, dilation_h,
// dilation_w, pad_top, pad_left.
__kernel void max_pool_int8(__global const char* x, __global char* y, __global const int* geometry) {
  const int in_h = geometry[0], in_w = geometry[1], out_h = geometry[2], out_w = geometry[3];
  const int o = get_global_id(0), plane = get_global_id(1);
  if (o >= out_h * out_w) return;
  const int oy = o / out_w, ox = o % out_w;
  const __global char* src = x + (long)plane * in_h * in_w;
  int best = -128;
  for (int a = 0; a < geometry[4]; ++a) {
    const int iy = oy * geometry[6] - geometry[10] + a * geometry[8];
    if (iy < 0 || iy >= in_h) continue;
    for (int b = 0; b < geometry[5]; ++b) {
      const int ix = ox * geometry[7] - geometry[11] + b * geometry[9];
      if (ix < 0 || ix >= in_w) continue;
      best = max(best, (int)src[iy * in_w + ix]);
    }
  }
  y[(long)plane * out_h * out_w + o] = (char)best;
}
