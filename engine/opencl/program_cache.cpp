#include "engine/opencl/program_cache.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "engine/io/atomic_write.h"
#include "engine/io/sha256.h"
#include "engine/ir/error.h"

namespace q8 {

namespace {

cl_int build(cl_program program, cl_device_id device, const std::string& options) {
  return clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
}

std::string build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  std::replace(log.begin(), log.end(), '\n', ' ');
  return log.c_str();
}

// The cached binary as a built program, or nullptr (missing, unreadable, rejected by the driver).
cl_program load(cl_context context, cl_device_id device, const std::string& file, const std::string& options) {
  std::error_code ec;
  if (file.empty() || !std::filesystem::is_regular_file(file, ec)) return nullptr;
  std::string binary;
  try {
    binary = read_file(file, size_t(1) << 30);
  } catch (const Error&) {
    return nullptr;
  }
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(binary.data());
  const size_t size = binary.size();
  cl_int status = CL_SUCCESS, binary_status = CL_SUCCESS;
  cl_program program = clCreateProgramWithBinary(context, 1, &device, &size, &bytes, &binary_status, &status);
  if (status != CL_SUCCESS || binary_status != CL_SUCCESS) {
    if (program) clReleaseProgram(program);
    return nullptr;
  }
  if (build(program, device, options) != CL_SUCCESS) {
    clReleaseProgram(program);
    return nullptr;
  }
  return program;
}

// Writes the program's binary to file; a cache that cannot be written is no error.
void store(cl_program program, const std::string& file) {
  size_t size = 0;
  if (file.empty() || clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS || size == 0) return;
  std::string binary(size, '\0');
  unsigned char* out = reinterpret_cast<unsigned char*>(binary.data());
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof out, &out, nullptr) != CL_SUCCESS) return;
  try {
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    write_file_atomically(file, binary);
  } catch (const std::exception&) {
  }
}

}  // namespace

std::string opencl_cache_dir() {
  if (const char* d = std::getenv("Q8_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (std::filesystem::path(x) / "q8" / "opencl").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (std::filesystem::path(h) / ".cache" / "q8" / "opencl").string();
  return "";
}

BuiltProgram build_program(cl_context context, cl_device_id device, const std::string& source, const std::string& options,
                           const std::string& identity, const std::string& cache_dir) {
  BuiltProgram b;
  if (!cache_dir.empty())
    b.cache_file = (std::filesystem::path(cache_dir) / (sha256_hex(source + '\0' + options + '\0' + identity) + ".bin")).string();
  if ((b.program = load(context, device, b.cache_file, options))) {
    b.from_cache = true;
    return b;
  }
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_int status = CL_SUCCESS;
  b.program = clCreateProgramWithSource(context, 1, &text, &length, &status);
  cl_check(status, "creating the q8 OpenCL program");
  status = build(b.program, device, options);
  if (status != CL_SUCCESS) {
    const std::string log = build_log(b.program, device);
    clReleaseProgram(b.program);
    throw Error("building the q8 OpenCL kernels: " + cl_status_name(status) + "; build log: " + log);
  }
  store(b.program, b.cache_file);
  return b;
}

}  // namespace q8
