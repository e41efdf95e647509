#include "eval/blame.h"

#include <algorithm>
#include <cmath>

#include "eval/metrics.h"
#include "eval/qdq_pairs.h"

namespace q8 {

namespace {

// 1 − cosine per sample and argmax disagreements (over the channel axis 1 for every position),
// accumulated against the reference output.
struct Divergence {
  double cosine_loss_sum = 0;
  int64_t samples = 0, decisions = 0, differ = 0;

  void add(const Tensor& ref, const Tensor& got) {
    check(ref.dims() == got.dims(), "output shapes differ between the FP32 model and a blame variant");
    const int64_t n = ref.dim(0), per = n ? ref.numel() / n : 0;
    const int64_t channels = ref.rank() >= 2 ? ref.dim(1) : 1, positions = channels ? per / channels : 0;
    for (int64_t i = 0; i < n; ++i) {
      const float* a = ref.data<float>() + i * per;
      const float* b = got.data<float>() + i * per;
      cosine_loss_sum += 1.0 - cosine_similarity(a, b, per);
      if (channels > 1) {
        for (int64_t p = 0; p < positions; ++p) differ += pixel_argmax(a, channels, positions, p) != pixel_argmax(b, channels, positions, p);
        decisions += positions;
      }
    }
    samples += n;
  }
  TensorBlame result(const std::string& tensor) const {
    return {tensor, samples ? cosine_loss_sum / double(samples) : 0, decisions ? double(differ) / double(decisions) : 0};
  }
};

}  // namespace

size_t blamed_tensor_count(const Graph& qdq) {
  std::vector<std::string> tensors;
  for (const ActivationQdq& p : activation_qdq_pairs(qdq))
    if (std::find(tensors.begin(), tensors.end(), p.tensor) == tensors.end()) tensors.push_back(p.tensor);
  return tensors.size();
}

BlameReport isolated_blame(const Graph& fp32, const Graph& qdq, const std::vector<TensorMap>& batches, Progress& progress) {
  check(!fp32.outputs.empty(), "the FP32 model has no outputs");
  const std::string output = fp32.outputs[0].name;
  const std::vector<ActivationQdq> pairs = activation_qdq_pairs(qdq);
  BlameReport report;
  std::vector<Tensor> reference;
  {
    Executor exec(fp32);
    for (const TensorMap& b : batches) reference.push_back(exec.run(b).at(output)), report.samples += reference.back().dim(0);
  }
  auto measure = [&](const Graph& variant, const std::string& label) {
    Executor exec(variant);
    Divergence d;
    for (size_t i = 0; i < batches.size(); ++i) d.add(reference[i], exec.run(batches[i]).at(output));
    return d.result(label);
  };
  report.weights_only = measure(bypass_activation_qdq(qdq, pairs), "(weights only)");
  progress.update(1);
  std::vector<std::string> tensors;
  for (const ActivationQdq& p : pairs)
    if (std::find(tensors.begin(), tensors.end(), p.tensor) == tensors.end()) tensors.push_back(p.tensor);
  for (size_t k = 0; k < tensors.size(); ++k) {
    std::vector<ActivationQdq> others;
    for (const ActivationQdq& p : pairs)
      if (p.tensor != tensors[k]) others.push_back(p);
    report.tensors.push_back(measure(bypass_activation_qdq(qdq, others), tensors[k]));
    progress.update(int64_t(k) + 2);
  }
  progress.finish();
  std::stable_sort(report.tensors.begin(), report.tensors.end(),
                   [](const TensorBlame& a, const TensorBlame& b) { return a.cosine_loss > b.cosine_loss; });
  return report;
}

}  // namespace q8
