#include "engine/ir/dtype.h"

#include <bit>
#include <cstring>
#include <iterator>

#include "engine/ir/error.h"

namespace q8 {

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::Float32: case DType::Int32: return 4;
    case DType::Float16: return 2;
    case DType::Int8: case DType::Uint8: case DType::Bool: return 1;
    case DType::Int64: return 8;
    case DType::Undefined: break;
  }
  return 0;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "float32";
    case DType::Float16: return "float16";
    case DType::Int8: return "int8";
    case DType::Uint8: return "uint8";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Bool: return "bool";
    case DType::Undefined: break;
  }
  return "undefined";
}

bool is_floating(DType dtype) { return dtype == DType::Float32 || dtype == DType::Float16; }

float half_to_float(Float16 h) {
  const uint32_t sign = uint32_t(h.bits & 0x8000) << 16;
  const uint32_t exponent = (h.bits >> 10) & 0x1F;
  uint32_t mantissa = h.bits & 0x3FF;
  uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);  // Inf or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalize
    int shift = 0;
    while ((mantissa & 0x400) == 0) { mantissa <<= 1; ++shift; }
    bits = sign | uint32_t(113 - shift) << 23 | ((mantissa & 0x3FF) << 13);
  }
  return std::bit_cast<float>(bits);
}

Float16 float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000);
  const uint32_t abs = x & 0x7FFFFFFF;
  if (abs >= 0x7F800000) {  // Inf or NaN
    return {uint16_t(sign | 0x7C00 | (abs > 0x7F800000 ? 0x200 : 0))};
  }
  if (abs >= 0x477FF000) return {uint16_t(sign | 0x7C00)};  // rounds past 65504: Inf
  if (abs < 0x38800000) {  // below the smallest normal half: subnormal or zero
    // value = abs_float; half subnormal unit is 2^-24. Round half to even by float arithmetic.
    const float magnitude = std::bit_cast<float>(abs) * 16777216.0f;  // in units of 2^-24
    const float rounded = __builtin_nearbyintf(magnitude);
    return {uint16_t(sign | uint16_t(rounded))};
  }
  // Normal: drop 13 mantissa bits with round half to even.
  const uint32_t lsb = (abs >> 13) & 1;
  const uint32_t rounded = abs + 0xFFF + lsb;
  return {uint16_t(sign | uint16_t((rounded - 0x38000000) >> 13))};
}

namespace {
// TensorProto.DataType (onnx.proto), by code.
constexpr const char* kOnnxTypeNames[] = {"UNDEFINED", "FLOAT",  "UINT8",  "INT8",   "UINT16",    "INT16",      "INT32",   "INT64",   "STRING",
                                         "BOOL",      "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"};
enum OnnxType { kFloat = 1, kUint8 = 2, kInt8 = 3, kInt32 = 6, kInt64 = 7, kBool = 9, kFloat16 = 10 };
}  // namespace

std::string onnx_type_name(int onnx_type) {
  if (onnx_type >= 0 && size_t(onnx_type) < std::size(kOnnxTypeNames)) return kOnnxTypeNames[onnx_type];
  return "type " + std::to_string(onnx_type);
}

DType dtype_from_onnx(int onnx_type, const std::string& what) {
  switch (onnx_type) {
    case kFloat: return DType::Float32;
    case kFloat16: return DType::Float16;
    case kInt8: return DType::Int8;
    case kUint8: return DType::Uint8;
    case kInt32: return DType::Int32;
    case kInt64: return DType::Int64;
    case kBool: return DType::Bool;
    default: break;
  }
  throw Error(what + ": data type " + onnx_type_name(onnx_type) +
              " is not supported (q8 supports FLOAT, FLOAT16, INT8, UINT8, INT32, INT64, BOOL)");
}

int dtype_to_onnx(DType dtype) {
  switch (dtype) {
    case DType::Float32: return kFloat;
    case DType::Float16: return kFloat16;
    case DType::Int8: return kInt8;
    case DType::Uint8: return kUint8;
    case DType::Int32: return kInt32;
    case DType::Int64: return kInt64;
    case DType::Bool: return kBool;
    case DType::Undefined: break;
  }
  return 0;
}

}  // namespace q8
