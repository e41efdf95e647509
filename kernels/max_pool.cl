// MaxPool on int8 (a Q moved back across it: max commutes with quantization), portable: one
// work-item per output element of a 2-D window, padding never winning, as the CPU op computes it.
// geometry: in_h, in_w, out_h, out_w, kernel_h, kernel_w, stride_h, stride_w, dilation_h,
// dilation_w, pad_top, pad_left.
__kernel void max_pool_int8(__global const char* x, __global char* y, __global const int* geometry) {
  const int in_h = geometry[Q8_POOL_IN], in_w = geometry[Q8_POOL_IN + 1], out_h = geometry[Q8_POOL_OUT], out_w = geometry[Q8_POOL_OUT + 1];
  const int o = get_global_id(0), plane = get_global_id(1);
  if (o >= out_h * out_w) return;
  const int oy = o / out_w, ox = o % out_w;
  const __global char* src = x + (long)plane * in_h * in_w;
  int best = -128;
  for (int a = 0; a < geometry[Q8_POOL_KERNEL]; ++a) {
    const int iy = oy * geometry[Q8_POOL_STRIDES] - geometry[Q8_POOL_PADS] + a * geometry[Q8_POOL_DILATIONS];
    if (iy < 0 || iy >= in_h) continue;
    for (int b = 0; b < geometry[Q8_POOL_KERNEL + 1]; ++b) {
      const int ix = ox * geometry[Q8_POOL_STRIDES + 1] - geometry[Q8_POOL_PADS + 1] + b * geometry[Q8_POOL_DILATIONS + 1];
      if (ix < 0 || ix >= in_w) continue;
      best = max(best, (int)src[iy * in_w + ix]);
    }
  }
  y[(long)plane * out_h * out_w + o] = (char)best;
}
