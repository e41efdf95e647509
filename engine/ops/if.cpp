// If: runs then_branch when cond (a one-element bool) is true, else else_branch, on the host; its
// outputs are the branch's. The branches read the node's captured outer values (Node::captures),
// bound by the names they use. Each branch's runner is made once, on first use.
#include <mutex>

#include "engine/ops/op.h"

namespace q8 {

namespace {

class If final : public Op {
 public:
  explicit If(const Node& node) : name_(node.describe()), captures_(node.captures), outputs_(node.outputs.size()) {
    then_ = node.attr_graph("then_branch");
    else_ = node.attr_graph("else_branch");
    check(then_ && else_, name_ + ": then_branch and else_branch are required");
    for (const Graph* g : {then_, else_})
      check(g->outputs.size() == outputs_, name_ + ": a branch has " + std::to_string(g->outputs.size()) + " outputs for the node's " +
                                               std::to_string(outputs_));
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& cond = required_input(in, 0, "If", "cond");
    check(cond.numel() == 1 && cond.dtype() == DType::Bool, name_ + ": cond must be one bool, got " + std::string(dtype_name(cond.dtype())) +
                                                                " " + dims_to_string(cond.dims()));
    const bool taken = cond.data<bool>()[0];
    std::map<std::string, Tensor> values;
    const size_t first = in.size() - captures_.size();
    for (size_t k = 0; k < captures_.size(); ++k)
      if (in[first + k]) values[captures_[k]] = *in[first + k];
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<SubgraphRunner>& runner = taken ? then_runner_ : else_runner_;
    if (!runner) runner = make_subgraph_runner(taken ? *then_ : *else_);
    try {
      return runner->run(values);
    } catch (const Error& e) {
      throw e.with_context(name_ + (taken ? " then_branch" : " else_branch"));
    }
  }

 private:
  std::string name_;
  std::vector<std::string> captures_;
  size_t outputs_;
  const Graph* then_ = nullptr;
  const Graph* else_ = nullptr;
  mutable std::mutex mutex_;
  mutable std::unique_ptr<SubgraphRunner> then_runner_, else_runner_;
};

}  // namespace

std::unique_ptr<Op> create_if(const Node& node, const OpContext&) { return std::make_unique<If>(node); }

}  // namespace q8
