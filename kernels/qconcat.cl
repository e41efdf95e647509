// QConcat, portable: one launch per input. Input i's values go through its 256-entry table
// (T_i[v + 128] = Q_out(DQ_i(v)), built on the host) into its slice of the output: x_i viewed as
// [outer, inner_i] lands at columns [offset, offset + inner_i) of y viewed as [outer, inner].
__kernel void qconcat_part(__global const char* x, __global const char* table, __global char* y, long outer, long inner_i,
                           long inner, long offset) {
  const long e = get_global_id(0);
  if (e >= outer * inner_i) return;
  const long row = e / inner_i, column = e % inner_i;
  y[row * inner + offset + column] = table[(int)x[e] + 128];
}
