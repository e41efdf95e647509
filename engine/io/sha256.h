// SHA-256 (FIPS 180-4), for fingerprints of model files.
#pragma once

#include <string>

namespace q8 {

// Lowercase hex digest of bytes.
std::string sha256_hex(const std::string& bytes);

}  // namespace q8
