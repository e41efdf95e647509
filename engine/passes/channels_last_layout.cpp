#include "engine/passes/channels_last_layout.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/ir/graph_index.h"
#include "engine/ops/channels_last.h"
#include "engine/ops/traits.h"

namespace q8 {

namespace {

// How a node can take part in a channels-last region.
enum class Role {
  None,       // stays channels-first
  Kernel,     // has its own channels-last kernel: 2-D Conv, FusedConv, ConvTranspose, MaxPool, AveragePool
  Follower,   // channels-last when its data inputs are: elementwise ops, GlobalAveragePool, Concat
};

Layout layout_of(const Node& n) {
  const OpTraits* t = find_traits(n);
  return t ? t->layout : Layout::None;
}

bool is_conv(const Node& n) { return layout_of(n) == Layout::Conv; }

Role role_of(const Graph& g, const Node& n) {
  if (n.outputs.size() != 1) return Role::None;
  switch (layout_of(n)) {
    case Layout::None: return Role::None;
    case Layout::Conv: {
      const Tensor* w = n.inputs.size() >= 2 ? g.constant(n.inputs[1]) : nullptr;
      const bool constant_bias = !n.has_input(2) || g.constant(n.inputs[2]);
      return w && w->rank() == 4 && constant_bias ? Role::Kernel : Role::None;
    }
    case Layout::Pool: return n.attr_ints("kernel_shape").size() == 2 ? Role::Kernel : Role::None;
    default: return Role::Follower;
  }
}

// The input slots that hold activations (channels-last inside a region); the others (weights,
// bias, Clip's bounds) keep their layout.
std::vector<size_t> data_slots(const Node& n) {
  std::vector<size_t> slots;
  if (is_conv(n)) {
    slots.push_back(0);
    const int summed = find_traits(n)->summed_input;
    if (summed >= 0 && n.has_input(size_t(summed))) slots.push_back(size_t(summed));
  } else if (layout_of(n) == Layout::Channels || layout_of(n) == Layout::Broadcast) {
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (n.has_input(i)) slots.push_back(i);
  } else {
    slots.push_back(0);
  }
  return slots;
}

// The nodes that run as a channels-last op of their own; the other channels-last nodes run as
// they are, on tensors whose layout they do not see.
bool has_channels_last_op(const Node& n) {
  const Layout l = layout_of(n);
  return l == Layout::Conv || l == Layout::Pool || l == Layout::GlobalPool;
}

// Makes n that op: an ONNX or com.microsoft op becomes the op of domain com.ms.internal.nhwc, a q8
// op takes channels_last = 1 (as com.microsoft's QLinearConv names it). True for the former.
bool to_channels_last_op(Node& n) {
  if (n.domain == kInt8Domain) {
    n.attributes["channels_last"] = Attribute::of_int(1);
    return false;
  }
  n.domain = kNhwcDomain;
  return true;
}

bool is_scalar_constant(const Graph& g, const std::string& v) {
  const Tensor* t = g.constant(v);
  return t && t->numel() == 1;
}

// Which nodes run channels-last, given the nodes that may not: every Kernel not banned, and a
// Follower whose data inputs all come channels-last (a broadcasting op may also read one-element
// constants, which broadcast the same in either layout; Concat must join channels).
std::vector<bool> assign(const Graph& g, const std::vector<bool>& banned) {
  std::vector<bool> last(g.nodes.size(), false);
  std::set<std::string> produced;  // values produced channels-last
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const Role role = role_of(g, n);
    if (role == Role::None || banned[i]) continue;
    bool ok = true;
    if (role == Role::Kernel) {
      for (size_t s : data_slots(n))  // Z, the summed tensor, must come channels-last (its rank is then known)
        if (s != 0) ok = ok && produced.count(n.inputs[s]);
    } else {
      bool any = false;
      for (size_t s : data_slots(n)) {
        const bool in_region = produced.count(n.inputs[s]) != 0;
        any = any || in_region;
        ok = ok && (in_region || (layout_of(n) == Layout::Broadcast && is_scalar_constant(g, n.inputs[s])));
      }
      ok = ok && any;
      if (layout_of(n) == Layout::Channels) ok = ok && (n.attr_int("axis", 0) == 1 || n.attr_int("axis", 0) == -3);
    }
    if (!ok) continue;
    last[i] = true;
    produced.insert(n.outputs[0]);
  }
  return last;
}

}  // namespace

std::string LayoutReport::summary() const {
  return std::to_string(channels_last_nodes) + " nodes channels-last, " + std::to_string(transposes) + " Transpose";
}

