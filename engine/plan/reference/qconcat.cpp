// QConcat (domain q8): INT8 Concat whose inputs have their own scales (docs/quantization.md,
// "Concat with different scales"): input i's values go through its table, T_i[v + 128] =
// Q_out(DQ_i(v)), into its slice of the output, joined along axis as Concat joins them.
// Inputs: x_0 … x_{n-1} int8, then tables int8 [n, 256]. Attributes: axis.
#include "engine/ops/op.h"

namespace q8 {

namespace {
class QConcat final : public SizedOp {
 public:
  explicit QConcat(const Node& node) : axis_(node.attr_int("axis", 0)), name_(node.describe()) {}

  std::vector<TensorDesc> output_descs(const std::vector<TensorDesc>& in) const override {
    check(in.size() >= 2, name_ + ": needs inputs and a table");
    const size_t inputs = in.size() - 1;
    check(in.back().dtype == DType::Int8 && in.back().dims == Dims{int64_t(inputs), 256},
          name_ + ": tables must be int8 [" + std::to_string(inputs) + ", 256]");
    Dims out = in[0].dims;
    check(!out.empty(), name_ + ": inputs need rank >= 1");
    const size_t axis = size_t(normalize_axis(axis_, int64_t(out.size()), "QConcat"));
    out[axis] = 0;
    for (size_t i = 0; i < inputs; ++i) {
      const Dims& d = in[i].dims;
      check(in[i].dtype == DType::Int8, name_ + ": input " + std::to_string(i) + " must be int8");
      bool fits = d.size() == out.size();
      for (size_t k = 0; fits && k < d.size(); ++k) fits = k == axis || d[k] == out[k];
      check(fits, name_ + ": input " + std::to_string(i) + " " + dims_to_string(d) + " does not match input 0 " +
                      dims_to_string(in[0].dims) + " outside axis " + std::to_string(axis));
      out[axis] += d[axis];
    }
    return {{DType::Int8, out}};
  }

  void run_into(const Inputs& in, std::vector<Tensor>& out) const override {
    Tensor& y = out[0];
    const size_t axis = size_t(normalize_axis(axis_, int64_t(y.rank()), "QConcat"));
    int64_t outer = 1, rest = 1;
    for (size_t d = 0; d < axis; ++d) outer *= y.dim(d);
    for (size_t d = axis + 1; d < y.rank(); ++d) rest *= y.dim(d);
    const int64_t inner = y.dim(axis) * rest;
    const int8_t* tables = in.back()->data<int8_t>();
    int8_t* py = y.data<int8_t>();
    int64_t offset = 0;
    for (size_t i = 0; i + 1 < in.size(); ++i) {
      const int8_t* px = in[i]->data<int8_t>();
      const int8_t* table = tables + i * 256;
      const int64_t inner_i = in[i]->dim(axis) * rest;
      for (int64_t row = 0; row < outer; ++row)
        for (int64_t column = 0; column < inner_i; ++column) py[row * inner + offset + column] = table[px[row * inner_i + column] + 128];
      offset += inner_i;
    }
  }

 private:
  int64_t axis_;
  std::string name_;
};
}  // namespace

std::unique_ptr<Op> create_qconcat(const Node& node, const OpContext&) { return std::make_unique<QConcat>(node); }

}  // namespace q8
