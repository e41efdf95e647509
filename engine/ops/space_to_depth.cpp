// SpaceToDepth: blocksize × blocksize blocks of the plane moved into the channels, DepthToSpace's
// DCR inverse (depth_space.h).
#include "engine/ops/depth_space.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {

class SpaceToDepth final : public Op {
 public:
  explicit SpaceToDepth(int64_t block) : block_(block) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    return {move_depth(required_input(in, 0, "SpaceToDepth", "input"), block_, false, false, "SpaceToDepth")};
  }

 private:
  int64_t block_;
};

}  // namespace

std::unique_ptr<Op> create_space_to_depth(const Node& node, const OpContext&) {
  check(node.has("blocksize"), node.describe() + ": attribute 'blocksize' is required");
  return std::make_unique<SpaceToDepth>(node.attr_int("blocksize", 0));
}

}  // namespace q8
