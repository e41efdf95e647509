#include "engine/exec/executor.h"

#include <algorithm>
#include <set>

#include "engine/ir/graph_index.h"
#include "engine/ops/traits.h"
#include "engine/ops/value_types.h"

namespace q8 {

namespace {

NodeView view_of(const GraphIndex& index, const ValueTypes& types, const Node& node) {
  NodeView v{node, index.graph().opset(), {}, {}, {}, &index};
  for (const auto& in : node.inputs) {
    const ValueInfo* declared = in.empty() ? nullptr : index.declared(in);
    const Tensor* constant = in.empty() ? nullptr : index.constant(in);
    std::optional<std::vector<Dim>> shape = declared ? declared->shape : std::nullopt;
    if (constant) {
      shape.emplace();
      for (int64_t d : constant->dims()) shape->push_back(Dim{d, ""});
    }
    v.input_types.push_back(in.empty() ? DType::Undefined : types.of(in));
    v.input_shapes.push_back(std::move(shape));
    v.constants.push_back(constant);
  }
  return v;
}

struct Choice {
  const Backend* backend = nullptr;
  std::string declined;  // "int8-reference: input 0 is float32, not int8; …"
};

Choice place(const NodeView& view, const BackendList& backends) {
  Choice c;
  for (const Backend* b : backends) {
    const Support s = b->supports(view);
    if (s.ok) {
      c.backend = b;
      return c;
    }
    if (!s.reason.empty()) c.declined += (c.declined.empty() ? "" : "; ") + std::string(b->name()) + ": " + s.reason;
  }
  return c;
}

std::vector<Choice> place_all(const Graph& graph, const BackendList& backends) {
  const GraphIndex index(graph);
  const ValueTypes types(index);
  std::vector<Choice> choices;
  for (const Node& n : graph.nodes) choices.push_back(place(view_of(index, types, n), backends));
  return choices;
}

std::string node_label(const Node& n, size_t i) { return n.name.empty() ? "node " + std::to_string(i) : n.name; }

std::string node_context(const Node& node, size_t index) { return node.describe() + " (node " + std::to_string(index) + ")"; }

std::string unsupported_list(const Graph& graph, const std::vector<Choice>& choices) {
  std::map<std::string, std::vector<std::string>> by_op;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (choices[i].backend) continue;
    const Node& n = graph.nodes[i];
    const std::string op = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
    by_op[op].push_back("'" + node_label(n, i) + "'" + (choices[i].declined.empty() ? "" : ": " + choices[i].declined));
  }
  std::string out;
  for (const auto& [op, names] : by_op) {
    out += (out.empty() ? "" : ", ") + op + " (";
    for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
    out += ")";
  }
  return out;
}

// A subgraph (If's branches, Loop's body) run by an executor of its own on the host.
class ExecutorRunner final : public SubgraphRunner {
 public:
  explicit ExecutorRunner(const Graph& graph) : executor_(graph) {}
  std::vector<Tensor> run(const std::map<std::string, Tensor>& values) override {
    TensorMap in;
    for (const ValueInfo& v : executor_.graph().inputs) {
      auto it = values.find(v.name);
      check(it != values.end(), "subgraph input '" + v.name + "' has no value");
      in[v.name] = it->second;
    }
    const TensorMap out = executor_.run(in);
    std::vector<Tensor> result;
    for (const ValueInfo& o : executor_.graph().outputs) result.push_back(out.at(o.name));
    return result;
  }

 private:
  Executor executor_;
};

std::unique_ptr<SubgraphRunner> make_executor_runner(const Graph& graph) { return std::make_unique<ExecutorRunner>(graph); }

}  // namespace

