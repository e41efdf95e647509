#include "calib/hdf5_histograms.h"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "calib/observer_codec.h"
#include "engine/io/atomic_write.h"
#include "engine/ir/error.h"

namespace q8 {

namespace {

void attr_string(hid_t obj, const char* name, const std::string& value) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, std::max<size_t>(1, value.size()));
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, value.empty() ? "" : value.c_str());
  H5Aclose(a), H5Sclose(space), H5Tclose(type);
}

template <typename T>
void attr_number(hid_t obj, const char* name, T value, hid_t type) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, &value);
  H5Aclose(a), H5Sclose(space);
}

std::string read_attr_string(hid_t obj, const char* name, const std::string& what) {
  const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  check(a >= 0, what + ": attribute '" + name + "' is missing");
  const hid_t type = H5Aget_type(a);
  if (H5Tis_variable_str(type) > 0) {  // written by h5py and others: a char* to read through
    char* text = nullptr;
    const hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, H5T_VARIABLE);
    H5Tset_cset(mem, H5Tget_cset(type));
    const bool ok = H5Aread(a, mem, &text) >= 0 && text != nullptr;
    std::string value = ok ? std::string(text, strnlen(text, 1u << 20)) : "";
    if (ok) H5free_memory(text);
    H5Tclose(mem), H5Tclose(type), H5Aclose(a);
    check(ok, what + ": attribute '" + name + "' cannot be read as a string");
    return value;
  }
  const size_t size = H5Tget_size(type);
  if (size > (1u << 20)) {
    H5Tclose(type), H5Aclose(a);
    throw Error(what + ": attribute '" + name + "' declares " + std::to_string(size) + " bytes; more than a q8 file holds");
  }
  std::string value(size, '\0');
  const hid_t mem = H5Tcopy(H5T_C_S1);
  H5Tset_size(mem, size);
  H5Aread(a, mem, value.data());
  H5Tclose(mem), H5Tclose(type), H5Aclose(a);
  value.resize(value.find('\0') == std::string::npos ? value.size() : value.find('\0'));
  return value;
}

template <typename T>
T read_attr_number(hid_t obj, const char* name, hid_t type, const std::string& what) {
  const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  check(a >= 0, what + ": attribute '" + name + "' is missing");
  T value{};
  H5Aread(a, type, &value);
  H5Aclose(a);
  return value;
}

}  // namespace

