#include "datasets/image_decoder.h"

#include <stb/stb_image.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "engine/io/atomic_write.h"

namespace q8 {

bool is_image_file(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp" || ext == ".pgm" || ext == ".ppm" || ext == ".pnm";
}

Image decode_image(const std::string& path) {
  std::string bytes;
  try {
    bytes = read_file(path);
  } catch (const Error& e) {
    throw DecodeError(e.what());
  }
  int w = 0, h = 0, c = 0;
  stbi_uc* data = stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), int(bytes.size()), &w, &h, &c, 0);
  if (!data) throw DecodeError(path + ": cannot decode image (" + std::string(stbi_failure_reason()) + ")");
  // stb reads a truncated binary PGM/PPM without complaint: its pixels alone need w·h·c bytes.
  if ((bytes.rfind("P5", 0) == 0 || bytes.rfind("P6", 0) == 0) && bytes.size() < size_t(w) * size_t(h) * size_t(c)) {
    stbi_image_free(data);
    throw DecodeError(path + ": truncated PGM/PPM data");
  }
  Image img;
  img.height = h, img.width = w, img.channels = c == 2 ? 1 : c;  // grey+alpha: keep grey
  img.pixels.resize(size_t(h) * size_t(w) * size_t(img.channels));
  if (c == 2) {
    for (size_t i = 0; i < size_t(h) * size_t(w); ++i) img.pixels[i] = data[2 * i];
  } else {
    std::memcpy(img.pixels.data(), data, img.pixels.size());
  }
  stbi_image_free(data);
  return img;
}

}  // namespace q8
