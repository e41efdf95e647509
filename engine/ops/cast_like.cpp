// CastLike: input converted to the type of target_type (input 1), by Cast's rules.
#include "engine/ops/cast.h"

namespace q8 {

namespace {

class CastLike final : public Op {
 public:
  std::vector<Tensor> run(const Inputs& in) const override {
    return {cast_tensor(required_input(in, 0, "CastLike", "input"), required_input(in, 1, "CastLike", "target_type").dtype())};
  }
  bool reads_values(size_t slot) const override { return slot == 0; }
};

}  // namespace

std::unique_ptr<Op> create_cast_like(const Node&, const OpContext&) { return std::make_unique<CastLike>(); }

}  // namespace q8
