// q8 --version: q8's version, the versions of the libraries it runs with (and the instruction
// sets it picked), and the OpenCL devices found.
#pragma once

namespace q8::cli {

void print_version();

}  // namespace q8::cli
