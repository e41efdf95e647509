#include "eval/output_aware_ranges.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "engine/cpu/gemm.h"
#include "engine/exec/executor.h"
#include "engine/ir/graph_index.h"
#include "engine/ir/rounding.h"
#include "engine/ops/traits.h"
#include "engine/ops/window.h"
#include "quant/activation_scales.h"
#include "quant/materialize.h"

namespace q8 {

namespace {

constexpr int64_t kRowsPerReader = 1024;
constexpr int kCoarse = 48, kFine = 16;
constexpr double kSpan = 1024.0;  // the coarse grid runs from max |x| down to max |x| / kSpan

// x̂ − x for every value of rows, at scale s (docs/quantization.md).
void quantization_error(const float* x, int64_t n, float s, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::clamp(round_half_even(x[i] / s), -128.0f, 127.0f) * s - x[i];
}

double squared_sum(const std::vector<float>& v) {
  double s = 0;
  for (float f : v) s += double(f) * double(f);
  return s;
}

// ‖rows · Wᵀ‖² (rows given group by group, each against its block of W).
double output_energy(const ReaderRows& r, const float* rows) {
  std::vector<float> y;
  double e = 0;
  for (size_t g = 0; g + 1 < r.group_start.size(); ++g) {
    const int64_t begin = r.group_start[g], count = r.group_start[g + 1] - begin;
    if (count == 0) continue;
    y.assign(size_t(count * r.outputs), 0.0f);
    sgemm(false, true, count, r.outputs, r.d, 1.0f, rows + begin * r.d, r.d, r.weight.data() + int64_t(g) * r.outputs * r.d, r.d, 0.0f,
          y.data(), r.outputs);
    e += squared_sum(y);
  }
  return e;
}

// One layer that reads a scale source, and the rows of its input sampled so far.
struct Reader {
  size_t node = 0;
  std::string input, source;
  bool conv = false;
  Window window;
  std::vector<int64_t> kernel;
  int64_t channels = 0;  // Conv: input channels per group
  std::vector<std::vector<float>> by_group;
  int64_t count = 0;
  ReaderRows data;
};

// A Conv row: the receptive field of output position o, group g, sample n of x [N, C, spatial…],
// laid out as W[m] is ([C/g, k…]), zeros in padding.
void conv_row(const Reader& r, const ResolvedWindow& w, const Tensor& x, int64_t n, int64_t g, int64_t o, float* row) {
  const size_t rank = w.kernel.size();
  std::vector<int64_t> out_at(rank), in_stride(rank, 1);
  int64_t in_size = 1, kernel_size = 1;
  for (size_t i = rank; i-- > 0;) in_stride[i] = in_size, in_size *= x.dim(2 + i), kernel_size *= w.kernel[i];
  for (size_t i = rank, rest = size_t(o); i-- > 0;) out_at[i] = int64_t(rest % size_t(w.output[i])), rest /= size_t(w.output[i]);
  const float* base = x.data<float>() + (n * x.dim(1) + g * r.channels) * in_size;
  for (int64_t k = 0; k < kernel_size; ++k) {
    int64_t offset = 0;
    bool inside = true;
    for (size_t i = rank, rest = size_t(k); i-- > 0;) {
      const int64_t at = out_at[i] * w.strides[i] - w.pad_begin[i] + int64_t(rest % size_t(w.kernel[i])) * w.dilations[i];
      rest /= size_t(w.kernel[i]);
      inside = inside && at >= 0 && at < x.dim(2 + i);
      offset += at * in_stride[i];
    }
    for (int64_t c = 0; c < r.channels; ++c) row[c * kernel_size + k] = inside ? base[c * in_size + offset] : 0.0f;
  }
}

// Adds up to `per_sample` rows of x for each sample of the batch, drawn with a seed of the reader
// and the sample's index in the dataset.
void take_rows(Reader& r, size_t reader_index, const Tensor& x, const std::vector<size_t>& indices, int64_t per_sample) {
  if (x.dtype() != DType::Float32 || x.rank() < 1 || x.dim(0) != int64_t(indices.size())) return;
  const int64_t samples = x.dim(0);
  std::optional<ResolvedWindow> w;
  int64_t positions = 0, groups = 1;
  if (r.conv) {
    if (x.rank() < 3) return;
    w = resolve_window(r.window, Dims(x.dims().begin() + 2, x.dims().end()), r.kernel, "Conv");
    positions = numel(w->output);
    groups = int64_t(r.by_group.size());
  } else {
    positions = x.numel() / std::max<int64_t>(1, samples * r.data.d);
  }
  if (positions <= 0) return;
  std::vector<float> row(size_t(r.data.d));
  // A sample with no more rows than its share gives every row once; else its share is drawn.
  const bool every = positions * groups <= per_sample;
  for (int64_t n = 0; n < samples && r.count < kRowsPerReader; ++n) {
    std::mt19937_64 rng(uint64_t(reader_index) * 1000003u + indices[size_t(n)]);
    for (int64_t j = 0; j < (every ? positions * groups : per_sample) && r.count < kRowsPerReader; ++j) {
      const int64_t o = every ? j % positions : int64_t(rng() % uint64_t(positions));
      const int64_t g = every ? j / positions : int64_t(rng() % uint64_t(groups));
      if (r.conv) conv_row(r, *w, x, n, g, o, row.data());
      else std::copy_n(x.data<float>() + (n * positions + o) * r.data.d, r.data.d, row.data());
      r.by_group[size_t(g)].insert(r.by_group[size_t(g)].end(), row.begin(), row.end());
      ++r.count;
    }
  }
}

// The reader of node i, when i is a Conv, Gemm or MatMul whose rule quantizes input 0 as an
// activation and input 1 as a constant float32 weight.
std::optional<Reader> reader_of(const Graph& g, size_t i, const NodeMark& mark) {
  const Node& n = g.nodes[i];
  const bool activation = std::any_of(mark.inputs.begin(), mark.inputs.end(), [](const InputNeed& need) { return need.input == 0 && !need.weight; });
  const bool weighted = std::any_of(mark.inputs.begin(), mark.inputs.end(), [](const InputNeed& need) { return need.input == 1 && need.weight; });
  if (!n.domain.empty() || !activation || !weighted || n.inputs.size() < 2) return std::nullopt;
  const Tensor* w = g.constant(n.inputs[1]);
  if (!w || w->dtype() != DType::Float32) return std::nullopt;
  Reader r;
  r.node = i, r.input = n.inputs[0];
  if (n.op_type == "Conv" && w->rank() >= 3) {
    const int64_t group = n.attr_int("group", 1), m = w->dim(0);
    if (group < 1 || m % group) return std::nullopt;
    r.conv = true;
    r.window = Window::from_node(n);
    r.kernel.assign(w->dims().begin() + 2, w->dims().end());
    r.channels = w->dim(1);
    r.data.d = w->numel() / m, r.data.outputs = m / group;
    r.data.weight.assign(w->data<float>(), w->data<float>() + w->numel());
    r.by_group.resize(size_t(group));
    return r;
  }
  const bool gemm = n.op_type == "Gemm", trans_b = gemm && n.attr_int("transB", 0) != 0;
  if ((!gemm && n.op_type != "MatMul") || (gemm && n.attr_int("transA", 0) != 0) || w->rank() != 2) return std::nullopt;
  const int64_t k = trans_b ? w->dim(1) : w->dim(0), outputs = trans_b ? w->dim(0) : w->dim(1);
  r.data.d = k, r.data.outputs = outputs;
  r.data.weight.resize(size_t(k * outputs));
  for (int64_t o = 0; o < outputs; ++o)
    for (int64_t j = 0; j < k; ++j) r.data.weight[size_t(o * k + j)] = w->data<float>()[trans_b ? o * k + j : j * outputs + o];
  r.by_group.resize(1);
  return r;
}

void finish_rows(Reader& r) {
  ReaderRows& d = r.data;
  d.group_start = {0};
  for (const auto& rows : r.by_group) {
    d.rows.insert(d.rows.end(), rows.begin(), rows.end());
    d.group_start.push_back(d.group_start.back() + int64_t(rows.size()) / std::max<int64_t>(1, d.d));
  }
  r.by_group.clear();
  d.energy = output_energy(d, d.rows.data());
}

}  // namespace

double reader_error(const ReaderRows& r, double amax) {
  if (r.energy <= 0) return 0;
  std::vector<float> delta(r.rows.size());
  quantization_error(r.rows.data(), int64_t(r.rows.size()), float(std::max(amax, kMinAmax) / 127.0), delta.data());
  return output_energy(r, delta.data()) / r.energy;
}

double choose_amax(const std::vector<const ReaderRows*>& readers, double max_abs, double current) {
  if (!(max_abs > 0)) return current;
  const auto error = [&](double a) {
    double e = 0;
    for (const ReaderRows* r : readers) e += reader_error(*r, a);
    return e;
  };
  std::vector<double> coarse;
  for (int k = 0; k < kCoarse; ++k) coarse.push_back(max_abs * std::pow(kSpan, -double(k) / (kCoarse - 1)));
  double best = current, best_error = current > 0 ? error(current) : INFINITY;
  size_t best_k = kCoarse;  // the grid's index of the best, kCoarse while it is `current`
  const auto consider = [&](double a, double e) {
    if (e < best_error || (e == best_error && a > best)) best = a, best_error = e;
  };
  for (size_t k = 0; k < coarse.size(); ++k) {
    const double before = best;
    consider(coarse[k], error(coarse[k]));
    if (best != before) best_k = k;
  }
  if (best_k < coarse.size()) {
    const double hi = best_k > 0 ? coarse[best_k - 1] : coarse[0], lo = best_k + 1 < coarse.size() ? coarse[best_k + 1] : coarse.back();
    for (int j = 1; j <= kFine; ++j) {
      const double a = hi - (hi - lo) * double(j) / (kFine + 1);
      consider(a, error(a));
    }
  }
  return best;
}

OutputAwareReport refine_ranges_by_output(const Graph& model, RangeTable& table, const QuantOptions& options,
                                          const std::set<std::string>& exclude, BatchSource& stream) {
  Graph g = model;
  QuantizeReport prepared;
  const std::vector<NodeMark> marks = prepare_and_mark(g, options, exclude, prepared, &table);
  const GraphIndex index(g);
  const std::set<std::string> independent = data_independent_values(g);
  std::vector<Reader> readers;
  std::map<std::string, std::vector<size_t>> readers_of_value;  // the tensor a reader reads → readers
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    std::optional<Reader> r = reader_of(g, i, marks[i]);
    if (!r) continue;
    const std::optional<std::string> source = scale_source(index, marks, options.pinned, independent, r->input);
    // A range given by --overrides (pinned) is the user's: it stays.
    if (!source || options.pinned.count(*source) || !table.activations.count(*source) || table.activations.at(*source).degenerate())
      continue;
    r->source = *source;
    readers_of_value[r->input].push_back(readers.size());
    readers.push_back(std::move(*r));
  }
  OutputAwareReport report;
  if (readers.empty()) return report;
  const int64_t per_sample = (kRowsPerReader + std::max<int64_t>(1, stream.total()) - 1) / std::max<int64_t>(1, stream.total());
  const std::vector<size_t>* indices = nullptr;
  const auto take = [&](const std::string& value, const Tensor& t) {
    const auto it = readers_of_value.find(value);
    if (it == readers_of_value.end()) return;
    for (size_t k : it->second) take_rows(readers[k], k, t, *indices, per_sample);
  };
  Executor exec(g);
  exec.set_hook([&](const Node& n, size_t, const std::vector<Tensor>& outs) {
    for (size_t k = 0; k < n.outputs.size() && k < outs.size(); ++k) take(n.outputs[k], outs[k]);
  });
  while (auto batch = stream.next()) {
    indices = &batch->indices;
    for (const auto& [name, t] : batch->inputs) take(name, t);
    exec.run(batch->inputs);
    report.samples += batch->count;
  }
  check(report.samples > 0, "output-aware ranges: no samples to measure on");
  std::map<std::string, std::vector<const ReaderRows*>> by_source;
  std::map<std::string, double> row_max;
  for (Reader& r : readers) {
    finish_rows(r);
    if (r.data.rows.empty()) continue;
    by_source[r.source].push_back(&r.data);
    double& m = row_max[r.source];
    for (float v : r.data.rows) m = std::max(m, double(std::fabs(v)));
  }
  std::vector<double> ratios;
  for (const auto& [source, rows] : by_source) {
    TensorRange& range = table.activations.at(source);
    const double before = range.descriptor.amax[0];
    const double max_abs = std::max(range.stats.max_abs, row_max[source]);
    const double chosen = choose_amax(rows, max_abs, before);
    range.descriptor.amax = {chosen};
    ratios.push_back(chosen / before);
    report.readers += rows.size();
  }
  report.sources = ratios.size();
  if (!ratios.empty()) {
    std::nth_element(ratios.begin(), ratios.begin() + std::ptrdiff_t(ratios.size() / 2), ratios.end());
    report.median_ratio = ratios[ratios.size() / 2];
  }
  return report;
}

}  // namespace q8
