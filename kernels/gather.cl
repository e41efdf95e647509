// The data-movement ops that only select values (Transpose, Slice, nearest Resize, on int8 or
// float32): y[i] = x[source[i]], where the host made source by running the CPU op once on the
// element indices (engine/opencl/ops/gather.cpp), so the selection is the CPU op's own.
__kernel void gather_int8(__global const char* x, __global char* y, __global const int* source, long count) {
  const long i = get_global_id(0);
  if (i < count) y[i] = x[source[i]];
}

__kernel void gather_float(__global const float* x, __global float* y, __global const int* source, long count) {
  const long i = get_global_id(0);
  if (i < count) y[i] = x[source[i]];
}

// Pad: the same, with source −1 where the constant fills.
__kernel void gather_fill_int8(__global const char* x, __global char* y, __global const int* source, long count, char fill) {
  const long i = get_global_id(0);
  if (i < count) y[i] = source[i] >= 0 ? x[source[i]] : fill;
}

__kernel void gather_fill_float(__global const float* x, __global float* y, __global const int* source, long count, float fill) {
  const long i = get_global_id(0);
  if (i < count) y[i] = source[i] >= 0 ? x[source[i]] : fill;
}

// An embedding: rows of a table (rows × width floats) looked up by ids the host checked and made
// non-negative: y[i] = table[ids[i / width] · width + i % width].
__kernel void embedding_float(__global const float* table, __global const int* ids, __global float* y, long count, long width) {
  const long i = get_global_id(0);
  if (i < count) y[i] = table[(long)ids[i / width] * width + i % width];
}
