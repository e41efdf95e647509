#include "engine/onnx/tensor_proto.h"

#include "engine/io/numbers.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/io/atomic_write.h"

namespace q8 {

using onnx::TensorProto;

namespace {

std::string read_external(const TensorProto& proto, const std::string& base_dir, const std::string& what) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == "location") location = entry.value();
    else if (entry.key() == "offset") offset = parse_int(entry.value(), what + ": external data offset");
    else if (entry.key() == "length") length = parse_int(entry.value(), what + ": external data length");
  }
  check(!location.empty(), what + ": external data has no location");
  check(location.find("..") == std::string::npos && location.front() != '/',
        what + ": external data location '" + location + "' leaves the model's directory");
  namespace fs = std::filesystem;
  const std::string path = (fs::path(base_dir) / location).string();
  std::error_code ec;
  check(fs::exists(path, ec), what + ": external data file " + path + " is missing");
  // A symlink may not lead out of the model's directory either; only regular files are read.
  const fs::path real = fs::weakly_canonical(path, ec), dir = fs::weakly_canonical(base_dir.empty() ? "." : base_dir, ec);
  const auto rel = real.lexically_relative(dir);
  check(!rel.empty() && *rel.begin() != "..", what + ": external data " + path + " resolves to " + real.string() +
                                                  ", outside the model's directory");
  check(fs::is_regular_file(real, ec), what + ": external data " + path + " is not a regular file");
  std::ifstream in(path, std::ios::binary);
  check(bool(in), what + ": external data file " + path + " cannot be read");
  in.seekg(0, std::ios::end);
  const int64_t size = in.tellg();
  check(offset >= 0 && offset <= size, what + ": external data offset " + std::to_string(offset) + " is outside " + path +
                                           " (" + std::to_string(size) + " bytes)");
  if (length < 0) length = size - offset;
  check(length <= size - offset, what + ": external data " + path + " is shorter than offset " + std::to_string(offset) +
                                     " + length " + std::to_string(length));
  std::string bytes(size_t(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  return bytes;
}

template <typename T, typename Field>
void copy_typed(Tensor& t, const Field& field, const std::string& what) {
  check(int64_t(field.size()) == t.numel(), what + ": holds " + std::to_string(field.size()) +
                                                " values for shape " + dims_to_string(t.dims()));
  T* out = t.data<T>();
  for (int i = 0; i < field.size(); ++i) {
    if constexpr (std::is_same_v<T, Float16>) out[i] = Float16{uint16_t(field[i])};
    else out[i] = static_cast<T>(field[i]);
  }
}

}  // namespace

Tensor tensor_from_proto(const TensorProto& proto, const std::string& base_dir) {
  const std::string what = "tensor '" + proto.name() + "'";
  const DType dtype = dtype_from_onnx(proto.data_type(), what);
  Dims dims(proto.dims().begin(), proto.dims().end());
  // The element count, checked before anything is allocated: a corrupt file may claim any shape.
  uint64_t count = 1;
  for (int64_t d : dims) {
    check(d >= 0, what + ": negative dimension");
    check(d == 0 || count <= (uint64_t(1) << 40) / uint64_t(d), what + ": shape " + dims_to_string(dims) + " is too large");
    count *= uint64_t(d);
  }
  const uint64_t need = count * dtype_size(dtype);

  const bool external = proto.data_location() == TensorProto::EXTERNAL;
  if (external || proto.has_raw_data()) {
    const std::string bytes = external ? read_external(proto, base_dir, what) : proto.raw_data();
    check(bytes.size() == need, what + ": holds " + std::to_string(bytes.size()) + " bytes, shape " + dims_to_string(dims) +
                                    " of " + std::string(dtype_name(dtype)) + " needs " + std::to_string(need));
    Tensor t(dtype, dims);
    if (!bytes.empty()) copy_bytes(t.raw(), bytes.data(), bytes.size());
    return t;
  }
  const int stored = dtype == DType::Float32 ? proto.float_data_size()
                     : dtype == DType::Int64 ? proto.int64_data_size()
                                             : proto.int32_data_size();
  check(uint64_t(stored) == count, what + ": holds " + std::to_string(stored) + " values for shape " + dims_to_string(dims));
  Tensor t(dtype, dims);
  switch (dtype) {
    case DType::Float32: copy_typed<float>(t, proto.float_data(), what); break;
    case DType::Int64: copy_typed<int64_t>(t, proto.int64_data(), what); break;
    case DType::Int32: copy_typed<int32_t>(t, proto.int32_data(), what); break;
    case DType::Int8: copy_typed<int8_t>(t, proto.int32_data(), what); break;
    case DType::Uint8: copy_typed<uint8_t>(t, proto.int32_data(), what); break;
    case DType::Bool: copy_typed<bool>(t, proto.int32_data(), what); break;
    case DType::Float16: copy_typed<Float16>(t, proto.int32_data(), what); break;
    case DType::Undefined: break;
  }
  return t;
}

void tensor_to_proto(const Tensor& tensor, TensorProto& proto) {
  proto.set_data_type(dtype_to_onnx(tensor.dtype()));
  proto.clear_dims();
  for (int64_t d : tensor.dims()) proto.add_dims(d);
  proto.set_raw_data(reinterpret_cast<const char*>(tensor.raw()), tensor.nbytes());
}

Tensor read_tensor_pb(const std::string& path, std::string* name) {
  const std::string bytes = read_file(path);
  TensorProto proto;
  if (!proto.ParseFromString(bytes)) throw Error(path + ": not an ONNX TensorProto (.pb) file");
  if (name) *name = proto.name();
  try {
    return tensor_from_proto(proto, std::filesystem::path(path).parent_path().string());
  } catch (const Error& e) {
    throw e.with_context(path);
  }
}

}  // namespace q8
