#include "datasets/preprocess.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/io/atomic_write.h"
#include "engine/io/json_int.h"

namespace q8 {

void Preprocessing::merge_json(const std::string& path) { merge_json_text(read_file(path), path); }

std::string Preprocessing::to_json() const {
  nlohmann::ordered_json j;
  j["resize"] = resize;
  if (!color.empty()) j["color"] = color;
  if (!layout.empty()) j["layout"] = layout;
  j["scale"] = scale;
  j["mean"] = mean;
  j["std"] = std;
  if (height) j["size"] = {height, width};
  if (sequence_length) j["sequence_length"] = sequence_length;
  if (!batch_axes.empty()) j["batch_axes"] = batch_axes;
  return j.dump();
}

void Preprocessing::merge_json_text(const std::string& text, const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  try {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      if (k == "resize") resize = it->get<std::string>();
      else if (k == "color") color = it->get<std::string>();
      else if (k == "layout") layout = it->get<std::string>();
      else if (k == "scale") scale = it->get<double>();
      else if (k == "mean") mean = it->is_array() ? it->get<std::vector<double>>() : std::vector<double>{it->get<double>()};
      else if (k == "std") std = it->is_array() ? it->get<std::vector<double>>() : std::vector<double>{it->get<double>()};
      else if (k == "size") {
        check(it->is_array() && it->size() == 2, path + ": \"size\" must be [height, width]");
        height = json_int<int64_t>((*it)[0], path + ": \"size\""), width = json_int<int64_t>((*it)[1], path + ": \"size\"");
        check(height > 0 && width > 0 && height <= 65536 && width <= 65536, path + ": \"size\" must be in 1..65536");
      } else if (k == "sequence_length") {
        sequence_length = json_int<int64_t>(*it, path + ": \"sequence_length\"");
        check(sequence_length > 0 && sequence_length <= kMaxSequenceLength, path + ": \"sequence_length\" must be in 1.." + std::to_string(kMaxSequenceLength));
      } else if (k == "batch_axes") {
        check(it->is_object(), path + ": \"batch_axes\" must be an object of input name → axis");
        for (auto a = it->begin(); a != it->end(); ++a) {
          const int64_t axis = json_int<int64_t>(*a, path + ": \"batch_axes\" of '" + a.key() + "'");
          check(axis >= 0 && axis < 64, path + ": \"batch_axes\" of '" + a.key() + "' must be an axis (0..63)");
          batch_axes[a.key()] = axis;
        }
      } else {
        throw Error(path + ": unknown preprocessing key '" + k +
                    "' (resize, color, layout, scale, mean, std, size, sequence_length, batch_axes)");
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": " + e.what());
  }
}

std::string Preprocessing::describe() const {
  std::ostringstream s;
  auto list = [](const std::vector<double>& v) {
    std::ostringstream o;
    for (size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << v[i];
    return o.str();
  };
  s << "resize " << resize;
  if (height) s << " " << height << "x" << width;
  if (sequence_length) s << ", sequence length " << sequence_length;
  for (const auto& [name, axis] : batch_axes) s << ", " << name << " batched on axis " << axis;
  s << ", color " << (color.empty() ? "auto" : color) << ", layout " << (layout.empty() ? "auto" : layout) << ", scale " << scale
    << ", mean " << list(mean) << ", std " << list(std);
  return s.str();
}

bool is_sequence_input(size_t rank) { return rank == 2 || rank == 3; }

InputSpec input_spec(const ValueInfo& input, const Preprocessing& pre, const Dims* first_sample, int64_t batch_axis) {
  InputSpec spec{input.name, input.dtype, {}, batch_axis};
  check(input.shape.has_value(), "input '" + input.name + "' has no declared shape");
  if (input.shape->empty()) {  // a scalar (a sample rate): one value for every batch
    spec.batch_axis = -1;
    return spec;
  }
  const auto& dims = *input.shape;
  check(batch_axis >= 0 && batch_axis < int64_t(dims.size()),
        "input '" + input.name + "' (" + input.shape_string() + ") has no axis " + std::to_string(batch_axis) + " to batch along");
  const bool nhwc = pre.layout == "nhwc" || (pre.layout.empty() && dims.size() == 4 && dims[3].known() && (dims[3].value == 1 || dims[3].value == 3) &&
                                           !(dims[1].known() && (dims[1].value == 1 || dims[1].value == 3)));
  for (size_t d = 0; d < dims.size(); ++d) {
    if (int64_t(d) == batch_axis) continue;
    const size_t at = spec.sample_dims.size();  // d's place in a sample
    int64_t v = dims[d].value;
    if (!dims[d].known()) {
      // Spatial dims may be symbolic: --size fills them.
      const size_t h_axis = nhwc ? 1 : 2, w_axis = nhwc ? 2 : 3;
      if (dims.size() == 4 && d == h_axis && pre.height) v = pre.height;
      else if (batch_axis == 0 && is_sequence_input(dims.size()) && d == 1 && pre.sequence_length) v = pre.sequence_length;
      else if (dims.size() == 4 && d == w_axis && pre.width) v = pre.width;
      else if (first_sample && first_sample->size() + 1 == dims.size()) v = (*first_sample)[at];
      else throw Error("input '" + input.name + "' has dynamic dimension " + std::to_string(d) + " (" + input.shape_string() +
                       (is_sequence_input(dims.size()) && d == 1 ? "); give --sequence-length N" : "); give --size HxW"));
    }
    spec.sample_dims.push_back(v);
  }
  return spec;
}

Image resize_bilinear(const Image& src, int64_t height, int64_t width) {
  Image out;
  out.height = height, out.width = width, out.channels = src.channels;
  out.pixels.resize(size_t(height * width * src.channels));
  const double sy = double(src.height) / double(height), sx = double(src.width) / double(width);
  for (int64_t y = 0; y < height; ++y) {
    const double fy = std::clamp((double(y) + 0.5) * sy - 0.5, 0.0, double(src.height - 1));
    const int64_t y0 = int64_t(fy), y1 = std::min(y0 + 1, src.height - 1);
    const double wy = fy - double(y0);
    for (int64_t x = 0; x < width; ++x) {
      const double fx = std::clamp((double(x) + 0.5) * sx - 0.5, 0.0, double(src.width - 1));
      const int64_t x0 = int64_t(fx), x1 = std::min(x0 + 1, src.width - 1);
      const double wx = fx - double(x0);
      for (int64_t c = 0; c < src.channels; ++c) {
        auto at = [&](int64_t yy, int64_t xx) { return double(src.pixels[size_t((yy * src.width + xx) * src.channels + c)]); };
        const double v = (1 - wy) * ((1 - wx) * at(y0, x0) + wx * at(y0, x1)) + wy * ((1 - wx) * at(y1, x0) + wx * at(y1, x1));
        out.pixels[size_t((y * width + x) * src.channels + c)] = uint8_t(std::clamp(std::lround(v), 0L, 255L));
      }
    }
  }
  return out;
}

namespace {

Image fit_size(const Image& img, int64_t height, int64_t width, const std::string& mode) {
  if (img.height == height && img.width == width) return img;
  if (mode == "exact") return resize_bilinear(img, height, width);
  check(mode == "shorter", "--resize must be exact or shorter, got '" + mode + "'");
  // Scale so the image covers the target, then crop the centre.
  const double s = std::max(double(height) / double(img.height), double(width) / double(img.width));
  const int64_t rh = std::max<int64_t>(height, std::lround(double(img.height) * s));
  const int64_t rw = std::max<int64_t>(width, std::lround(double(img.width) * s));
  const Image big = resize_bilinear(img, rh, rw);
  Image out;
  out.height = height, out.width = width, out.channels = img.channels;
  out.pixels.resize(size_t(height * width * img.channels));
  const int64_t top = (rh - height) / 2, left = (rw - width) / 2;
  for (int64_t y = 0; y < height; ++y)
    std::copy_n(big.pixels.begin() + long(((y + top) * rw + left) * img.channels), size_t(width * img.channels),
                out.pixels.begin() + long(y * width * img.channels));
  return out;
}

// Pixel (y, x) channel c of the model's colour order, from an image of 1, 3 or 4 channels.
double pixel(const Image& img, int64_t y, int64_t x, int64_t c, const std::string& color) {
  const uint8_t* p = img.pixels.data() + (y * img.width + x) * img.channels;
  if (color == "gray") return img.channels == 1 ? p[0] : 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
  if (img.channels == 1) return p[0];
  return color == "bgr" ? p[2 - c] : p[c];
}

template <typename T>
void store(Tensor& t, int64_t i, double v) {
  if constexpr (std::is_same_v<T, float>) t.data<float>()[i] = float(v);
  else if constexpr (std::is_same_v<T, Float16>) t.data<Float16>()[i] = float_to_half(float(v));
  else if constexpr (std::is_same_v<T, bool>) t.data<bool>()[i] = v != 0;
  else t.data<T>()[i] = T(std::lround(std::clamp(v, double(std::numeric_limits<T>::lowest()), double(std::numeric_limits<T>::max()))));
}

Tensor image_to_tensor(const Image& img, const InputSpec& spec, const Preprocessing& pre, const std::string& origin) {
  check(spec.sample_dims.size() == 3, origin + ": an image, but input '" + spec.name + "' of sample shape " +
                                          dims_to_string(spec.sample_dims) + " is not an image (C×H×W or H×W×C)");
  const Dims& d = spec.sample_dims;
  bool nhwc = pre.layout == "nhwc";
  if (pre.layout.empty()) nhwc = (d[2] == 1 || d[2] == 3) && !(d[0] == 1 || d[0] == 3);
  const int64_t channels = nhwc ? d[2] : d[0], height = nhwc ? d[0] : d[1], width = nhwc ? d[1] : d[2];
  check(channels == 1 || channels == 3, origin + ": input '" + spec.name + "' has " + std::to_string(channels) +
                                            " channels; images fill 1 (gray) or 3 (rgb/bgr)");
  std::string color = pre.color.empty() ? (channels == 1 ? "gray" : "rgb") : pre.color;
  check((color == "gray") == (channels == 1), origin + ": --color " + color + " does not fit the " + std::to_string(channels) +
                                                  "-channel input '" + spec.name + "'");
  const Image fitted = fit_size(img, height, width, pre.resize);
  auto per_channel = [&](const std::vector<double>& v, int64_t c, const char* what) {
    check(v.size() == 1 || int64_t(v.size()) == channels, std::string("--") + what + " has " + std::to_string(v.size()) +
                                                             " values for " + std::to_string(channels) + " channels");
    return v.size() == 1 ? v[0] : v[size_t(c)];
  };
  Tensor t(spec.dtype, spec.sample_dims);
  if (color != "gray" || fitted.channels == 1) {
    // Each value comes from one 8-bit pixel: a 256-entry table per channel holds the formula's
    // result for every pixel value, computed as below, so the output is the same, faster.
    Tensor table(spec.dtype, {channels, 256});
    visit_dtype(spec.dtype, [&]<typename T>() {
      for (int64_t c = 0; c < channels; ++c) {
        const double mean = per_channel(pre.mean, c, "mean"), sd = per_channel(pre.std, c, "std");
        for (int64_t v = 0; v < 256; ++v) store<T>(table, c * 256 + v, (double(v) * pre.scale - mean) / sd);
      }
      const T* lut = table.data<T>();
      T* out = t.data<T>();
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t source = fitted.channels == 1 ? 0 : color == "bgr" ? 2 - c : c;
        const uint8_t* px = fitted.pixels.data() + source;
        const T* row_lut = lut + c * 256;
        for (int64_t i = 0; i < height * width; ++i)
          out[nhwc ? i * channels + c : c * height * width + i] = row_lut[px[i * fitted.channels]];
      }
    });
    return t;
  }
  visit_dtype(spec.dtype, [&]<typename T>() {
    for (int64_t c = 0; c < channels; ++c) {
      const double mean = per_channel(pre.mean, c, "mean"), sd = per_channel(pre.std, c, "std");
      for (int64_t y = 0; y < height; ++y)
        for (int64_t x = 0; x < width; ++x) {
          const double v = (pixel(fitted, y, x, c, color) * pre.scale - mean) / sd;
          store<T>(t, nhwc ? (y * width + x) * channels + c : (c * height + y) * width + x, v);
        }
    }
  });
  return t;
}

// A token sample [S] or [S, D] cut or padded with zeros to `length` on its first axis.
Tensor fit_sequence(const Tensor& t, int64_t length) {
  if (t.rank() == 0 || t.dim(0) == length) return t;
  Dims dims = t.dims();
  dims[0] = length;
  Tensor out(t.dtype(), dims);  // zeros
  const size_t row = size_t(t.numel() / std::max<int64_t>(t.dim(0), 1)) * dtype_size(t.dtype());
  std::memcpy(out.raw(), t.raw(), size_t(std::min(t.dim(0), length)) * row);
  return out;
}

}  // namespace

Tensor to_model_sample(const RawSample& sample, const InputSpec& spec, const Preprocessing& pre, const std::string& origin) {
  if (sample.kind == RawSample::Kind::Image) return image_to_tensor(sample.image, spec, pre, origin);
  const Tensor t = pre.sequence_length && spec.batch_axis == 0 && is_sequence_input(spec.sample_dims.size() + 1) ? fit_sequence(sample.tensor, pre.sequence_length)
                                                                                       : sample.tensor;
  // 8-bit H×W or H×W×C tensors are images in disguise (IDX, raw pixel .npy).
  if (t.dtype() == DType::Uint8 && (t.rank() == 2 || (t.rank() == 3 && (t.dim(2) == 1 || t.dim(2) == 3 || t.dim(2) == 4))) &&
      spec.sample_dims.size() == 3 && t.dims() != spec.sample_dims) {
    Image img;
    img.height = t.dim(0), img.width = t.dim(1), img.channels = t.rank() == 3 ? t.dim(2) : 1;
    img.pixels.assign(t.data<uint8_t>(), t.data<uint8_t>() + t.numel());
    return image_to_tensor(img, spec, pre, origin);
  }
  check(t.dims() == spec.sample_dims, origin + ": sample of shape " + dims_to_string(t.dims()) + " does not fit input '" +
                                          spec.name + "' (sample shape " + dims_to_string(spec.sample_dims) +
                                          "); tensor files are used as they are, without preprocessing" +
                                          (is_sequence_input(spec.sample_dims.size() + 1) ? " (--sequence-length N cuts or pads token samples)" : ""));
  if (t.dtype() == spec.dtype) return t;
  Tensor out(spec.dtype, t.dims());
  visit_dtype(spec.dtype, [&]<typename T>() {
    for (int64_t i = 0; i < t.numel(); ++i) store<T>(out, i, t.element_as_double(i));
  });
  return out;
}

}  // namespace q8
