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

std::string read_file(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) throw Error(path + ": no such file");
  if (std::filesystem::is_directory(status)) throw Error(path + ": is a directory, not a file");
  // A FIFO would block and a device (/dev/zero) never ends: only regular files are read.
  if (!std::filesystem::is_regular_file(status)) throw Error(path + ": not a regular file (a FIFO, socket or device)");
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > max_bytes)
    throw Error(path + ": " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) + " q8 reads");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read (" + std::strerror(errno) + ")");
  if (!ec) {
    // Straight into a string of the file's size: one copy, not a growing buffer copied out.
    std::string bytes(size_t(size), '\0');
    in.read(bytes.data(), std::streamsize(size));
    if (in.bad() || size_t(in.gcount()) != bytes.size()) throw Error(path + ": read failed (" + std::strerror(errno) + ")");
    if (in.peek() == std::char_traits<char>::eof()) return bytes;
    in.clear();  // the file grew while read: the rest as it comes
    std::ostringstream rest;
    rest << in.rdbuf();
    return bytes + rest.str();
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(path + ": read failed (" + std::strerror(errno) + ")");
  return buffer.str();
}

StagedFiles::~StagedFiles() {
  if (committed_) return;
  std::error_code ignored;
  for (const auto& [path, tmp] : files_) std::filesystem::remove(tmp, ignored);
}

std::string StagedFiles::stage(const std::string& path) {
  // A directory in the way would only fail at commit, after other files appeared.
  std::error_code ec;
  check(!std::filesystem::is_directory(path, ec), path + ": is a directory, not a file");
  for (const auto& [p, tmp] : files_)
    check(std::filesystem::weakly_canonical(p) != std::filesystem::weakly_canonical(path), path + ": given for two outputs");
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(files_.size());
  files_.emplace_back(path, tmp);
  return tmp;
}

void StagedFiles::write(const std::string& path, const std::function<void(std::ostream&)>& writer) {
  const std::string tmp = stage(path);
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
  writer(out);
  out.flush();
  if (!out) throw Error(path + ": write failed (" + std::strerror(errno) + ")");
}

void StagedFiles::write(const std::string& path, const std::string& contents) {
  write(path, [&](std::ostream& out) { out.write(contents.data(), std::streamsize(contents.size())); });
}

void StagedFiles::commit() {
  // Each older file moves aside before its new one takes its place. A rename that fails puts
  // every file back as it was: the new ones placed so far are removed, the older ones return.
  std::vector<std::string> aside(files_.size());  // where an older file waits; "" if there was none
  auto undo = [&](size_t placed) {
    std::error_code ignored;
    for (size_t j = 0; j < placed; ++j) std::filesystem::remove(files_[j].first, ignored);
    for (size_t j = 0; j < aside.size(); ++j)
      if (!aside[j].empty()) std::rename(aside[j].c_str(), files_[j].first.c_str());
  };
  for (size_t i = 0; i < files_.size(); ++i) {
    const auto& [path, tmp] = files_[i];
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
      if (std::rename(path.c_str(), (tmp + ".old").c_str()) != 0) {
        const std::string cause = std::strerror(errno);
        undo(i);
        throw Error(path + ": cannot write (" + cause + ")");
      }
      aside[i] = tmp + ".old";
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      const std::string cause = std::strerror(errno);
      undo(i);
      throw Error(path + ": cannot write (" + cause + ")");
    }
  }
  committed_ = true;
  std::error_code ignored;
  for (const std::string& old : aside)
    if (!old.empty()) std::filesystem::remove(old, ignored);
}

}  // namespace q8
