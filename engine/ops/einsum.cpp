// Einsum (float32): the equation's terms name each input's axes by letters; "..." stands for the
// leading axes a term leaves unnamed (broadcast across inputs); "->" gives the output's letters,
// else they are the letters used once, sorted, after the broadcast axes. Letters repeated in one
// term take the diagonal. Computed pairwise, left to right (docs/ops.md, "Einsum"): letters no
// later term and not the output names are summed first, then each pair is one batched GEMM over
// the letters the two share and nothing later needs.
#include <algorithm>
#include <map>
#include <set>

#include "engine/cpu/gemm.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/strided_copy.h"

namespace q8 {

namespace {

// An operand: its values and one letter per axis (letters distinct: diagonals already taken).
struct Term {
  Tensor t;
  std::string letters;
};

// Letters of a term with "..." replaced by `ellipsis` letters (the broadcast axes, written as
// chars below 'A' so that they never clash) for an operand of `rank` axes.
std::string expand_term(const std::string& term, size_t rank, size_t& broadcast_rank, bool is_output, const std::string& what) {
  const size_t dots = term.find("...");
  std::string named = term;
  if (dots != std::string::npos) named.erase(dots, 3);
  for (char c : named)
    check(std::isalpha(static_cast<unsigned char>(c)), "Einsum: " + what + " holds '" + std::string(1, c) + "', not a letter");
  if (dots == std::string::npos) {
    check(is_output || named.size() == rank, "Einsum: " + what + " names " + std::to_string(named.size()) + " axes of an input of rank " +
                                                 std::to_string(rank));
    return named;
  }
  const size_t n = is_output ? broadcast_rank : rank - std::min(rank, named.size());
  check(is_output || named.size() <= rank, "Einsum: " + what + " names more axes than its input has");
  if (!is_output) broadcast_rank = std::max(broadcast_rank, n);
  std::string ell;
  for (size_t i = 0; i < n; ++i) ell += char(1 + (broadcast_rank - n) + i);
  return named.substr(0, dots) + ell + named.substr(dots);
}

// t with letters in `order` (each a letter of `letters` or absent: a size-1 axis), repeated
// letters of the source combined into their diagonal.
Tensor view_as(const Tensor& t, const std::string& letters, const std::string& order, const std::map<char, int64_t>& sizes) {
  const std::vector<int64_t> src = dense_strides(t.dims());
  Dims dims;
  std::vector<int64_t> strides;
  for (char c : order) {
    int64_t stride = 0;
    for (size_t a = 0; a < letters.size(); ++a)
      if (letters[a] == c && t.dim(a) != 1) stride += src[a];
    dims.push_back(sizes.at(c));
    strides.push_back(stride);
  }
  Tensor out = Tensor::uninitialized(DType::Float32, dims);
  if (out.numel() > 0) gather_strided(t, 0, strides, out);
  return out;
}

// Sums `term` over the letters not in `keep`, leaving the others in their order.
Term sum_out(const Term& term, const std::string& keep, const std::map<char, int64_t>& sizes) {
  std::string kept, summed;
  for (char c : term.letters) (keep.find(c) != std::string::npos ? kept : summed) += c;
  if (summed.empty()) return term;
  const Tensor v = view_as(term.t, term.letters, kept + summed, sizes);
  int64_t outer = 1, inner = 1;
  for (char c : kept) outer *= sizes.at(c);
  for (char c : summed) inner *= sizes.at(c);
  Dims dims;
  for (char c : kept) dims.push_back(sizes.at(c));
  Tensor out(DType::Float32, dims);
  for (int64_t o = 0; o < outer; ++o) {
    double acc = 0;
    for (int64_t i = 0; i < inner; ++i) acc += v.data<float>()[o * inner + i];
    out.data<float>()[o] = float(acc);
  }
  return {out, kept};
}

// a · b over their shared letters that `later` does not hold; the result's letters are batch
// (shared and kept), then a's own, then b's own.
Term contract(const Term& a, const Term& b, const std::string& later, const std::map<char, int64_t>& sizes) {
  std::string batch, left, right, inner;
  for (char c : a.letters) {
    if (b.letters.find(c) == std::string::npos) left += c;
    else (later.find(c) != std::string::npos ? batch : inner) += c;
  }
  for (char c : b.letters)
    if (a.letters.find(c) == std::string::npos) right += c;
  const Tensor va = view_as(a.t, a.letters, batch + left + inner, sizes), vb = view_as(b.t, b.letters, batch + inner + right, sizes);
  auto count = [&](const std::string& s) {
    int64_t n = 1;
    for (char c : s) n *= sizes.at(c);
    return n;
  };
  const int64_t nb = count(batch), m = count(left), k = count(inner), n = count(right);
  Dims dims;
  for (char c : batch + left + right) dims.push_back(sizes.at(c));
  Tensor out(DType::Float32, dims);
  for (int64_t i = 0; i < nb && m * n > 0; ++i)
    sgemm(false, false, m, n, k, 1.0f, va.data<float>() + i * m * k, k, vb.data<float>() + i * k * n, n, 0.0f,
          out.data<float>() + i * m * n, n);
  return {out, batch + left + right};
}

class Einsum final : public Op {
 public:
  explicit Einsum(std::string equation) : equation_(std::move(equation)) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    std::string eq;
    for (char c : equation_)
      if (c != ' ') eq += c;
    const size_t arrow = eq.find("->");
    const std::string lhs = eq.substr(0, arrow);
    std::vector<std::string> terms;
    for (size_t start = 0;;) {
      const size_t comma = lhs.find(',', start);
      terms.push_back(lhs.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    check(terms.size() == in.size(), "Einsum: the equation has " + std::to_string(terms.size()) + " terms for " +
                                         std::to_string(in.size()) + " inputs");
    size_t broadcast_rank = 0;
    std::vector<Term> ops;
    std::map<char, int64_t> sizes;
    for (size_t i = 0; i < terms.size(); ++i) {
      const Tensor& t = float_input(in, i, "Einsum", "Inputs");
      ops.push_back({t, expand_term(terms[i], t.rank(), broadcast_rank, false, "term " + std::to_string(i))});
    }
    // Re-expand now that the widest broadcast is known (narrower ones are right-aligned).
    for (size_t i = 0; i < terms.size(); ++i) ops[i].letters = expand_term(terms[i], ops[i].t.rank(), broadcast_rank, false, "term " + std::to_string(i));
    std::map<char, int> uses;
    for (const Term& op : ops) {
      for (size_t a = 0; a < op.letters.size(); ++a) {
        const char c = op.letters[a];
        const int64_t d = op.t.dim(a);
        auto [it, fresh] = sizes.emplace(c, d);
        if (!fresh && it->second != d) {
          check(it->second == 1 || d == 1 || c >= 'A', "Einsum: letter '" + std::string(1, c) + "' has sizes " +
                                                        std::to_string(it->second) + " and " + std::to_string(d));
          check(it->second == 1 || d == 1, "Einsum: broadcast axes of sizes " + std::to_string(it->second) + " and " + std::to_string(d));
          it->second = std::max(it->second, d);
        }
      }
      for (char c : std::set<char>(op.letters.begin(), op.letters.end())) ++uses[c];
    }
    std::string out;
    if (arrow != std::string::npos) {
      out = expand_term(eq.substr(arrow + 2), 0, broadcast_rank, true, "the output");
      for (char c : out) check(sizes.count(c), "Einsum: the output names '" + std::string(1, c) + "', which no input has");
    } else {
      for (const auto& [c, n] : uses)
        if (c < 'A') out += c;
      for (const auto& [c, n] : uses) {
        if (c < 'A') continue;
        int count = 0;
        for (const Term& op : ops) count += int(std::count(op.letters.begin(), op.letters.end(), c));
        if (count == 1) out += c;
      }
    }
    // Diagonals first: each operand with its letters distinct.
    for (Term& op : ops) {
      std::string distinct;
      for (char c : op.letters)
        if (distinct.find(c) == std::string::npos) distinct += c;
      if (distinct != op.letters) op = {view_as(op.t, op.letters, distinct, sizes), distinct};
    }
    auto needed_after = [&](size_t i) {
      std::string later = out;
      for (size_t j = i + 1; j < ops.size(); ++j) later += ops[j].letters;
      return later;
    };
    Term acc = sum_out(ops[0], needed_after(0) , sizes);
    for (size_t i = 1; i < ops.size(); ++i) {
      const std::string later = needed_after(i);
      const Term b = sum_out(ops[i], later + acc.letters, sizes);
      acc = sum_out(contract(acc, b, later, sizes), later, sizes);
    }
    acc = sum_out(acc, out, sizes);
    return {view_as(acc.t, acc.letters, out, sizes)};
  }

 private:
  std::string equation_;
};

}  // namespace

std::unique_ptr<Op> create_einsum(const Node& node, const OpContext&) {
  check(node.has("equation"), node.describe() + ": attribute 'equation' is required");
  return std::make_unique<Einsum>(node.attr_string("equation", ""));
}

}  // namespace q8
