// Element types of q8 tensors and their mapping to C++ types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace q8 {

// IEEE-754 binary16, stored as its bits.
struct Float16 {
  uint16_t bits = 0;
};

float half_to_float(Float16 h);
Float16 float_to_half(float f);  // round to nearest even

enum class DType : uint8_t { Undefined, Float32, Float16, Int8, Uint8, Int32, Int64, Bool };

size_t dtype_size(DType dtype);
std::string_view dtype_name(DType dtype);  // "float32", "int8", ...
bool is_floating(DType dtype);

// ONNX's TensorProto data-type codes (what Cast's `to` and every typed proto hold): the q8 dtype of
// one, an Error naming `what` for a type q8 does not support; and back (0, UNDEFINED, for none).
DType dtype_from_onnx(int onnx_type, const std::string& what);
int dtype_to_onnx(DType dtype);
std::string onnx_type_name(int onnx_type);  // "FLOAT", "DOUBLE", ...

template <typename T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::Float32; }
template <> constexpr DType dtype_of<Float16>() { return DType::Float16; }
template <> constexpr DType dtype_of<int8_t>() { return DType::Int8; }
template <> constexpr DType dtype_of<uint8_t>() { return DType::Uint8; }
template <> constexpr DType dtype_of<int32_t>() { return DType::Int32; }
template <> constexpr DType dtype_of<int64_t>() { return DType::Int64; }
template <> constexpr DType dtype_of<bool>() { return DType::Bool; }

// Calls fn.template operator()<T>() with T the C++ type of dtype.
template <typename Fn>
decltype(auto) visit_dtype(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::Float32: return fn.template operator()<float>();
    case DType::Float16: return fn.template operator()<Float16>();
    case DType::Int8: return fn.template operator()<int8_t>();
    case DType::Uint8: return fn.template operator()<uint8_t>();
    case DType::Int32: return fn.template operator()<int32_t>();
    case DType::Int64: return fn.template operator()<int64_t>();
    case DType::Bool: return fn.template operator()<bool>();
    case DType::Undefined: break;
  }
  return fn.template operator()<float>();  // unreachable for tensors q8 creates
}

// Like visit_dtype, for the types arithmetic ops compute in (no float16 or bool).
template <typename Fn>
decltype(auto) visit_numeric(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::Int8: return fn.template operator()<int8_t>();
    case DType::Uint8: return fn.template operator()<uint8_t>();
    case DType::Int32: return fn.template operator()<int32_t>();
    case DType::Int64: return fn.template operator()<int64_t>();
    default: return fn.template operator()<float>();
  }
}

// fn<T>() with T an unsigned integer of `bytes` (1, 2, 4, else 8): a stand-in for any element
// type of that width, for code that only moves values (copies, transposes, nearest picks).
template <typename Fn>
decltype(auto) visit_width(size_t bytes, Fn&& fn) {
  switch (bytes) {
    case 1: return fn.template operator()<uint8_t>();
    case 2: return fn.template operator()<uint16_t>();
    case 4: return fn.template operator()<uint32_t>();
    default: return fn.template operator()<uint64_t>();
  }
}

}  // namespace q8