namespace {

// Shape work (Executor::shape_work): every output, or every input, is an integer or bool tensor;
// or every float input is a constant or the output of shape work, one at least the latter (a
// causal mask made from ConstantOfShape, a relative-position bucket from a Cast of positions).
bool is_shape_work(const Node& n, const GraphIndex& index, const ValueTypes& types, const std::set<std::string>& shape_values) {
  const auto integral = [&](const std::string& v) {
    const DType t = v.empty() ? DType::Int64 : types.of(v);
    return t == DType::Int64 || t == DType::Int32 || t == DType::Bool;
  };
  const auto all = [](const std::vector<std::string>& values, auto&& f) {
    return !values.empty() && std::all_of(values.begin(), values.end(), f);
  };
  if (all(n.outputs, integral) || all(n.inputs, integral)) return true;
  bool derived = false;
  for (const std::string& in : n.inputs) {
    if (in.empty() || integral(in) || index.constant(in)) continue;
    if (!shape_values.count(in)) return false;
    derived = true;
  }
  return derived;
}

}  // namespace

std::string placement_summary(const std::vector<std::string_view>& placement, const std::vector<bool>& shape_work) {
  std::map<std::string_view, std::pair<int, int>> placed;  // nodes, of them shape work
  for (size_t i = 0; i < placement.size(); ++i) {
    ++placed[placement[i]].first;
    if (i < shape_work.size() && shape_work[i]) ++placed[placement[i]].second;
  }
  std::string s;
  for (const auto& [backend, count] : placed) {
    s += (s.empty() ? "" : "; ") + std::string(backend) + " " + std::to_string(count.first) + " nodes";
    if (!shape_work.empty() && count.second > 0) s += " (" + std::to_string(count.second) + " on shapes, indices or masks)";
  }
  return s;
}

std::string unsupported_ops(const Graph& graph, const BackendList& backends) {
  return unsupported_list(graph, place_all(graph, backends));
}

Executor::Executor(Graph graph, const BackendList& backends) : graph_(std::move(graph)) {
  set_subgraph_runner_factory(&make_executor_runner);
  const std::vector<Choice> choices = place_all(graph_, backends);
  const std::string unsupported = unsupported_list(graph_, choices);
  check(unsupported.empty(), "unsupported ops: " + unsupported);
  const GraphIndex index(graph_);
  const ValueTypes types(index);
  GraphMemo memo;
  std::set<std::string> shape_values;  // outputs of shape work
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const Backend* backend = choices[i].backend;
    backends_.push_back(backend);
    backend_names_.push_back(backend->name());
    declined_.push_back(choices[i].declined);
    shape_work_.push_back(is_shape_work(graph_.nodes[i], index, types, shape_values));
    if (shape_work_.back())
      for (const std::string& out : graph_.nodes[i].outputs) shape_values.insert(out);
    try {
      NodeView view = view_of(index, types, graph_.nodes[i]);
      view.memo = &memo;
      prepared_.push_back(backend->create(view));
    } catch (const Error& e) {
      throw e.with_context(node_context(graph_.nodes[i], i));
    }
  }
  reshaped_for_.resize(graph_.nodes.size());
  reshaped_.resize(graph_.nodes.size());
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const Node& n = graph_.nodes[i];
    const OpTraits* traits = find_traits(n);
    view_of_input_.push_back(traits && traits->view && backends_[i]->memory() == kHostMemory && !n.inputs.empty() && !n.inputs[0].empty() &&
                             !n.outputs.empty() && !n.outputs[0].empty() && !index.is_graph_output(n.outputs[0]));
  }
  // Shape work that constants and dims determine, kept between runs (Kept in executor.h).
  const std::set<std::string> independent = data_independent_values(graph_);
  reusable_node_.assign(graph_.nodes.size(), false);
  slot_kinds_.resize(graph_.nodes.size());
  producers_.resize(graph_.nodes.size());
  kept_.resize(graph_.nodes.size());
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const Node& n = graph_.nodes[i];
    const OpTraits* traits = find_traits(n);
    bool ok = backends_[i]->memory() == kHostMemory && !n.has_subgraphs() && !n.outputs.empty();
    for (const std::string& out : n.outputs) ok = ok && (out.empty() || (independent.count(out) && !index.is_graph_output(out)));
    for (size_t slot = 0; slot < n.inputs.size() && ok; ++slot) {
      const std::string& in = n.inputs[slot];
      const int producer = in.empty() ? -1 : index.producer(in);
      SlotKind kind = SlotKind::Constant;
      if (!in.empty() && slot == 0 && traits && traits->dims_only) kind = SlotKind::DimsOnly;
      else if (producer >= 0) kind = SlotKind::Produced;
      else ok = in.empty() || graph_.initializers.count(in) > 0;
      slot_kinds_[i].push_back(kind);
      producers_[i].push_back(producer);
    }
    reusable_node_[i] = ok;
  }
  // Free each intermediate after the last node that reads it (graph outputs are kept).
  frees_after_.resize(graph_.nodes.size());
  for (size_t i = 0; i < graph_.nodes.size(); ++i)
    for (const auto& out : graph_.nodes[i].outputs) {
      if (out.empty() || index.is_graph_output(out) || graph_.initializers.count(out)) continue;
      const std::vector<int>& readers = index.readers(out);
      frees_after_[readers.empty() ? i : size_t(readers.back())].push_back(out);
    }
}

