// Atomic file writes: a file is whole or absent, never partial.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace q8 {

// Calls write(stream) on a temporary file beside path, then renames it over path.
// On any failure the temporary file is removed and an Error names path and the cause.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);
void write_file_atomically(const std::string& path, const std::string& contents);

// Several files that appear together or not at all: each is written to a temporary beside its
// path, and commit() renames them all once every one is written; a rename that fails undoes
// those before it. Destroyed before commit(), it removes the temporaries: no new file appears
// and every old one is unchanged. A path that is a directory is an Error when staged.
class StagedFiles {
 public:
  StagedFiles() = default;
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  ~StagedFiles();

  // A temporary path to write path's contents to (for writers that take a path). Two stagings
  // of the same path are an Error.
  std::string stage(const std::string& path);
  // Writes contents to path's temporary now.
  void write(const std::string& path, const std::string& contents);
  void write(const std::string& path, const std::function<void(std::ostream&)>& writer);
  void commit();

 private:
  std::vector<std::pair<std::string, std::string>> files_;  // (path, temporary)
  bool committed_ = false;
};

// Reads a whole regular file (not a FIFO, device or directory) of at most max_bytes; an Error
// names the path and what is wrong.
std::string read_file(const std::string& path, size_t max_bytes = size_t(1) << 34);

}  // namespace q8
