// Atomic file writes: a file is whole or absent, never partial.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace q8 {

// Calls write(stream) on a temporary file beside path, then renames it over path.
// On any failure the temporary file is removed and an Error names path and the cause.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);
void write_file_atomically(const std::string& path, const std::string& contents);

// Reads a whole file; an Error names the path if it is missing or unreadable.
std::string read_file(const std::string& path);

}  // namespace q8