std::string histograms_image(const HistogramFile& file) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // Built in memory (HDF5's core driver, no backing store): HDF5 never writes to disk, so a full
  // disk or a bad path is an ordinary write error of the bytes, and HDF5 holds no broken file.
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_core(fapl, 1 << 20, 0);
  const hid_t f = H5Fcreate("q8-histograms.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  check(f >= 0, "cannot build the histogram file in memory");
  bool ok = true;
  attr_string(f, "format", "q8-histograms");
  attr_number<int64_t>(f, "format_version", 1, H5T_NATIVE_INT64);
  attr_string(f, "q8_version", file.q8_version);
  attr_string(f, "model_sha256", file.model_sha256);
  attr_string(f, "dataset", file.dataset);
  attr_number<int64_t>(f, "bins", file.bins, H5T_NATIVE_INT64);
  attr_number<int64_t>(f, "skip_zeros", file.skip_zeros, H5T_NATIVE_INT64);
  attr_number<uint64_t>(f, "samples", file.samples, H5T_NATIVE_UINT64);
  attr_string(f, "order", file.order);
  attr_string(f, "preprocess", file.preprocess);
  if (file.equalize) attr_number<int64_t>(f, "equalize", 1, H5T_NATIVE_INT64);
  // No modification times in the objects' headers: the same histograms are the same bytes,
  // whenever they are written.
  const hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_obj_track_times(gcpl, 0), H5Pset_obj_track_times(dcpl, 0);
  const hid_t tensors = H5Gcreate2(f, "tensors", H5P_DEFAULT, gcpl, H5P_DEFAULT);
  int index = 0;
  for (const auto& [name, obs] : file.observers) {
    char group_name[32];
    std::snprintf(group_name, sizeof group_name, "t%06d", index++);  // tensor names may hold '/'
    const hid_t g = H5Gcreate2(tensors, group_name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    const ObserverParts parts = observer_parts(obs);
    const TensorStats& s = parts.stats;
    attr_string(g, "name", name);
    attr_number<int64_t>(g, "has_width", parts.has_width, H5T_NATIVE_INT64);
    attr_number<int64_t>(g, "width_exponent", parts.exponent, H5T_NATIVE_INT64);
    attr_number<double>(g, "width", obs.histogram().width(), H5T_NATIVE_DOUBLE);
    attr_number<uint64_t>(g, "elements", s.elements, H5T_NATIVE_UINT64);
    attr_number<uint64_t>(g, "zeros", s.zeros, H5T_NATIVE_UINT64);
    attr_number<uint64_t>(g, "nan", s.nan, H5T_NATIVE_UINT64);
    attr_number<uint64_t>(g, "pos_inf", s.pos_inf, H5T_NATIVE_UINT64);
    attr_number<uint64_t>(g, "neg_inf", s.neg_inf, H5T_NATIVE_UINT64);
    attr_number<double>(g, "min", s.min, H5T_NATIVE_DOUBLE);
    attr_number<double>(g, "max", s.max, H5T_NATIVE_DOUBLE);
    attr_number<double>(g, "max_abs", s.max_abs, H5T_NATIVE_DOUBLE);
    const hsize_t n = hsize_t(parts.counts.size());
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t d = H5Dcreate2(g, "counts", H5T_NATIVE_UINT64, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ok = ok && d >= 0 && H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, parts.counts.data()) >= 0;
    H5Dclose(d), H5Sclose(space), H5Gclose(g);
  }
  H5Gclose(tensors), H5Pclose(gcpl), H5Pclose(dcpl);
  ok = ok && H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0;
  const ssize_t size = ok ? H5Fget_file_image(f, nullptr, 0) : -1;
  std::string image(size > 0 ? size_t(size) : 0, '\0');
  ok = ok && size > 0 && H5Fget_file_image(f, image.data(), size_t(size)) == size;
  ok = H5Fclose(f) >= 0 && ok;
  check(ok, "cannot build the histogram file in memory");
  return image;
}

void write_histograms(const std::string& path, const HistogramFile& file) { write_file_atomically(path, histograms_image(file)); }

HistogramFile read_histograms(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  check(std::filesystem::exists(path), path + ": no such file");
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  check(f >= 0, path + ": not a readable HDF5 file");
  HistogramFile file;
  try {
    check(read_attr_string(f, "format", path) == "q8-histograms", path + ": not a q8 histogram file");
    file.q8_version = read_attr_string(f, "q8_version", path);
    file.model_sha256 = read_attr_string(f, "model_sha256", path);
    file.dataset = read_attr_string(f, "dataset", path);
    file.bins = read_attr_number<int64_t>(f, "bins", H5T_NATIVE_INT64, path);
    file.skip_zeros = read_attr_number<int64_t>(f, "skip_zeros", H5T_NATIVE_INT64, path) != 0;
    file.samples = read_attr_number<uint64_t>(f, "samples", H5T_NATIVE_UINT64, path);
    if (H5Aexists(f, "order") > 0) file.order = read_attr_string(f, "order", path);
    if (H5Aexists(f, "preprocess") > 0) file.preprocess = read_attr_string(f, "preprocess", path);
    if (H5Aexists(f, "equalize") > 0) file.equalize = read_attr_number<int64_t>(f, "equalize", H5T_NATIVE_INT64, path) != 0;
    check(file.bins >= 2 && file.bins <= (int64_t(1) << 24) && (file.bins & (file.bins - 1)) == 0,
          path + ": bins " + std::to_string(file.bins) + " is not a power of two from 2 to 16777216");
    check(file.samples < (uint64_t(1) << 53), path + ": samples " + std::to_string(file.samples) + " is not a plausible count");
    const hid_t tensors = H5Gopen2(f, "tensors", H5P_DEFAULT);
    check(tensors >= 0, path + ": has no 'tensors' group");
    H5G_info_t info;
    H5Gget_info(tensors, &info);
    for (hsize_t i = 0; i < info.nlinks; ++i) {
      char group_name[64];
      H5Lget_name_by_idx(tensors, ".", H5_INDEX_NAME, H5_ITER_INC, i, group_name, sizeof group_name, H5P_DEFAULT);
      const hid_t g = H5Gopen2(tensors, group_name, H5P_DEFAULT);
      const std::string what = path + ":/tensors/" + group_name;
      const std::string name = read_attr_string(g, "name", what);
      ObserverParts parts;
      TensorStats& s = parts.stats;
      s.elements = read_attr_number<uint64_t>(g, "elements", H5T_NATIVE_UINT64, what);
      s.zeros = read_attr_number<uint64_t>(g, "zeros", H5T_NATIVE_UINT64, what);
      s.nan = read_attr_number<uint64_t>(g, "nan", H5T_NATIVE_UINT64, what);
      s.pos_inf = read_attr_number<uint64_t>(g, "pos_inf", H5T_NATIVE_UINT64, what);
      s.neg_inf = read_attr_number<uint64_t>(g, "neg_inf", H5T_NATIVE_UINT64, what);
      s.min = read_attr_number<double>(g, "min", H5T_NATIVE_DOUBLE, what);
      s.max = read_attr_number<double>(g, "max", H5T_NATIVE_DOUBLE, what);
      s.max_abs = read_attr_number<double>(g, "max_abs", H5T_NATIVE_DOUBLE, what);
      std::vector<uint64_t>& counts = parts.counts;
      counts.resize(static_cast<size_t>(file.bins));
      const hid_t d = H5Dopen2(g, "counts", H5P_DEFAULT);
      check(d >= 0, what + ": has no 'counts'");
      const hid_t space = H5Dget_space(d);
      const bool right_size = H5Sget_simple_extent_npoints(space) == file.bins;
      H5Sclose(space);
      const bool read = right_size && H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, counts.data()) >= 0;
      H5Dclose(d);
      check(read, what + ": counts are not " + std::to_string(file.bins) + " readable uint64 values");
      parts.has_width = read_attr_number<int64_t>(g, "has_width", H5T_NATIVE_INT64, what) != 0;
      parts.exponent = read_attr_number<int64_t>(g, "width_exponent", H5T_NATIVE_INT64, what);
      file.observers.emplace(name, observer_from_parts(std::move(parts), file.skip_zeros, what));
      H5Gclose(g);
    }
    H5Gclose(tensors);
  } catch (...) {
    H5Fclose(f);
    throw;
  }
  H5Fclose(f);
  return file;
}

}  // namespace q8
