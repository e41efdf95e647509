// Identity: output = input (a view of the same buffer).
#include "engine/ops/op.h"

namespace q8 {

namespace {
class Identity final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override { return {required_input(in, 0, "Identity", "input")}; }
};
}  // namespace

std::unique_ptr<Op> create_identity(const Node&, const OpContext&) { return std::make_unique<Identity>(); }

}  // namespace q8
