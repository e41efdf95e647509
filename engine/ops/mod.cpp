// Mod: C = A mod B with numpy broadcasting (ONNX Mod, opset 10 and 13; docs/ops.md, "Mod"). With
// fmod = 0 (integers only) the remainder takes the divisor's sign, as Python's %; with fmod = 1 it
// is C's fmod, with the dividend's sign (float32 and float16 must use it). An integer divisor of 0 is an Error.
#include <type_traits>

#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

class Mod final : public Op {
 public:
  explicit Mod(bool fmod) : fmod_(fmod) {}

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& a = required_input(in, 0, "Mod", "A");
    const Tensor& b = required_input(in, 1, "Mod", "B");
    if (a.dtype() == DType::Float32 || a.dtype() == DType::Float16) {
      check(fmod_, "Mod: float inputs need fmod = 1");
      check(b.dtype() == a.dtype(), "Mod: inputs have different types");
      if (a.dtype() == DType::Float32)
        return {broadcast_binary<float, float>(a, b, DType::Float32, "Mod", [](float x, float y) { return std::fmod(x, y); })};
      // float16: fmod of the widened values is exact, so it rounds back to itself.
      return {broadcast_binary<Float16, Float16>(a, b, DType::Float16, "Mod", [](Float16 x, Float16 y) {
        return float_to_half(std::fmod(half_to_float(x), half_to_float(y)));
      })};
    }
    check(a.dtype() == DType::Int8 || a.dtype() == DType::Uint8 || a.dtype() == DType::Int32 || a.dtype() == DType::Int64,
          "Mod: input type " + std::string(dtype_name(a.dtype())) + " is not supported");
    return {visit_numeric(a.dtype(), [&]<typename T>() {
      if constexpr (std::is_integral_v<T>) {
        for (int64_t i = 0; i < b.numel(); ++i) check(b.data<T>()[i] != T(0), "Mod: the divisor B holds 0 at index " + std::to_string(i));
        return arithmetic(a, b, "Mod", [&](T x, T y) {
          const T r = T(x % y);  // C++: the dividend's sign
          return fmod_ || r == 0 || (r < 0) == (y < 0) ? r : T(r + y);
        });
      }
      return Tensor();  // float32 is handled above
    })};
  }

 private:
  bool fmod_;
};

}  // namespace

std::unique_ptr<Op> create_mod(const Node& node, const OpContext&) {
  const int64_t fmod = node.attr_int("fmod", 0);
  check(fmod == 0 || fmod == 1, "Mod: fmod must be 0 or 1, got " + std::to_string(fmod));
  return std::make_unique<Mod>(fmod == 1);
}

}  // namespace q8