LayoutReport assign_channels_last(Graph& g) {
  LayoutReport report;
  const GraphIndex index(g);
  // A region holding one Kernel node would only trade its reorders for two transposes: its
  // nodes stay channels-first, and the assignment is redone until every region holds two or more.
  std::vector<bool> banned(g.nodes.size(), false), last;
  for (bool changed = true; changed;) {
    last = assign(g, banned);
    std::vector<size_t> region(g.nodes.size());
    for (size_t i = 0; i < region.size(); ++i) region[i] = i;
    auto root = [&](size_t i) {
      while (region[i] != i) i = region[i] = region[region[i]];
      return i;
    };
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (last[i])
        for (size_t s : data_slots(g.nodes[i])) {
          const int p = index.producer(g.nodes[i].inputs[s]);
          if (p >= 0 && last[size_t(p)]) region[root(i)] = root(size_t(p));
        }
    std::map<size_t, int> kernels;
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (last[i] && role_of(g, g.nodes[i]) == Role::Kernel) ++kernels[root(i)];
    changed = false;
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (last[i] && role_of(g, g.nodes[i]) == Role::Kernel && kernels[root(i)] < 2) banned[i] = true, changed = true;
  }
  if (std::none_of(last.begin(), last.end(), [](bool b) { return b; })) return report;

  std::set<std::string> names;
  for (const Node& n : g.nodes) names.insert(n.outputs.begin(), n.outputs.end()), names.insert(n.inputs.begin(), n.inputs.end());
  for (const ValueInfo& v : g.inputs) names.insert(v.name);
  std::map<std::string, std::string> nhwc_name;  // value → its channels-last copy
  auto name_of = [&](const std::string& v) -> const std::string& {
    auto it = nhwc_name.find(v);
    if (it != nhwc_name.end()) return it->second;
    std::string candidate = v + "_nhwc";
    while (names.count(candidate)) candidate += "_";
    names.insert(candidate);
    return nhwc_name[v] = candidate;
  };
  auto transpose = [&](const std::string& from, const std::string& to, bool to_last) {
    Node t;
    t.op_type = "Transpose";
    t.name = to + (to_last ? "/to_nhwc" : "/to_nchw");
    t.inputs = {from};
    t.outputs = {to};
    t.attributes["perm"] = Attribute::of_ints(to_last ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 3, 1, 2});
    ++report.transposes;
    return t;
  };
  // A channels-last value is also needed channels-first by a graph output, a channels-first
  // reader, or a slot of a channels-last reader that is not a data slot.
  auto needed_first = [&](const std::string& v) {
    if (index.is_graph_output(v)) return true;
    for (int r : index.readers(v)) {
      const Node& reader = g.nodes[size_t(r)];
      if (!last[size_t(r)]) return true;
      const std::vector<size_t> slots = data_slots(reader);
      for (size_t s = 0; s < reader.inputs.size(); ++s)
        if (reader.inputs[s] == v && std::find(slots.begin(), slots.end(), s) == slots.end()) return true;
    }
    return false;
  };

  std::vector<Node> nodes;
  bool nhwc_ops = false;
  std::set<std::string> produced, copied;  // channels-last outputs; channels-first values given a channels-last copy
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node n = g.nodes[i];
    if (!last[i]) {
      nodes.push_back(std::move(n));
      continue;
    }
    for (size_t s : data_slots(n)) {
      const std::string v = n.inputs[s];
      if (!produced.count(v) && is_scalar_constant(g, v)) continue;
      if (!produced.count(v) && copied.insert(v).second) nodes.push_back(transpose(v, name_of(v), true));
      n.inputs[s] = name_of(v);
    }
    if (has_channels_last_op(n)) nhwc_ops = to_channels_last_op(n) || nhwc_ops;
    if (layout_of(n) == Layout::Channels) n.attributes["axis"] = Attribute::of_int(3);  // channels are last now
    const std::string out = n.outputs[0];
    n.outputs[0] = name_of(out);
    produced.insert(out);
    nodes.push_back(std::move(n));
    ++report.channels_last_nodes;
    if (needed_first(out)) nodes.push_back(transpose(name_of(out), out, false));
  }
  g.nodes = std::move(nodes);
  if (nhwc_ops && std::none_of(g.opsets.begin(), g.opsets.end(), [](const OpsetImport& o) { return o.domain == kNhwcDomain; }))
    g.opsets.push_back({kNhwcDomain, 1});
  return report;
}

}  // namespace q8
