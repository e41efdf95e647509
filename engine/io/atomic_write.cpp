#include "engine/io/atomic_write.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/ir/error.h"

namespace q8 {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
      write(out);
      out.flush();
      if (!out) throw Error(path + ": write failed (" + std::strerror(errno) + ")");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
      throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  write_file_atomically(path, [&](std::ostream& out) { out.write(contents.data(), std::streamsize(contents.size())); });
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read (" + std::strerror(errno) + ")");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace q8
