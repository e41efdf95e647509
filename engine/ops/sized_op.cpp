// What every sized op shares: run allocates the buffers reshape describes, then writes them.
#include "engine/ops/op.h"

namespace q8 {

std::vector<TensorDesc> describe(const Inputs& in) {
  std::vector<TensorDesc> descs;
  descs.reserve(in.size());
  for (const Tensor* t : in) descs.push_back(t ? t->desc() : TensorDesc{});
  return descs;
}

std::vector<Tensor> SizedOp::run(const Inputs& in) const {
  std::vector<Tensor> out;
  for (TensorDesc& d : output_descs(describe(in))) out.push_back(Tensor::uninitialized(d.dtype, std::move(d.dims)));
  run_into(in, out);
  return out;
}

}  // namespace q8
