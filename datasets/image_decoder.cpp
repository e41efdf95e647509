#include "datasets/image_decoder.h"

#include <stb/stb_image.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

#include "engine/io/atomic_write.h"

namespace q8 {

bool is_image_file(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp" || ext == ".pgm" || ext == ".ppm" || ext == ".pnm";
}

namespace {

uint32_t le32(const std::string& b, size_t at) {
  return uint32_t(uint8_t(b[at])) | uint32_t(uint8_t(b[at + 1])) << 8 | uint32_t(uint8_t(b[at + 2])) << 16 |
         uint32_t(uint8_t(b[at + 3])) << 24;
}

// stb decodes truncated binary PGM/PPM and uncompressed BMP files without complaint, filling the
// missing pixels: the bytes their headers promise are counted here. 0 when unknown.
size_t promised_bytes(const std::string& b, int w, int h, int c) {
  if (b.rfind("P5", 0) == 0 || b.rfind("P6", 0) == 0) {
    // Magic, width, height, maxval (comments allowed), then one whitespace byte, then pixels.
    size_t pos = 2;
    long maxval = 0;
    for (int field = 0; field < 3; ++field) {
      while (pos < b.size() && (std::isspace(uint8_t(b[pos])) || b[pos] == '#')) {
        if (b[pos] == '#')
          while (pos < b.size() && b[pos] != '\n') ++pos;
        else
          ++pos;
      }
      long v = 0;
      while (pos < b.size() && std::isdigit(uint8_t(b[pos]))) v = std::min(v * 10 + (b[pos++] - '0'), 1L << 20);
      maxval = v;
    }
    return pos + 1 + size_t(w) * size_t(h) * size_t(c) * (maxval > 255 ? 2 : 1);
  }
  if (b.rfind("BM", 0) == 0 && b.size() >= 34 && le32(b, 30) == 0) {  // BI_RGB: no compression
    const uint32_t offset = le32(b, 10), bits = le32(b, 28) & 0xFFFF;
    const size_t row = (size_t(bits) * size_t(w) + 31) / 32 * 4;
    return size_t(offset) + row * size_t(h);
  }
  return 0;
}

}  // namespace

Image decode_image(const std::string& path) {
  std::string bytes;
  try {
    bytes = read_file(path);
  } catch (const Error& e) {
    throw DecodeError(e.what());
  }
  int w = 0, h = 0, c = 0;
  // Sizes come from the header: check them, and the bytes an uncompressed format promises,
  // before stb allocates the pixels.
  if (stbi_info_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), int(bytes.size()), &w, &h, &c)) {
    if (double(w) * double(h) * double(c) > double(1u << 28))
      throw DecodeError(path + ": a " + std::to_string(w) + "x" + std::to_string(h) + " image is larger than q8 decodes (256 MiB of pixels)");
    if (const size_t promised = promised_bytes(bytes, w, h, c); bytes.size() < promised)
      throw DecodeError(path + ": truncated " + (bytes.rfind("BM", 0) == 0 ? "BMP" : "PGM/PPM") + " data (" +
                        std::to_string(bytes.size()) + " of " + std::to_string(promised) + " bytes)");
  }
  stbi_uc* data = stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), int(bytes.size()), &w, &h, &c, 0);
  if (!data) throw DecodeError(path + ": cannot decode image (" + std::string(stbi_failure_reason()) + ")");
  if (w <= 0 || h <= 0) {
    stbi_image_free(data);
    throw DecodeError(path + ": an image of " + std::to_string(w) + "x" + std::to_string(h) + " pixels");
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
