#include "tools/q8/validators.h"

#include <unistd.h>

namespace q8::cli {

void check_output_file(const std::string& flag, const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& inputs) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  const std::string what = flag.empty() ? path : flag + " " + path;
  const fs::path dir = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  check_argument(!fs::is_directory(path), what + ": is a directory");
  check_argument(fs::path(path).filename().string().size() < 250, what + ": the file name is too long");
  check(fs::is_directory(dir) && ::access(dir.c_str(), W_OK) == 0, what + ": cannot write there (directory missing or read-only)");
  const auto canonical = [](const std::string& p) { return fs::weakly_canonical(fs::absolute(p)).string(); };
  for (const auto& [input, input_path] : inputs)
    check_argument(input_path.empty() || canonical(input_path) != canonical(path),
                   what + " is " + input + ": the output would overwrite an input");
}

}  // namespace q8::cli
