// Turning a dataset sample into one model-input sample: resize (exact, or shorter side and
// centre crop; bilinear), colour order, layout, scale, per-channel mean and std, dtype.
#pragma once

#include <map>

#include <string>
#include <vector>

#include "datasets/raw_sample.h"
#include "engine/ir/graph.h"

namespace q8 {

struct Preprocessing {
  std::string resize = "exact";   // exact | shorter
  std::string color;              // rgb | bgr | gray; "" = gray for 1 channel, rgb for 3
  std::string layout;             // nchw | nhwc; "" = from the model's input shape
  double scale = 1.0 / 255.0;     // applied to 8-bit pixels before mean and std
  std::vector<double> mean{0.0};  // one value, or one per channel
  std::vector<double> std{1.0};
  int64_t height = 0, width = 0;  // 0 = from the model's input shape
  // Token inputs ([N, S] or [N, S, D]): S for a dynamic sequence axis, and every tensor sample's
  // length on that axis, cut or padded with zeros to it (0 = the samples' own, which must agree).
  int64_t sequence_length = 0;
  // Inputs whose batch axis is not 0 (a recurrent state [layers, N, hidden]): name → axis
  // (--batch-axis NAME=K). Others: docs/datasets.md, "Batch axes".
  std::map<std::string, int64_t> batch_axes;

  // Reads keys of the same names from a JSON file ("mean": [..], "std": [..], "size": [h, w]).
  void merge_json(const std::string& path);
  // The same from JSON text; origin names it in errors.
  void merge_json_text(const std::string& text, const std::string& origin);
  // Every setting as a JSON object that merge_json_text reads back.
  std::string to_json() const;
  std::string describe() const;
};

// One model input: its name, element type and the shape of one sample (without the batch).
struct InputSpec {
  std::string name;
  DType dtype = DType::Float32;
  Dims sample_dims;         // the input's dims without its batch axis
  int64_t batch_axis = 0;   // where a batch stacks its samples; -1: none (a scalar, one value for every batch)
};

// The spec of a graph input; symbolic spatial dims come from preprocessing's height and width,
// and any other symbolic dim from first_sample (the dataset's first tensor sample) when given.
// The longest --sequence-length taken.
constexpr int64_t kMaxSequenceLength = int64_t(1) << 20;

// Whether a graph input of this rank is a token input that --sequence-length fits ([N, S] or
// [N, S, D]; images are rank 4).
bool is_sequence_input(size_t rank);

// batch_axis: the input's (batch_axis_of, model_inputs.h); -1 for a scalar input.
InputSpec input_spec(const ValueInfo& input, const Preprocessing& pre, const Dims* first_sample = nullptr, int64_t batch_axis = 0);

// Applies preprocessing to an image, or checks and converts a tensor sample. Errors name
// origin and what cannot be fixed (a tensor of the wrong shape, a model input that is not an
// image for an image sample).
Tensor to_model_sample(const RawSample& sample, const InputSpec& spec, const Preprocessing& pre, const std::string& origin);

// Bilinear resize of 8-bit interleaved pixels (half-pixel centres), exposed for tests.
Image resize_bilinear(const Image& src, int64_t height, int64_t width);

}  // namespace q8
