// Node attributes, as ONNX defines them; a subgraph (If's branches, Loop's body) is a Graph.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/ir/tensor.h"

namespace q8 {

struct Graph;

struct Attribute {
  enum class Kind { Float, Int, String, Tensor, Floats, Ints, Strings, Graph };

  Kind kind = Kind::Int;
  float f = 0;
  int64_t i = 0;
  std::string s;
  q8::Tensor t;
  std::shared_ptr<const Graph> graph;  // Graph
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;

  static Attribute of_int(int64_t v) { Attribute a; a.kind = Kind::Int; a.i = v; return a; }
  static Attribute of_float(float v) { Attribute a; a.kind = Kind::Float; a.f = v; return a; }
  static Attribute of_string(std::string v) { Attribute a; a.kind = Kind::String; a.s = std::move(v); return a; }
  static Attribute of_ints(std::vector<int64_t> v) { Attribute a; a.kind = Kind::Ints; a.ints = std::move(v); return a; }
  static Attribute of_floats(std::vector<float> v) { Attribute a; a.kind = Kind::Floats; a.floats = std::move(v); return a; }
  static Attribute of_tensor(q8::Tensor v) { Attribute a; a.kind = Kind::Tensor; a.t = std::move(v); return a; }
  static Attribute of_graph(std::shared_ptr<const Graph> g) { Attribute a; a.kind = Kind::Graph; a.graph = std::move(g); return a; }
};

}  // namespace q8
