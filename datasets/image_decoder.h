// Decoding image files (PNG, JPEG, BMP, PGM/PPM) with Debian's stb_image.
#pragma once

#include <string>

#include "datasets/raw_sample.h"

namespace q8 {

bool is_image_file(const std::string& path);
// Decodes path; DecodeError names the file and stb's reason.
Image decode_image(const std::string& path);

}  // namespace q8
