// QConv, portable: each work-item computes a strip of Q8_CONV_STRIP neighbouring outputs along the
// last axis of one output row of one plane (sample · M + output channel), so each of the filter's
// taps is read once per strip and the index arithmetic is done once per strip. Up to three spatial
// axes (fewer are padded with size 1); taps outside the input are zero; groups, strides, dilations
// and pads as ONNX's Conv. Then the epilogue (requantize.cl). Grouped and depthwise convolutions
// run here on every device.
// geometry: in[3], out[3], kernel[3], strides[3], dilations[3], pads_begin[3].
// One work-item per strip, in a 1-D range: strips of a row, rows of a plane, then `planes` planes
// (the host checks that the count of strips fits an int, and that an input plane does).

__kernel void qconv(__global const char* x, __global const char* w, int c, int m, int group, int planes, __global const int* geometry,
                    int mode, __global char* y_q, __global float* y_f, __global const int* bias_q, __global const float* bias_f,
                    __global const float* scale, __global const char* residual, float r_scale, float y_ratio, int lo, int hi) {
  const int in_d = geometry[Q8_GEO_IN], in_h = geometry[Q8_GEO_IN + 1], in_w = geometry[Q8_GEO_IN + 2];
  const int out_d = geometry[Q8_GEO_OUT], out_h = geometry[Q8_GEO_OUT + 1], out_w = geometry[Q8_GEO_OUT + 2];
  const int k_d = geometry[Q8_GEO_KERNEL], k_h = geometry[Q8_GEO_KERNEL + 1], k_w = geometry[Q8_GEO_KERNEL + 2];
  const int strips = (out_w + Q8_CONV_STRIP - 1) / Q8_CONV_STRIP, rows = out_d * out_h;
  const int item = get_global_id(0), per_plane = strips * rows;
  const int plane = item / per_plane, in_plane_item = item % per_plane;
  if (plane >= planes) return;  // the range is rounded up to whole work-groups
  const int row = in_plane_item / strips, ox0 = (in_plane_item % strips) * Q8_CONV_STRIP;
  const int oz = row / out_h, oy = row % out_h;
  const int s = plane / m, oc = plane % m, cg = c / group, g = oc / (m / group);
  const int z0 = oz * geometry[Q8_GEO_STRIDES] - geometry[Q8_GEO_PADS], y0 = oy * geometry[Q8_GEO_STRIDES + 1] - geometry[Q8_GEO_PADS + 1];
  const int sx = geometry[Q8_GEO_STRIDES + 2], dx = geometry[Q8_GEO_DILATIONS + 2], x0 = ox0 * sx - geometry[Q8_GEO_PADS + 2];
  const int in_plane = in_d * in_h * in_w, taps = k_d * k_h * k_w;
  const __global char* image = x + ((long)s * c + (long)g * cg) * in_plane;
  const __global char* filter = w + (long)oc * cg * taps;
  int acc[Q8_CONV_STRIP];
  for (int t = 0; t < Q8_CONV_STRIP; ++t) acc[t] = 0;
  for (int ci = 0; ci < cg; ++ci, image += in_plane, filter += taps) {
    for (int a = 0; a < k_d; ++a) {
      const int iz = z0 + a * geometry[Q8_GEO_DILATIONS];
      if (iz < 0 || iz >= in_d) continue;
      for (int b = 0; b < k_h; ++b) {
        const int iy = y0 + b * geometry[Q8_GEO_DILATIONS + 1];
        if (iy < 0 || iy >= in_h) continue;
        const __global char* line = image + (iz * in_h + iy) * in_w;
        const __global char* row_taps = filter + (a * k_h + b) * k_w;
        for (int e = 0; e < k_w; ++e) {
          const int wv = row_taps[e], ix0 = x0 + e * dx;
          for (int t = 0; t < Q8_CONV_STRIP; ++t) {
            const int ix = ix0 + t * sx;
            acc[t] += ix >= 0 && ix < in_w ? (int)line[ix] * wv : 0;
          }
        }
      }
    }
  }
  const long first = ((long)plane * rows + row) * out_w + ox0;
  for (int t = 0; t < Q8_CONV_STRIP && ox0 + t < out_w; ++t)
    store_output(mode, y_q, y_f, first + t, oc, acc[t], bias_q, bias_f, scale, residual, r_scale, y_ratio, lo, hi);
}

