#include "engine/io/npy.h"

#include "engine/io/numbers.h"

#include <cstring>
#include <fstream>
#include <regex>

#include "engine/io/atomic_write.h"

namespace q8 {

namespace {

const char kMagic[] = "\x93NUMPY";

DType dtype_from_descr(const std::string& descr, const std::string& what) {
  if (descr == "<f4") return DType::Float32;
  if (descr == "<f2") return DType::Float16;
  if (descr == "|i1" || descr == "<i1") return DType::Int8;
  if (descr == "|u1" || descr == "<u1") return DType::Uint8;
  if (descr == "<i4") return DType::Int32;
  if (descr == "<i8") return DType::Int64;
  if (descr == "|b1") return DType::Bool;
  throw Error(what + ": unsupported .npy dtype '" + descr +
              "' (supported: float32, float16, int8, uint8, int32, int64, bool)");
}

std::string descr_of(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "<f4";
    case DType::Float16: return "<f2";
    case DType::Int8: return "|i1";
    case DType::Uint8: return "|u1";
    case DType::Int32: return "<i4";
    case DType::Int64: return "<i8";
    case DType::Bool: return "|b1";
    case DType::Undefined: break;
  }
  throw Error("cannot write a tensor of undefined type as .npy");
}

// "(2, 3)", "(4,)", "()": each element a whole integer, commas between them (one may end a
// tuple); a negative or absurd dimension is an Error, never skipped or read without its sign.
Dims parse_shape_tuple(const std::string& tuple, const std::string& what) {
  Dims dims;
  const std::string where = what + ": .npy header shape (" + tuple + ")";
  size_t start = 0;
  while (start < tuple.size()) {
    const size_t comma = tuple.find(',', start);
    std::string part = tuple.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    const bool last = comma == std::string::npos;
    if (part.empty() && last && !dims.empty()) break;  // the comma that ends "(4,)"
    check(!part.empty() || (last && dims.empty()), where + ": an empty element");
    if (part.empty()) break;  // "()"
    const int64_t d = parse_int(part, where);
    check(d >= 0, where + ": dimension " + std::to_string(d) + " at axis " + std::to_string(dims.size()) + " is negative");
    check(d < (int64_t(1) << 40), where + ": dimension " + std::to_string(d) + " at axis " + std::to_string(dims.size()) + " is out of range");
    dims.push_back(d);
    if (last) break;
    start = comma + 1;
  }
  return dims;
}
}  // namespace

NpyHeader parse_npy_header(const std::string& bytes, const std::string& what) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0)
    throw Error(what + ": not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = uint8_t(bytes[8]) | size_t(uint8_t(bytes[9])) << 8;
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw Error(what + ": truncated .npy header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= size_t(uint8_t(bytes[8 + size_t(i)])) << (8 * i);
    header_start = 12;
  } else {
    throw Error(what + ": unsupported .npy version " + std::to_string(major));
  }
  if (bytes.size() < header_start + header_len) throw Error(what + ": truncated .npy header");
  const std::string header = bytes.substr(header_start, header_len);

  // Compiled once: a dataset of .npy files reads one header per sample.
  static const std::regex descr_re("'descr'\\s*:\\s*'([^']*)'"), fortran_re("'fortran_order'\\s*:\\s*(True|False)"),
      shape_re("'shape'\\s*:\\s*\\(([^)]*)\\)");
  std::smatch m;
  if (!std::regex_search(header, m, descr_re))
    throw Error(what + ": .npy header has no descr");
  const DType dtype = dtype_from_descr(m[1], what);
  if (std::regex_search(header, m, fortran_re) && m[1] == "True")
    throw Error(what + ": Fortran-order .npy arrays are not supported; save with C order");
  if (!std::regex_search(header, m, shape_re))
    throw Error(what + ": .npy header has no shape");
  const Dims dims = parse_shape_tuple(m[1], what);
  try {
    checked_bytes(dtype, dims);  // the element count fits 64 bits and the memory limit
  } catch (const Error& e) {
    throw e.with_context(what);
  }
  return {dtype, dims, header_start + header_len};
}

NpyHeader read_npy_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read");
  std::string head(65536 + 12, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  return parse_npy_header(head, path);
}

Tensor parse_npy(const std::string& bytes, const std::string& what) {
  const NpyHeader h = parse_npy_header(bytes, what);
  const uint64_t need = uint64_t(numel(h.dims)) * dtype_size(h.dtype);
  if (bytes.size() - h.data_offset < need)
    throw Error(what + ": truncated .npy data (" + std::to_string(bytes.size() - h.data_offset) + " of " +
                std::to_string(need) + " bytes for shape " + dims_to_string(h.dims) + ")");
  Tensor t(h.dtype, h.dims);
  copy_bytes(t.raw(), bytes.data() + h.data_offset, t.nbytes());
  return t;
}

Tensor read_npy(const std::string& path) { return parse_npy(read_file(path), path); }

std::string serialize_npy(const Tensor& tensor) {
  std::string dims_text;
  for (size_t i = 0; i < tensor.rank(); ++i) dims_text += (i ? ", " : "") + std::to_string(tensor.dim(i));
  if (tensor.rank() == 1) dims_text += ",";
  std::string header = "{'descr': '" + descr_of(tensor.dtype()) + "', 'fortran_order': False, 'shape': (" +
                       dims_text + "), }";
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += char(header.size() & 0xFF);
  out += char(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(tensor.raw()), tensor.nbytes());
  return out;
}

void write_npy(const std::string& path, const Tensor& tensor) {
  write_file_atomically(path, serialize_npy(tensor));
}

}  // namespace q8
