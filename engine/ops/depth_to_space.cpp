// DepthToSpace: channels moved into blocksize × blocksize blocks of the plane (depth_space.h),
// mode DCR (default) or CRD.
#include "engine/ops/depth_space.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {

class DepthToSpace final : public Op {
 public:
  DepthToSpace(int64_t block, bool crd) : block_(block), crd_(crd) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    return {move_depth(required_input(in, 0, "DepthToSpace", "input"), block_, true, crd_, "DepthToSpace")};
  }

 private:
  int64_t block_;
  bool crd_;
};

}  // namespace

std::unique_ptr<Op> create_depth_to_space(const Node& node, const OpContext&) {
  const std::string mode = node.attr_string("mode", "DCR");
  check(mode == "DCR" || mode == "CRD", node.describe() + ": mode '" + mode + "' is not DCR or CRD");
  check(node.has("blocksize"), node.describe() + ": attribute 'blocksize' is required");
  return std::make_unique<DepthToSpace>(node.attr_int("blocksize", 0), mode == "CRD");
}

}  // namespace q8
