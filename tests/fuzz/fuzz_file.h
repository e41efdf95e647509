// For loaders that read a path: the fuzz input written to a per-process temporary file, and the
// rule every target checks — an input either loads or raises q8::Error (DecodeError for one bad
// sample); a crash, a sanitizer report or any other exception is a bug.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace q8::fuzz {

inline std::string write_temp(const uint8_t* data, size_t size, const std::string& suffix) {
  const std::string path = "/tmp/q8-fuzz-" + std::to_string(::getpid()) + suffix;
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  return path;
}

}  // namespace q8::fuzz