std::string Executor::placement_report(bool fallbacks_only) const {
  std::string s;
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const Node& n = graph_.nodes[i];
    if (fallbacks_only && declined_[i].empty()) continue;
    const bool host_shapes = shape_work_[i] && !declined_[i].empty();  // a device left it on the host
    s += "  " + std::to_string(i) + " " + (n.domain.empty() ? "" : n.domain + ".") + n.op_type + " '" + node_label(n, i) + "' → " +
         std::string(backend_names_[i]) + (host_shapes ? ", on shapes, indices or masks" : "") +
         (declined_[i].empty() ? "" : " (" + declined_[i] + ")") + "\n";
  }
  return s;
}

void Executor::check_inputs(const TensorMap& inputs) const {
  std::string names;
  for (const auto& v : graph_.inputs) names += (names.empty() ? "" : ", ") + v.name;
  for (const auto& [name, t] : inputs)
    check(graph_.find_input(name) != nullptr, "input '" + name + "' matches no model input (model inputs: " + names + ")");
  for (const auto& v : graph_.inputs) {
    auto it = inputs.find(v.name);
    check(it != inputs.end(), "input '" + v.name + "' is missing (model inputs: " + names + ")");
    const Tensor& t = it->second;
    check(v.dtype == DType::Undefined || t.dtype() == v.dtype, "input '" + v.name + "' is " + std::string(dtype_name(t.dtype())) + ", the model expects " +
                                    std::string(dtype_name(v.dtype)));
    if (!v.shape) continue;
    const std::string fits = "input '" + v.name + "' has shape " + dims_to_string(t.dims()) + ", the model expects " +
                             v.shape_string();
    check(t.rank() == v.shape->size(), fits + " (rank " + std::to_string(t.rank()) + " vs " + std::to_string(v.shape->size()) + ")");
    for (size_t d = 0; d < t.rank(); ++d)
      check(!(*v.shape)[d].known() || (*v.shape)[d].value == t.dim(d),
            fits + " (axis " + std::to_string(d) + " is " + std::to_string(t.dim(d)) + ", expected " +
                std::to_string((*v.shape)[d].value) + ")");
  }
}

