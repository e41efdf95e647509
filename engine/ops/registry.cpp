#include <algorithm>
#include <array>

#include "engine/ops/op.h"

namespace q8 {

#define Q8_OP(type, factory) std::unique_ptr<Op> factory(const Node&, const OpContext&);
#include "engine/ops/ops.inc"
#undef Q8_OP

#define Q8_CONTRIB_OP(domain, type, factory) std::unique_ptr<Op> factory(const Node&, const OpContext&);
#include "engine/ops/contrib_ops.inc"
#undef Q8_CONTRIB_OP

namespace {
constexpr OpInfo kOps[] = {
#define Q8_OP(type, factory) {#type, factory},
#include "engine/ops/ops.inc"
#undef Q8_OP
};
constexpr OpInfo kContribOps[] = {
#define Q8_CONTRIB_OP(domain, type, factory) {#type, factory, domain},
#include "engine/ops/contrib_ops.inc"
#undef Q8_CONTRIB_OP
};
}  // namespace

const OpInfo* find_op(std::string_view op_type) {
  auto it = std::find_if(std::begin(kOps), std::end(kOps), [&](const OpInfo& o) { return o.type == op_type; });
  return it == std::end(kOps) ? nullptr : &*it;
}

const OpInfo* find_op(std::string_view domain, std::string_view op_type) {
  if (domain.empty() || domain == "ai.onnx") return find_op(op_type);
  auto it = std::find_if(std::begin(kContribOps), std::end(kContribOps),
                         [&](const OpInfo& o) { return o.domain == domain && o.type == op_type; });
  return it == std::end(kContribOps) ? nullptr : &*it;
}

std::span<const OpInfo> registered_ops() { return kOps; }
std::span<const OpInfo> contrib_ops() { return kContribOps; }

const Tensor& required_input(const Inputs& in, size_t i, const char* op, const char* what) {
  check(i < in.size() && in[i] != nullptr,
        std::string(op) + ": required input " + std::to_string(i) + " (" + what + ") is missing");
  return *in[i];
}

int64_t normalize_axis(int64_t axis, int64_t rank, const char* op) {
  check(axis >= -rank && axis < std::max<int64_t>(rank, 1),
        std::string(op) + ": axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

}  // namespace q8
