// Loop: runs body on the host while the trip count M (absent: unbounded) is not reached and cond
// (absent: true) holds. body's inputs are (iteration number int64, cond, the N loop-carried
// values); its outputs (cond, the N carried values, K scan outputs). The node's outputs are the
// final carried values, then each scan output's per-iteration values stacked on a new first axis
// (an empty one when the loop ran no iteration). The body reads the node's captured outer values
// (Node::captures) by the names it uses.
#include <cstring>
#include <mutex>

#include "engine/ops/op.h"

namespace q8 {

namespace {

class Loop final : public Op {
 public:
  explicit Loop(const Node& node) : name_(node.describe()), captures_(node.captures) {
    body_ = node.attr_graph("body");
    check(body_ != nullptr, name_ + ": body is required");
    carried_ = node.onnx_inputs() >= 2 ? node.onnx_inputs() - 2 : 0;
    const size_t own = body_->inputs.size() - body_->outer_inputs;
    check(own == carried_ + 2, name_ + ": body has " + std::to_string(own) + " inputs, the node gives " + std::to_string(carried_ + 2));
    check(body_->outputs.size() >= carried_ + 1, name_ + ": body has " + std::to_string(body_->outputs.size()) + " outputs for " +
                                                     std::to_string(carried_) + " carried values and cond");
    scans_ = body_->outputs.size() - 1 - carried_;
    check(node.outputs.size() <= carried_ + scans_, name_ + ": the node has more outputs than its body gives");
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    int64_t trips = -1;
    if (const Tensor* m = optional_input(in, 0)) {
      check(m->numel() == 1, name_ + ": M must hold one value");
      trips = m->to_int64s()[0];
    }
    bool cond = true;
    if (const Tensor* c = optional_input(in, 1)) {
      check(c->numel() == 1 && c->dtype() == DType::Bool, name_ + ": cond must be one bool");
      cond = c->data<bool>()[0];
    }
    std::map<std::string, Tensor> values;
    const size_t first = in.size() - captures_.size();
    for (size_t k = 0; k < captures_.size(); ++k)
      if (in[first + k]) values[captures_[k]] = *in[first + k];
    std::vector<Tensor> carried;
    for (size_t k = 0; k < carried_; ++k) carried.push_back(required_input(in, 2 + k, "Loop", "v_initial"));
    std::vector<std::vector<Tensor>> scanned(scans_);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!runner_) runner_ = make_subgraph_runner(*body_);
    for (int64_t i = 0; (trips < 0 || i < trips) && cond; ++i) {
      check(trips >= 0 || i < (int64_t(1) << 31), name_ + ": no trip count and cond still true after 2^31 iterations");
      values[body_->inputs[0].name] = Tensor::scalar<int64_t>(i);
      values[body_->inputs[1].name] = Tensor::scalar<bool>(cond);
      for (size_t k = 0; k < carried_; ++k) values[body_->inputs[2 + k].name] = carried[k];
      std::vector<Tensor> out;
      try {
        out = runner_->run(values);
      } catch (const Error& e) {
        throw e.with_context(name_ + " iteration " + std::to_string(i));
      }
      check(out[0].numel() == 1 && out[0].dtype() == DType::Bool, name_ + ": body's cond output must be one bool");
      cond = out[0].data<bool>()[0];
      for (size_t k = 0; k < carried_; ++k) carried[k] = std::move(out[1 + k]);
      for (size_t k = 0; k < scans_; ++k) {
        if (!scanned[k].empty())
          check(out[1 + carried_ + k].dims() == scanned[k][0].dims(), name_ + ": scan output " + std::to_string(k) + " changes shape between iterations");
        scanned[k].push_back(std::move(out[1 + carried_ + k]));
      }
    }
    std::vector<Tensor> result = std::move(carried);
    for (size_t k = 0; k < scans_; ++k) {
      const auto& parts = scanned[k];
      if (parts.empty()) {
        // No iteration ran: an empty stack, of the type the body declares (float32 when it does not say).
        const ValueInfo& v = body_->outputs[1 + carried_ + k];
        result.push_back(Tensor(v.dtype == DType::Undefined ? DType::Float32 : v.dtype, {0}));
        continue;
      }
      Dims dims = parts[0].dims();
      dims.insert(dims.begin(), int64_t(parts.size()));
      Tensor stacked(parts[0].dtype(), dims);
      for (size_t p = 0; p < parts.size(); ++p) copy_bytes(stacked.raw() + p * parts[0].nbytes(), parts[p].raw(), parts[0].nbytes());
      result.push_back(std::move(stacked));
    }
    return result;
  }

 private:
  std::string name_;
  std::vector<std::string> captures_;
  const Graph* body_ = nullptr;
  size_t carried_ = 0, scans_ = 0;
  mutable std::mutex mutex_;
  mutable std::unique_ptr<SubgraphRunner> runner_;
};

}  // namespace

std::unique_ptr<Op> create_loop(const Node& node, const OpContext&) { return std::make_unique<Loop>(node); }

}  // namespace q8
