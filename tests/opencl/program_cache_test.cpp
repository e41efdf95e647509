// The OpenCL program cache on the first OpenCL device (PoCL in CI): a first build writes the
// binary, a second loads it, a damaged entry falls back to the source and is written again, other
// options key another entry, and a source that does not build gives its build log.
#include "engine/opencl/program_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/io/atomic_write.h"
#include "engine/ir/error.h"

namespace q8 {
namespace {

const char* kSource = "__kernel void twice(__global int* v) { v[get_global_id(0)] *= 2; }\n";

struct Context {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  Context() {
    cl_platform_id platform;
    cl_uint n = 0;
    if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0) return;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &n) != CL_SUCCESS || n == 0) return;
    cl_int status = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  }
  ~Context() {
    if (context) clReleaseContext(context);
  }
};

TEST(ProgramCache, StoresLoadsAndFallsBackToTheSource) {
  Context c;
  ASSERT_NE(c.context, nullptr) << "no OpenCL device: the test command installs PoCL (pocl-opencl-icd)";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("q8_cache_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto built = [&](const std::string& options) {
    BuiltProgram b = build_program(c.context, c.device, kSource, options, "test device", dir.string());
    cl_int status = CL_SUCCESS;
    cl_kernel k = clCreateKernel(b.program, "twice", &status);
    EXPECT_EQ(status, CL_SUCCESS) << "the program has its kernel";
    if (k) clReleaseKernel(k);
    clReleaseProgram(b.program);
    return b;
  };
  const BuiltProgram first = built("-cl-std=CL1.2");
  EXPECT_FALSE(first.from_cache);
  ASSERT_TRUE(std::filesystem::is_regular_file(first.cache_file));
  const BuiltProgram second = built("-cl-std=CL1.2");
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.cache_file, first.cache_file);
  const std::string good = read_file(first.cache_file);
  write_file_atomically(first.cache_file, "not a binary");
  const BuiltProgram damaged = built("-cl-std=CL1.2");
  EXPECT_FALSE(damaged.from_cache);
  EXPECT_EQ(read_file(first.cache_file).size(), good.size()) << "the entry is written again";
  const BuiltProgram other = built("-cl-std=CL1.2 -DQ8_OTHER=1");
  EXPECT_NE(other.cache_file, first.cache_file);
  EXPECT_FALSE(other.from_cache);
  try {
    build_program(c.context, c.device, "__kernel void broken( {", "-cl-std=CL1.2", "test device", "");
    ADD_FAILURE() << "a broken source built";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("build log:"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace q8