const Tensor& Executor::input_on(std::map<std::string, Value>& values, const std::string& name, const Backend& backend, bool host_ok,
                                 bool dims_only) {
  const Value& v = values.at(name);
  const std::string_view wanted = host_ok && (v.owner ? v.owner->memory() : kHostMemory) == kHostMemory ? kHostMemory : backend.memory();
  // Constants stay on the host: a device backend packed its own copy when it created the node.
  if (v.tensor.empty() || graph_.initializers.count(name) || (v.owner ? v.owner->memory() : kHostMemory) == wanted) return v.tensor;
  if (dims_only && wanted == kHostMemory) {  // a Shape of a device value: its dims, not its bytes
    const auto key = std::make_pair(name, std::string("dims"));
    if (auto it = copies_of_.find(key); it != copies_of_.end()) return it->second;
    return copies_of_[key] = Tensor::uninitialized(v.tensor.dtype(), v.tensor.dims());
  }
  const auto key = std::make_pair(name, std::string(wanted));
  if (auto it = copies_of_.find(key); it != copies_of_.end()) return it->second;
  Tensor host = v.tensor;
  if (v.owner && v.owner->memory() != kHostMemory) {
    host = v.owner->download(v.tensor);
    ++copies_;
    crossings_.push_back({name, std::string(kHostMemory), int64_t(host.nbytes())});
  }
  if (wanted != kHostMemory) {
    host = backend.upload(host);
    ++copies_;
    crossings_.push_back({name, std::string(wanted), int64_t(host.nbytes())});
  }
  return copies_of_[key] = std::move(host);
}

bool Executor::reusable(size_t node, const std::map<std::string, Value>& values, const std::vector<char>& reused) const {
  const Kept& k = kept_[node];
  if (!reusable_node_[node] || !k.filled) return false;
  const Node& n = graph_.nodes[node];
  for (size_t slot = 0; slot < n.inputs.size(); ++slot) {
    switch (slot_kinds_[node][slot]) {
      case SlotKind::Constant:
        break;
      case SlotKind::DimsOnly: {
        const auto it = values.find(n.inputs[slot]);
        if (it == values.end() || it->second.tensor.dims() != k.dims_read[slot]) return false;
        break;
      }
      case SlotKind::Produced:
        if (!reused[size_t(producers_[node][slot])]) return false;
        break;
    }
  }
  return true;
}

void Executor::keep(size_t node, const Inputs& args, const std::vector<Tensor>& outputs) {
  Kept& k = kept_[node];
  k = {};
  int64_t bytes = 0;
  for (const Tensor& t : outputs) bytes += int64_t(t.nbytes());
  if (bytes > kKeptBytes || outputs.size() < graph_.nodes[node].outputs.size()) return;
  for (const Tensor& t : outputs) k.outputs.push_back(t.empty() ? t : t.clone());
  for (size_t slot = 0; slot < slot_kinds_[node].size(); ++slot)
    k.dims_read.push_back(slot_kinds_[node][slot] == SlotKind::DimsOnly && slot < args.size() && args[slot] ? args[slot]->dims() : Dims{});
  k.filled = true;
}

bool Executor::plans_view(size_t node) const {
  const std::vector<std::optional<TensorDesc>>& outs = reshaped_[node].outputs;
  return view_of_input_[node] && !(!outs.empty() && outs[0]);  // an output the executor allocates is no view
}

std::vector<Tensor> Executor::allocate_outputs(size_t node, bool use_arena) {
  std::vector<Tensor> out(graph_.nodes[node].outputs.size());
  const Reshaped& r = reshaped_[node];
  if (backends_[node]->memory() != kHostMemory) return out;  // a device backend allocates its own
  for (size_t k = 0; k < out.size() && k < r.outputs.size(); ++k) {
    if (!r.outputs[k]) continue;
    const TensorDesc& d = *r.outputs[k];
    const int64_t offset = use_arena ? arena_->offsets[node][k] : -1;
    out[k] = offset >= 0 ? Tensor::view(arena_->bytes, size_t(offset), d.dtype, d.dims) : Tensor::uninitialized(d.dtype, d.dims);
  }
  return out;
}

