// Add, Sub, Mul and Div on float32: broadcasting, a constant operand on either side, inf − inf.
#include "tests/cases/op_case.h"

namespace q8 {

namespace {
std::vector<OpCase> binary_cases(const std::string& op) {
  const FloatInputs& f = float_inputs();
  const Node n = make_node(op, {"a", "b"});
  return {make_case(op + " same shapes", n, {f.x, f.x2}, {false, false}),
          make_case(op + " per-channel constant", n, {f.x, f.per_channel}, {false, true}),
          make_case(op + " per-channel constant first", n, {f.per_channel, f.x}, {true, false}),
          make_case(op + " broadcast along channels", n, {f.x, f.thin}, {false, false})};
}
}  // namespace

std::vector<OpCase> add_cases() { return binary_cases("Add"); }
std::vector<OpCase> sub_cases() { return binary_cases("Sub"); }
std::vector<OpCase> mul_cases() { return binary_cases("Mul"); }
std::vector<OpCase> div_cases() { return binary_cases("Div"); }

}  // namespace q8
