// Turning NAME=FILE and NAME=SHAPE arguments into input tensors.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/exec/executor.h"

namespace q8::cli {

inline constexpr uint64_t kDefaultSeed = 1;

// Splits "NAME=VALUE" at its last '='; an ArgumentError naming the flag and `form` when it is not of that form.
std::pair<std::string, std::string> split_assignment(const std::string& arg, const char* flag, const char* form = "NAME=VALUE");
// Every NAME=VALUE of a repeatable flag, in order: a name given twice is an ArgumentError naming
// both values (a later one never silently wins).
std::vector<std::pair<std::string, std::string>> parse_assignments(const std::vector<std::string>& args, const char* flag,
                                                                   const char* form = "NAME=VALUE");
// Parses "1x3x224x224".
Dims parse_dims(const std::string& text, const std::string& what);
// Reads a tensor from .npy or .pb by extension.
Tensor read_tensor_file(const std::string& path);
// Every graph input's type and shape from --shape dims (dynamic dims default to 1), for inputs
// `given` (by --input) leaves out. Unknown names, and a --shape of an input given, are errors.
std::map<std::string, TensorDesc> input_descs(const Graph& graph, const std::vector<std::string>& shapes,
                                              const std::set<std::string>& given = {});
// Every graph input: from --input files, or deterministic random tensors of --shape dims
// (symbolic dims default to 1). Unknown names are errors.
TensorMap gather_inputs(const Graph& graph, const std::vector<std::string>& files, const std::vector<std::string>& shapes,
                        uint64_t seed);
// A name usable as a file name ('/' and other separators become '_').
std::string file_safe_name(const std::string& name);

}  // namespace q8::cli
