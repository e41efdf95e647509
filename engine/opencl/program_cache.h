// Building the q8 program for a device, through a cache of built binaries (REFERENCE: NVIDIA's
// "binaries" are PTX its driver compiles again, so q8 keys its own cache rather than trust one).
// The key is the SHA-256 of the source, the build options, the platform, the device and the
// driver version; entries are written atomically, and any failure to read, load or build one
// falls back to building from source.
#pragma once

#include <string>

#include "engine/opencl/status.h"

namespace q8 {

struct BuiltProgram {
  cl_program program = nullptr;
  bool from_cache = false;
  std::string cache_file;  // "" when there is no cache directory
};

// The cache directory: $Q8_CACHE_DIR, else $XDG_CACHE_HOME/q8/opencl, else ~/.cache/q8/opencl;
// "" when none can be named.
std::string opencl_cache_dir();

// Builds source for device (one device of context) with options, through the cache in cache_dir
// ("" for none). Error with the build log when the source does not build.
BuiltProgram build_program(cl_context context, cl_device_id device, const std::string& source, const std::string& options,
                           const std::string& identity, const std::string& cache_dir);

}  // namespace q8