// Depthwise QConv (group = C = M, 2 spatial axes) where its input or its output is channels-last
// (engine/opencl/channels_last.h): each work-item computes 16 neighbouring channels of one output
// position (Q8_DEPTHWISE_CHUNK, which the char16 and int16 vectors below are). The output is int8
// (requantized, or an activation then QuantizeLinear: `mode` Q8_INT8_OUT or an int8-out activation
// mode) in either layout, or float (Q8_FLOAT_OUT or a float activation mode, epilogue.cl's
// float_epilogue), always NCHW. w is packed at create as [taps, C]; C is a multiple of 16, so every
// 16-byte access below is aligned (buffers are aligned far more). A channels-last side moves 16
// bytes per load or store (x [N, H, W, C], y [N, OH, OW, C]); an NCHW side one value per channel.
// Work-items: with a channels-last output, positions then 16-channel chunks fastest; with an NCHW
// output, per sample, chunks then positions fastest, so neighbouring work-items write neighbouring
// values of each plane.
__kernel void qconv_depthwise_nhwc(__global const char* x, __global const char* w_tc, int c, int in_nhwc, int out_nhwc, int count,
                                   __global const int* geometry, int mode, __global char* y_q, __global float* y_f, __global const int* bias_q,
                                   __global const float* bias_f, __global const float* scale, float r_scale, int lo, int hi) {
  const int id = get_global_id(0);
  if (id >= count) return;
  const int in_h = geometry[Q8_GEO_IN + 1], in_w = geometry[Q8_GEO_IN + 2], out_h = geometry[Q8_GEO_OUT + 1], out_w = geometry[Q8_GEO_OUT + 2], k_h = geometry[Q8_GEO_KERNEL + 1], k_w = geometry[Q8_GEO_KERNEL + 2];
  const int chunks = c / Q8_DEPTHWISE_CHUNK, out_size = out_h * out_w;
  int s, o, c0;
  if (out_nhwc) {
    const int pos = id / chunks;
    s = pos / out_size, o = pos % out_size, c0 = (id % chunks) * Q8_DEPTHWISE_CHUNK;
  } else {
    const int per_sample = chunks * out_size, rest = id % per_sample;
    s = id / per_sample, o = rest % out_size, c0 = (rest / out_size) * Q8_DEPTHWISE_CHUNK;
  }
  const int oy = o / out_w, ox = o % out_w;
  const int y0 = oy * geometry[Q8_GEO_STRIDES + 1] - geometry[Q8_GEO_PADS + 1], x0 = ox * geometry[Q8_GEO_STRIDES + 2] - geometry[Q8_GEO_PADS + 2];
  int16 acc = (int16)(0);
  for (int b = 0; b < k_h; ++b) {
    const int iy = y0 + b * geometry[Q8_GEO_DILATIONS + 1];
    if (iy < 0 || iy >= in_h) continue;
    for (int e = 0; e < k_w; ++e) {
      const int ix = x0 + e * geometry[Q8_GEO_DILATIONS + 2];
      if (ix < 0 || ix >= in_w) continue;
      char16 xv;
      if (in_nhwc) {  // 16-byte aligned: c0 and c are multiples of 16
        xv = as_char16(*(__global const int4*)(x + (((long)s * in_h + iy) * in_w + ix) * c + c0));
      } else {
        char* lanes = (char*)&xv;
        for (int i = 0; i < 16; ++i) lanes[i] = x[(((long)s * c + c0 + i) * in_h + iy) * in_w + ix];
      }
      acc += convert_int16(xv) * convert_int16(as_char16(*(__global const int4*)(w_tc + (b * k_w + e) * c + c0)));
    }
  }
  const float16 m = *(__global const float16*)(scale + c0);
  const float* ml = (const float*)&m;
  const int* al = (const int*)&acc;
  const long plane0 = ((long)s * c + c0) * out_size + o;  // NCHW: lane i at plane0 + i · out_size
  if (mode >= Q8_FLOAT_OUT && !q8_int8_after_activation(mode)) {  // float out, NCHW
    for (int i = 0; i < 16; ++i) y_f[plane0 + (long)i * out_size] = float_epilogue(mode, al[i], ml[i], bias_f[c0 + i]);
    return;
  }
  char16 out;
  char* ol = (char*)&out;
  if (mode == Q8_INT8_OUT) {
    const int16 t = acc + *(__global const int16*)(bias_q + c0);
    const int* tl = (const int*)&t;
    for (int i = 0; i < 16; ++i) ol[i] = requantize(tl[i], ml[i], lo, hi);
  } else {  // an activation, then QuantizeLinear (epilogue.cl's store_output, 16 lanes)
    for (int i = 0; i < 16; ++i) ol[i] = (char)q8_quantized(float_epilogue(mode, al[i], ml[i], bias_f[c0 + i]), r_scale);
  }
  if (out_nhwc) {
    *(__global int4*)(y_q + (((long)s * out_size + o) * c + c0)) = as_int4(out);
  } else {
    for (int i = 0; i < 16; ++i) y_q[plane0 + (long)i * out_size] = ol[i];
  }
}
