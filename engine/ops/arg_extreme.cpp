#include "engine/ops/arg_extreme.h"

#include <cmath>

#include "engine/ops/indexing.h"

namespace q8 {

namespace {

class ArgExtreme final : public Op {
 public:
  ArgExtreme(bool max, int64_t axis, bool keepdims, bool last, const char* name)
      : max_(max), axis_(axis), keepdims_(keepdims), last_(last), name_(name) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, name_, "data");
    check(x.dtype() != DType::Bool, std::string(name_) + ": input type bool is not supported");
    const size_t axis = size_t(normalize_axis(axis_, int64_t(std::max<size_t>(x.rank(), 1)), name_));
    const Dims dims = x.rank() == 0 ? Dims{1} : x.dims();
    const int64_t len = dims[axis], inner = span_size(dims, axis + 1, dims.size()), outer = span_size(dims, 0, axis);
    check(len > 0, std::string(name_) + ": axis " + std::to_string(axis) + " is empty");
    Dims out = dims;
    if (keepdims_) out[axis] = 1;
    else out.erase(out.begin() + long(axis));
    Tensor y(DType::Int64, out);
    const Tensor values = x.dtype() == DType::Float16 ? x.widened() : x;
    visit_numeric(values.dtype(), [&]<typename T>() {
      const T* px = values.data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          int64_t best = 0;
          T top = px[o * len * inner + i];
          for (int64_t k = 1; k < len; ++k) {
            const T v = px[(o * len + k) * inner + i];
            if (better(v, top) || (last_ && v == top)) best = k, top = v;
          }
          y.data<int64_t>()[o * inner + i] = best;
        }
    });
    return {std::move(y)};
  }

 private:
  template <typename T>
  bool better(T v, T top) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(top)) return false;
      if (std::isnan(v)) return true;
    }
    return max_ ? v > top : v < top;
  }

  bool max_;
  int64_t axis_;
  bool keepdims_, last_;
  const char* name_;
};

}  // namespace

std::unique_ptr<Op> make_arg_extreme(const Node& node, bool max, const char* name) {
  return std::make_unique<ArgExtreme>(max, node.attr_int("axis", 0), node.attr_int("keepdims", 1) != 0,
                                      node.attr_int("select_last_index", 0) != 0, name);
}

}  // namespace q8
