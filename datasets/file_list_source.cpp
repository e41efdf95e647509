#include "datasets/file_list_source.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "datasets/image_decoder.h"
#include "engine/io/npy.h"
#include "engine/onnx/tensor_proto.h"

namespace q8 {

namespace {

std::string extension(const std::string& path) { return std::filesystem::path(path).extension().string(); }

// Samples in a tensor file: -1 (one) or the batch size. A file of rank sample_rank + 1 is a
// batch along batch_axis; so is an 8-bit file of H×W images ([N, H, W], W not 1, 3 or 4) or H×W×C
// images.
int64_t samples_in(const std::string& path, size_t sample_rank, size_t batch_axis) {
  Dims dims;
  DType dtype;
  try {
    if (extension(path) == ".npy") {
      const NpyHeader h = read_npy_header(path);
      dims = h.dims, dtype = h.dtype;
    } else {
      const Tensor t = read_tensor_pb(path);
      dims = t.dims(), dtype = t.dtype();
    }
  } catch (const Error&) {
    return -1;  // reported when the sample is loaded
  }
  auto is_channels = [](int64_t c) { return c == 1 || c == 3 || c == 4; };
  if (batch_axis == 0 && dtype == DType::Uint8 && dims.size() == 3 && !is_channels(dims[2])) return dims[0];
  if (batch_axis == 0 && dtype == DType::Uint8 && dims.size() == 4 && is_channels(dims[3])) return dims[0];
  return dims.size() == sample_rank + 1 && batch_axis < dims.size() ? dims[batch_axis] : -1;
}

// Sample `index` of t along `axis`: t without that axis.
Tensor slice_along(const Tensor& t, size_t axis, int64_t index) {
  Dims sample = t.dims();
  const int64_t count = sample[axis];
  sample.erase(sample.begin() + std::ptrdiff_t(axis));
  Tensor one(t.dtype(), sample);
  int64_t outer = 1;
  for (size_t d = 0; d < axis; ++d) outer *= t.dim(d);
  const size_t inner = size_t(numel(t.dims()) / std::max<int64_t>(outer * count, 1)) * dtype_size(t.dtype());
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(one.raw() + size_t(o) * inner, t.raw() + (size_t(o * count + index)) * inner, inner);
  return one;
}

}  // namespace

FileListSource::FileListSource(std::vector<std::string> files, std::vector<int64_t> labels, size_t sample_rank, std::string describe,
                               size_t batch_axis)
    : files_(std::move(files)), labels_(std::move(labels)), describe_(std::move(describe)), batch_axis_(batch_axis) {
  for (size_t f = 0; f < files_.size(); ++f) {
    const int64_t n = is_image_file(files_[f]) ? -1 : samples_in(files_[f], sample_rank, batch_axis_);
    npy_headers_.emplace_back();
    if (n >= 0 && batch_axis_ == 0 && extension(files_[f]) == ".npy") npy_headers_.back() = read_npy_header(files_[f]);
    if (n < 0) entries_.push_back({f, -1});
    for (int64_t i = 0; i < n; ++i) entries_.push_back({f, i});
  }
}

RawSample FileListSource::load(size_t i) const {
  const Entry& e = entries_[i];
  const std::string& path = files_[e.file];
  RawSample s;
  if (is_image_file(path)) {
    s.kind = RawSample::Kind::Image;
    s.image = decode_image(path);
    return s;
  }
  try {
    if (extension(path) == ".npy" && e.index >= 0 && batch_axis_ == 0) {
      // Read only this sample's bytes.
      const NpyHeader h = npy_headers_[e.file] ? *npy_headers_[e.file] : read_npy_header(path);
      const Dims sample(h.dims.begin() + 1, h.dims.end());
      Tensor t(h.dtype, sample);
      std::ifstream in(path, std::ios::binary);
      in.seekg(std::streamoff(h.data_offset + size_t(e.index) * t.nbytes()));
      in.read(reinterpret_cast<char*>(t.raw()), std::streamsize(t.nbytes()));
      if (size_t(in.gcount()) != t.nbytes()) throw DecodeError(origin(i) + ": truncated .npy data");
      s.tensor = std::move(t);
      return s;
    }
    Tensor t = extension(path) == ".npy" ? read_npy(path) : read_tensor_pb(path);
    if (e.index >= 0) t = slice_along(t, batch_axis_, e.index);
    s.tensor = std::move(t);
    return s;
  } catch (const Error& err) {
    throw DecodeError(err.what());
  }
}

std::string FileListSource::origin(size_t i) const {
  const Entry& e = entries_[i];
  return files_[e.file] + (e.index >= 0 ? "[" + std::to_string(e.index) + "]" : "");
}

std::optional<int64_t> FileListSource::label(size_t i) const {
  if (labels_.empty()) return std::nullopt;
  const int64_t l = labels_[entries_[i].file];
  if (l < 0) return std::nullopt;
  return l;
}

}  // namespace q8
