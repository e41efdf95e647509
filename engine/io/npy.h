// NumPy .npy files (format versions 1.0-3.0, little-endian, C order).
#pragma once

#include <string>

#include "engine/ir/tensor.h"

namespace q8 {

// Reads a .npy file of float32, float16, int8, uint8, int32, int64 or bool.
// Errors name the file and what is wrong (bad magic, truncated data, Fortran order, dtype).
Tensor read_npy(const std::string& path);
Tensor parse_npy(const std::string& bytes, const std::string& what);
// The header of a .npy file: element type, dims, and where the data starts. Reads only the header.
struct NpyHeader {
  DType dtype = DType::Undefined;
  Dims dims;
  size_t data_offset = 0;
};
NpyHeader read_npy_header(const std::string& path);
NpyHeader parse_npy_header(const std::string& bytes, const std::string& what);

// Writes tensor as a version 1.0 .npy file, atomically.
void write_npy(const std::string& path, const Tensor& tensor);
std::string serialize_npy(const Tensor& tensor);

}  // namespace q8
