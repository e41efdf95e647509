// QMatMul (docs/quantization.md, "Batched MatMul of two activations"): a_q [batch, M, K] ·
// b_q [batch, K, N], each batch at the offsets the host worked out (numpy's batch broadcasting),
// as element pairs (a, b). A 16 × 16 work-group computes a 16 × 16 tile of y, K in steps of 16
// staged in __local memory; past M, N or K the operands read as 0. The integer sum is exact, so
// any order gives the reference's acc; then y = (float)acc · S, or y_q = clamp(rne((float)acc · M),
// lo, hi) (epilogue.cl's requantize).
#define Q8_QMM_TILE 16

__kernel __attribute__((reqd_work_group_size(Q8_QMM_TILE, Q8_QMM_TILE, 1))) void qmatmul(
    __global const char* a, __global const char* b, __global const long* offsets, int m, int k, int n, int int8_out, float factor,
    int lo, int hi, __global char* y_q, __global float* y_f) {
  __local char ta[Q8_QMM_TILE][Q8_QMM_TILE], tb[Q8_QMM_TILE][Q8_QMM_TILE];
  const int j = get_global_id(0), i = get_global_id(1), batch = get_global_id(2);
  const int lj = get_local_id(0), li = get_local_id(1);
  const __global char* ab = a + offsets[2 * batch];
  const __global char* bb = b + offsets[2 * batch + 1];
  int acc = 0;
  for (int t0 = 0; t0 < k; t0 += Q8_QMM_TILE) {
    ta[li][lj] = i < m && t0 + lj < k ? ab[(long)i * k + t0 + lj] : 0;
    tb[li][lj] = t0 + li < k && j < n ? bb[(long)(t0 + li) * n + j] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = 0; t < Q8_QMM_TILE; ++t) acc += (int)ta[li][t] * (int)tb[t][lj];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i >= m || j >= n) return;
  const long at = ((long)batch * m + i) * n + j;
  if (int8_out) y_q[at] = requantize(acc, factor, lo, hi);
  else y_f[at] = (float)acc * factor;
}
