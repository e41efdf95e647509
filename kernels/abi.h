// The constants OpenCL kernels and their C++ host code share, once: the program holds this file
// first (engine/opencl/device.cpp), and C++ includes it. Written in the subset of C both compile.
#ifndef Q8_KERNELS_ABI_H
#define Q8_KERNELS_ABI_H

// The weighted ops' epilogue modes (requantize.cl's store_output).
#define Q8_INT8_OUT 0
#define Q8_INT8_OUT_RESIDUAL 1
// A residual added after the op's own int8 rounding (requantize.cl's q8_residual_sum): the op's
// output is the Add's first input, or its second (the residual first).
#define Q8_INT8_OUT_ROUNDED_RESIDUAL 2
#define Q8_INT8_OUT_ROUNDED_RESIDUAL_FIRST 3
#define Q8_FLOAT_OUT 4
// Activations in the epilogue (epilogue.cl): from float b and S, float out or QuantizeLinear's int8 out.
// Every mode from Q8_FLOAT_OUT on reads float b and S.
#define Q8_FLOAT_OUT_GELU 5
#define Q8_FLOAT_OUT_GELU_TANH 6
#define Q8_INT8_OUT_GELU 7
#define Q8_INT8_OUT_GELU_TANH 8
// The other activations in the epilogue (epilogue_activation.cl), the same two outputs.
#define Q8_FLOAT_OUT_SWISH 9
#define Q8_INT8_OUT_SWISH 10
#define Q8_FLOAT_OUT_HARD_SWISH 11
#define Q8_INT8_OUT_HARD_SWISH 12
#define Q8_FLOAT_OUT_SIGMOID 13
#define Q8_INT8_OUT_SIGMOID 14

// Lanes of GlobalAveragePool's work-group, one per partial sum of engine/ops/plane_sum.h.
#define Q8_PLANE_SUM_LANES 64
// Planes per work-group of the OpenCL GlobalAveragePool (its barriers shared by that many planes).
#define Q8_PLANE_SUM_PLANES 4

// Outputs per work-item of the portable QConv (qconv.cl): a strip along the last axis.
#define Q8_CONV_STRIP 8
// Channels per work-item of the channels-last depthwise QConv (qconv.cl).
#define Q8_DEPTHWISE_CHUNK 16

// A window's geometry (int32, 18 values): per group of three, the depth, height and width (leading
// ones 1, or 0 for pads, when the window has fewer than three spatial axes).
#define Q8_GEO_IN 0
#define Q8_GEO_OUT 3
#define Q8_GEO_KERNEL 6
#define Q8_GEO_STRIDES 9
#define Q8_GEO_DILATIONS 12
#define Q8_GEO_PADS 15
#define Q8_GEO_SIZE 18

// MaxPool's geometry (int32, 12 values, two spatial axes): height then width of each.
#define Q8_POOL_IN 0
#define Q8_POOL_OUT 2
#define Q8_POOL_KERNEL 4
#define Q8_POOL_STRIDES 6
#define Q8_POOL_DILATIONS 8
#define Q8_POOL_PADS 10
#define Q8_POOL_SIZE 12

// The float32 activations of activations.cl.
#define Q8_RELU 0
#define Q8_CLIP 1
#define Q8_LEAKY_RELU 2
#define Q8_HARD_SIGMOID 3
#define Q8_HARD_SWISH 4
#define Q8_SIGMOID 5
#define Q8_EXP 6
#define Q8_SQRT 7
#define Q8_TANH 8
#define Q8_ERF 9
#define Q8_GELU 10
#define Q8_GELU_TANH 11
#define Q8_RECIPROCAL 12
#define Q8_NEG 13
#define Q8_ABS 14

// The float32 binary ops of binary.cl, and the axes of its broadcast layout (output dims, then each
// operand's strides).
#define Q8_ADD 0
#define Q8_SUB 1
#define Q8_MUL 2
#define Q8_DIV 3
#define Q8_BROADCAST_AXES 6
// Pow, in binary.cl beside them.
#define Q8_POW 4

// The float32 reductions of reduce.cl.
#define Q8_REDUCE_SUM 0
#define Q8_REDUCE_MEAN 1
#define Q8_REDUCE_SUM_SQUARE 2
#define Q8_REDUCE_L1 3
#define Q8_REDUCE_L2 4
#define Q8_REDUCE_MAX 5
#define Q8_REDUCE_MIN 6

#endif
