#include "datasets/idx_source.h"

#include <zlib.h>

#include <filesystem>

#include "engine/ir/error.h"

namespace q8 {

bool is_idx_file(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  return name.find("-ubyte") != std::string::npos || name.find(".idx") != std::string::npos;
}

IdxArray read_idx(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files too
  check(f != nullptr, path + ": cannot open");
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) bytes.insert(bytes.end(), buf, buf + n);
  int err = 0;
  const char* msg = gzerror(f, &err);
  const bool failed = n < 0 || (err != Z_OK && err != Z_STREAM_END);
  const std::string reason = failed ? std::string(msg) : "";
  gzclose(f);
  check(!failed, path + ": corrupt or truncated gzip data (" + reason + ")");
  check(bytes.size() >= 4 && bytes[0] == 0 && bytes[1] == 0, path + ": not an IDX file (bad magic)");
  IdxArray a;
  a.type = bytes[2];
  const int rank = bytes[3];
  const size_t elem = a.type == 0x08 || a.type == 0x09 ? 1 : a.type == 0x0B ? 2 : a.type == 0x0E ? 8 : 4;
  check(a.type == 0x08 || a.type == 0x09 || a.type == 0x0B || a.type == 0x0C || a.type == 0x0D || a.type == 0x0E,
        path + ": unknown IDX element type " + std::to_string(a.type));
  check(bytes.size() >= 4 + 4 * size_t(rank), path + ": truncated IDX header");
  uint64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    const uint8_t* p = bytes.data() + 4 + 4 * d;
    const int64_t dim = int64_t(p[0]) << 24 | int64_t(p[1]) << 16 | int64_t(p[2]) << 8 | int64_t(p[3]);
    a.dims.push_back(dim);
    check(!__builtin_mul_overflow(count, uint64_t(dim), &count), path + ": IDX dimensions overflow 64 bits");
  }
  const size_t offset = 4 + 4 * size_t(rank);
  check(count <= (uint64_t(1) << 50), path + ": IDX dimensions declare " + std::to_string(count) + " elements");
  check(bytes.size() - offset >= count * elem, path + ": truncated IDX data (" + std::to_string(bytes.size() - offset) +
                                                   " of " + std::to_string(count * elem) + " bytes)");
  a.data.assign(bytes.begin() + long(offset), bytes.begin() + long(offset + count * elem));
  return a;
}

IdxSource::IdxSource(const std::string& images_path, const std::string& labels_path)
    : images_path_(images_path), labels_path_(labels_path) {
  IdxArray images = read_idx(images_path);
  check(images.type == 0x08 && images.dims.size() == 3,
        images_path + ": expected unsigned-byte images [N, H, W], got type " + std::to_string(images.type) + " of rank " +
            std::to_string(images.dims.size()));
  count_ = images.dims[0], height_ = images.dims[1], width_ = images.dims[2];
  pixels_ = std::move(images.data);
  if (!labels_path.empty()) {
    IdxArray labels = read_idx(labels_path);
    check(labels.type == 0x08 && labels.dims.size() == 1 && labels.dims[0] == count_,
          labels_path + ": expected " + std::to_string(count_) + " unsigned-byte labels");
    labels_ = std::move(labels.data);
  }
}

RawSample IdxSource::load(size_t i) const {
  RawSample s;
  s.kind = RawSample::Kind::Image;
  s.image.height = height_, s.image.width = width_, s.image.channels = 1;
  check(i < size_t(count_), images_path_ + ": sample " + std::to_string(i) + " of " + std::to_string(count_));
  const size_t n = size_t(height_ * width_);
  s.image.pixels.assign(pixels_.begin() + long(i * n), pixels_.begin() + long((i + 1) * n));
  return s;
}

std::string IdxSource::origin(size_t i) const { return images_path_ + "[" + std::to_string(i) + "]"; }

std::optional<int64_t> IdxSource::label(size_t i) const {
  if (labels_.empty()) return std::nullopt;
  return labels_[i];
}

std::string IdxSource::describe() const {
  return std::to_string(count_) + " " + std::to_string(height_) + "x" + std::to_string(width_) + " IDX images (" +
         std::filesystem::path(images_path_).filename().string() + (labels_.empty() ? ", no labels" : ", labelled") + ")";
}

}  // namespace q8
