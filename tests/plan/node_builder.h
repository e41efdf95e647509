// The node the lowering tests build their QDQ graphs from, one line each.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/ir/node.h"

namespace q8::test {

inline Node node(const std::string& op, const std::string& name, std::vector<std::string> in, std::vector<std::string> out,
                 std::map<std::string, Attribute> attrs = {}) {
  Node n;
  n.op_type = op, n.name = name, n.inputs = std::move(in), n.outputs = std::move(out), n.attributes = std::move(attrs);
  return n;
}

}  // namespace q8::test
