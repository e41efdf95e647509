// QConcat (domain q8): INT8 Concat whose inputs have their own scales (docs/quantization.md,
// "Concat with different scales"): input i's values go through its table, T_i[v + 128] =
// Q_out(DQ_i(v)), then the inputs are joined as Concat joins them.
// Inputs: x_0 … x_{n-1} int8, then tables int8 [n, 256]. Attributes: axis.
#include "engine/ops/op.h"

namespace q8 {

namespace {
class QConcat final : public Op {
 public:
  QConcat(const Node& node, const OpContext& ctx) : name_(node.describe()) {
    Node concat = node;
    concat.domain.clear();
    concat.op_type = "Concat";
    concat_ = find_op("Concat")->create(concat, ctx);
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    check(in.size() >= 2, name_ + ": needs inputs and a table");
    const Tensor& tables = required_input(in, in.size() - 1, "QConcat", "tables");
    const size_t inputs = in.size() - 1;
    check(tables.dtype() == DType::Int8 && tables.dims() == Dims{int64_t(inputs), 256},
          name_ + ": tables must be int8 [" + std::to_string(inputs) + ", 256]");
    std::vector<Tensor> mapped;
    mapped.reserve(inputs);
    for (size_t i = 0; i < inputs; ++i) {
      const Tensor& x = required_input(in, i, "QConcat", "inputs");
      check(x.dtype() == DType::Int8, name_ + ": input " + std::to_string(i) + " must be int8");
      Tensor t(DType::Int8, x.dims());
      const int8_t* table = tables.data<int8_t>() + i * 256;
      for (int64_t e = 0; e < x.numel(); ++e) t.data<int8_t>()[e] = table[x.data<int8_t>()[e] + 128];
      mapped.push_back(std::move(t));
    }
    Inputs joined;
    for (const Tensor& t : mapped) joined.push_back(&t);
    return concat_->run(joined);
  }

 private:
  std::string name_;
  std::unique_ptr<Op> concat_;
};
}  // namespace

std::unique_ptr<Op> create_qconcat(const Node& node, const OpContext& ctx) { return std::make_unique<QConcat>(node, ctx); }

}  // namespace q8
