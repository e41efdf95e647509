// ONNX Runtime as a benchmark peer of `q8 bench --peer ort`: its C API, loaded when asked for
// (dlopen of libonnxruntime.so.1, or the path --ort-library gives), never linked or required.
// A session runs a model file on the CPU execution provider with the given intra-op threads and
// graph optimization level, sequentially (one inter-op thread), on q8's input tensors.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/ir/tensor_map.h"

namespace q8::cli {

class OnnxRuntimePeer {
 public:
  // Loads `library` (a path, or a name the dynamic loader searches for). Throws an Error naming it
  // when it cannot be loaded or is not ONNX Runtime (no OrtGetApiBase, or no C API version 1).
  explicit OnnxRuntimePeer(const std::string& library);
  ~OnnxRuntimePeer();
  OnnxRuntimePeer(const OnnxRuntimePeer&) = delete;
  OnnxRuntimePeer& operator=(const OnnxRuntimePeer&) = delete;

  const std::string& library() const { return library_; }
  const std::string& version() const { return version_; }  // "1.22.0"

  class Session {
   public:
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    // One run on the inputs given at open; the float32 outputs are copied into q8 tensors only if
    // asked (timed runs release them at once). Throws an Error with ONNX Runtime's message.
    TensorMap run(bool keep_outputs);

   private:
    friend class OnnxRuntimePeer;
    Session() = default;
    const OnnxRuntimePeer* peer_ = nullptr;
    void* session_ = nullptr;
    void* memory_info_ = nullptr;
    std::vector<std::string> input_names_, output_names_;
    std::vector<void*> input_values_;  // OrtValues over the caller's tensors (which must outlive the session)
  };

  // A session on `model` (an ONNX file) fed `inputs` by name: every input ONNX Runtime asks for must
  // be there. graph_optimization is q8's level name: disable, extended or all.
  std::unique_ptr<Session> open(const std::string& model, const TensorMap& inputs, int threads,
                                const std::string& graph_optimization) const;

 private:
  void check(void* status, const std::string& what) const;  // throws on a non-null OrtStatus
  template <typename Fn> Fn call(size_t slot) const;

  std::string library_, version_;
  void* handle_ = nullptr;
  const void* const* api_ = nullptr;  // OrtApi: a table of function pointers
  void* env_ = nullptr;
};

}  // namespace q8::cli
