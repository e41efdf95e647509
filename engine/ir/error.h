// Errors that carry context (file, node, op, tensor, value, the rule broken) up to the CLI.
#pragma once

#include <stdexcept>
#include <string>

namespace q8 {

// The one exception type of q8's libraries. Each layer that catches it may add where it was
// ("model.onnx: Conv 'conv1' (node 3): ...") and rethrow; the CLI prints what() on one line.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}

  // A copy whose message is "<context>: <message>".
  Error with_context(const std::string& context) const { return Error(context + ": " + what()); }
};

// Throws Error(message) unless condition holds.
inline void check(bool condition, const std::string& message) {
  if (!condition) throw Error(message);
}

// An argument the caller chose that cannot work (an option naming nothing in the model, outputs
// that collide, a malformed value): the CLI exits 2 for it, as for its own parse errors, and 1
// for errors met while working.
class ArgumentError : public Error {
 public:
  explicit ArgumentError(const std::string& what) : Error(what) {}
};

inline void check_argument(bool condition, const std::string& message) {
  if (!condition) throw ArgumentError(message);
}

}  // namespace q8