TensorMap Executor::run(const TensorMap& inputs) {
  check_inputs(inputs);
  std::vector<TensorDesc> input_descs;
  for (const auto& v : graph_.inputs) input_descs.push_back(inputs.at(v.name).desc());
  bool use_arena = arena_ && arena_->input_descs == input_descs;
  const bool tracing = !use_arena;
  bool shapes_moved = false;  // a node's input shapes changed under the arena: plan again next run
  std::map<std::string, size_t> traced;  // value → its entry in memory_.values
  std::vector<std::vector<int64_t>> owned(graph_.nodes.size());  // per node, per output: executor-owned bytes, or -1
  if (tracing) memory_ = {}, planned_views_.assign(graph_.nodes.size(), false);

  std::map<std::string, Value> values;
  for (const auto& [name, t] : graph_.initializers) values[name] = {t, nullptr};
  for (const auto& [name, t] : inputs) values[name] = {t, nullptr};
  copies_of_.clear();
  copies_ = 0;
  crossings_.clear();
  Inputs args;
  std::vector<char> reused(graph_.nodes.size(), 0);
  reused_nodes_ = 0;
  const auto free_after = [&](size_t i) {
    for (const auto& name : frees_after_[i]) {
      values.erase(name);
      copies_of_.erase(copies_of_.lower_bound({name, ""}), copies_of_.lower_bound({name + '\0', ""}));
    }
  };
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const Node& node = graph_.nodes[i];
    const Backend& backend = *backends_[i];
    // A traced run runs every node, so that the memory plan covers them all.
    if (!tracing && reusable(i, values, reused)) {
      reused[i] = 1;
      ++reused_nodes_;
      const std::vector<Tensor>& kept = kept_[i].outputs;
      if (hook_) hook_(node, i, kept);
      for (size_t k = 0; k < node.outputs.size(); ++k)
        if (!node.outputs[k].empty()) values[node.outputs[k]] = {kept[k], nullptr};
      free_after(i);
      continue;
    }
    args.clear();
    for (size_t slot = 0; slot < node.inputs.size(); ++slot) {
      const std::string& in = node.inputs[slot];
      if (in.empty()) {
        args.push_back(nullptr);
        continue;
      }
      check(values.count(in) > 0, node_context(node, i) + ": input '" + in + "' has no value");
      const Tensor& t = input_on(values, in, backend, prepared_[i]->takes_host_input(slot), !prepared_[i]->reads_input_values(slot));
      args.push_back(t.empty() ? nullptr : &t);
      if (auto it = traced.find(in); tracing && it != traced.end()) memory_.values[it->second].last = int(i);
    }
    while (!args.empty() && args.back() == nullptr) args.pop_back();
    std::vector<Tensor> outputs;
    try {
      const std::vector<TensorDesc> descs = describe(args);
      if (reshaped_for_[i] != descs) {
        reshaped_[i] = prepared_[i]->reshape(descs);
        reshaped_for_[i] = descs;
        shapes_moved = shapes_moved || use_arena;
        use_arena = false;
      }
      outputs = allocate_outputs(i, use_arena);
      if (workspace_.size() < reshaped_[i].workspace_bytes) workspace_.resize(reshaped_[i].workspace_bytes);
      prepared_[i]->run(args, outputs, std::span<std::byte>(workspace_.data(), reshaped_[i].workspace_bytes));
    } catch (const Error& e) {
      throw e.with_context(node_context(node, i));
    }
    size_t needed = 0;
    for (size_t k = 0; k < node.outputs.size(); ++k)
      if (!node.outputs[k].empty()) needed = k + 1;
    check(outputs.size() >= needed, node_context(node, i) + ": produced " + std::to_string(outputs.size()) +
                                        " outputs, the model uses " + std::to_string(needed));
    const bool on_host = backend.memory() == kHostMemory;
    for (size_t k = 0; k < outputs.size(); ++k) {
      const bool executor_owned = on_host && k < reshaped_[i].outputs.size() && reshaped_[i].outputs[k];
      // An op that allocates its own outputs may return a view of its input (Reshape): one the
      // memory plan keeps its input's buffer for (plans_view) is used as it is; any other that
      // lies in the arena is copied out, since the arena's bytes are reused.
      const bool planned_view = k == 0 && i < planned_views_.size() && planned_views_[i];
      if (!executor_owned && !planned_view && arena_ && outputs[k].lies_in(arena_->bytes.raw(), arena_->bytes.nbytes()))
        outputs[k] = outputs[k].clone();
      owned[i].push_back(executor_owned ? int64_t(outputs[k].nbytes()) : -1);
    }
    if (reusable_node_[i]) keep(i, args, outputs);
    live_values_ = values.size() - graph_.initializers.size() + outputs.size();
    if (hook_ && on_host) hook_(node, i, outputs);
    if (hook_ && !on_host) {
      std::vector<Tensor> host;
      if (hook_outputs_on_host_)
        for (const Tensor& t : outputs) host.push_back(t.empty() ? t : backend.download(t));
      hook_(node, i, host);
    }
    for (size_t k = 0; k < node.outputs.size() && k < outputs.size(); ++k) {
      if (node.outputs[k].empty()) continue;
      if (tracing) {
        const auto source = k == 0 && plans_view(i) ? traced.find(node.inputs[0]) : traced.end();
        if (source != traced.end()) {
          traced[node.outputs[k]] = source->second;  // the view's readers keep its input's buffer
          planned_views_[i] = true;
        } else {
          traced[node.outputs[k]] = memory_.values.size();
          memory_.values.push_back({node.outputs[k], int64_t(outputs[k].nbytes()), int(i), int(i)});
        }
      }
      values[node.outputs[k]] = {std::move(outputs[k]), on_host ? nullptr : &backend};
    }
    free_after(i);
  }
  TensorMap result;
  for (const auto& o : graph_.outputs) {
    auto it = values.find(o.name);
    check(it != values.end() && !it->second.tensor.empty(), "graph output '" + o.name + "' was not produced");
    const Value& v = it->second;
    result[o.name] = v.owner ? v.owner->download(v.tensor) : v.tensor;
    copies_ += v.owner != nullptr;
    if (v.owner) crossings_.push_back({o.name, std::string(kHostMemory), int64_t(result[o.name].nbytes())});
    if (auto t = traced.find(o.name); tracing && t != traced.end()) memory_.values[t->second].last = int(graph_.nodes.size());
  }
  if (shapes_moved) arena_.reset();
  if (tracing && !shapes_moved) plan_arena(input_descs, owned);
  return result;
}

