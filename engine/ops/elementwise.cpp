#include "engine/ops/elementwise.h"

namespace q8 {

const Tensor& float_input(const Inputs& in, size_t i, const char* op, const char* what) {
  const Tensor& t = required_input(in, i, op, what);
  check(t.dtype() == DType::Float32, std::string(op) + ": input " + std::to_string(i) + " (" + what +
                                         ") must be float32, got " + std::string(dtype_name(t.dtype())));
  return t;
}

}  // namespace q8
