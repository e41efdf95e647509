// The rows of an implicit GEMM for QConv with one group, made explicit: cols[r, kk] for output row
// r = s · P + o (sample s, output position o of P) and column kk = ci · T + tap (input channel ci,
// kernel tap of T), the input value that tap reads, 0 where it falls in the padding. Rows are
// width ≥ C · T bytes, the rest zeros (width a multiple of 16, so that qgemm_mma reads whole
// aligned 16-byte chunks). Then QConv is QGemm of cols [rows, width] by w [M, width] (the
// weights, zero-padded alike), written back as NCHW (qgemm_mma.cl's spatial argument). geometry as
// qconv.cl's.
__kernel void im2col_int8(__global const char* x, __global char* cols, int c, int rows, int width, __global const int* geometry) {
  const int kk = get_global_id(0), r = get_global_id(1);
  const int in_d = geometry[0], in_h = geometry[1], in_w = geometry[2];
  const int out_h = geometry[4], out_w = geometry[5];
  const int k_d = geometry[6], k_h = geometry[7], k_w = geometry[8];
  const int taps = k_d * k_h * k_w, out_size = geometry[3] * out_h * out_w;
  if (kk >= width || r >= rows) return;
  if (kk >= c * taps) {
    cols[(long)r * width + kk] = 0;
    return;
  }
  const int s = r / out_size, o = r % out_size, ci = kk / taps, tap = kk % taps;
  const int oz = o / (out_h * out_w), oy = (o / out_w) % out_h, ox = o % out_w;
  const int a = tap / (k_h * k_w), b = (tap / k_w) % k_h, e = tap % k_w;
  const int iz = oz * geometry[9] - geometry[15] + a * geometry[12];
  const int iy = oy * geometry[10] - geometry[16] + b * geometry[13];
  const int ix = ox * geometry[11] - geometry[17] + e * geometry[14];
  const bool inside = iz >= 0 && iz < in_d && iy >= 0 && iy < in_h && ix >= 0 && ix < in_w;
  cols[(long)r * width + kk] = inside ? x[(((long)s * c + ci) * in_d + iz) * in_h * in_w + (long)iy * in_w + ix] : (char)0;
}