void Executor::plan_arena(const std::vector<TensorDesc>& input_descs, const std::vector<std::vector<int64_t>>& owned) {
  const GraphIndex index(graph_);
  std::vector<BufferLifetime> buffers;
  std::vector<std::pair<size_t, size_t>> slots;  // (node, output) of each buffer
  for (const BufferLifetime& v : memory_.values) {
    const size_t node = size_t(v.first);
    const auto& outs = graph_.nodes[node].outputs;
    const size_t k = size_t(std::find(outs.begin(), outs.end(), v.value) - outs.begin());
    if (k >= owned[node].size() || owned[node][k] < 0 || index.is_graph_output(v.value)) continue;
    buffers.push_back(v);
    slots.emplace_back(node, k);
  }
  memory_.arena = plan_memory(buffers);
  memory_.owned_bytes = memory_.arena.total_bytes;
  Arena a;
  a.input_descs = input_descs;
  a.offsets.resize(graph_.nodes.size());
  for (size_t i = 0; i < graph_.nodes.size(); ++i) a.offsets[i].assign(graph_.nodes[i].outputs.size(), -1);
  for (size_t b = 0; b < buffers.size(); ++b) a.offsets[slots[b].first][slots[b].second] = memory_.arena.offsets[b];
  a.bytes = Tensor::uninitialized(DType::Int8, {memory_.arena.arena_bytes});
  arena_ = std::move(a);
}

}  // namespace q8
