#include "datasets/hdf5_source.h"

#include <hdf5.h>

#include "engine/ir/error.h"

namespace q8 {

namespace {

DType dtype_of_h5(hid_t type, const std::string& what) {
  const H5T_class_t cls = H5Tget_class(type);
  const size_t size = H5Tget_size(type);
  if (cls == H5T_FLOAT && size == 4) return DType::Float32;
  if (cls == H5T_INTEGER) {
    const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
    if (size == 1) return is_signed ? DType::Int8 : DType::Uint8;
    if (size == 4 && is_signed) return DType::Int32;
    if (size == 8 && is_signed) return DType::Int64;
  }
  throw Error(what + ": element type is not float32, int8, uint8, int32 or int64");
}

hid_t native_type(DType t) {
  switch (t) {
    case DType::Float32: return H5T_NATIVE_FLOAT;
    case DType::Int8: return H5T_NATIVE_INT8;
    case DType::Uint8: return H5T_NATIVE_UINT8;
    case DType::Int32: return H5T_NATIVE_INT32;
    default: return H5T_NATIVE_INT64;
  }
}

// Error unless dataset d, unfiltered, stores the bytes its shape claims: a damaged file's
// header can claim billions of elements that HDF5 would allocate for before it finds the data
// missing. Filtered (compressed) datasets store fewer bytes by design and are not checked.
void check_stored(hid_t d, hsize_t elements, size_t element_bytes, const std::string& what) {
  const hid_t plist = H5Dget_create_plist(d);
  const int filters = plist >= 0 ? H5Pget_nfilters(plist) : 0;
  if (plist >= 0) H5Pclose(plist);
  if (filters != 0) return;
  const hsize_t stored = H5Dget_storage_size(d);
  check(stored / element_bytes >= elements, what + ": its shape needs " + std::to_string(elements) + " elements but the file stores " +
                                                std::to_string(stored) + " bytes (a damaged file?)");
}

}  // namespace

Hdf5Source::Hdf5Source(const std::string& path, const std::string& dataset, const std::string& labels)
    : path_(path), dataset_(dataset) {
  try {
    open(labels);
  } catch (...) {
    close();  // no destructor runs for an object whose constructor threw
    throw;
  }
}

void Hdf5Source::open(const std::string& labels) {
  const std::string& path = path_;
  const std::string& dataset = dataset_;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become q8 errors, not HDF5's stderr dumps
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  check(file_ >= 0, path + ": not a readable HDF5 file");
  data_ = H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT);
  check(data_ >= 0, path + ": has no dataset '" + dataset + "' (name it with --h5-dataset)");
  const hid_t type = H5Dget_type(data_);
  try {
    dtype_ = dtype_of_h5(type, path + ":" + dataset);
  } catch (...) {
    H5Tclose(type);
    throw;
  }
  H5Tclose(type);
  const hid_t space = H5Dget_space(data_);
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> dims(size_t(std::max(rank, 0)));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  H5Sclose(space);
  check(rank >= 1, path + ":" + dataset + ": a dataset of samples needs rank >= 1");
  count_ = int64_t(dims[0]);
  for (int d = 1; d < rank; ++d) sample_dims_.push_back(int64_t(dims[size_t(d)]));
  hsize_t elements = 1;
  for (hsize_t d : dims) elements *= d;
  check_stored(data_, elements, dtype_size(dtype_), path + ":" + dataset);

  std::string label_name = labels;
  if (label_name.empty() && H5Lexists(file_, "labels", H5P_DEFAULT) > 0) label_name = "labels";
  if (!label_name.empty()) {
    const hid_t ld = H5Dopen2(file_, label_name.c_str(), H5P_DEFAULT);
    check(ld >= 0, path + ": has no dataset '" + label_name + "' (--h5-labels)");
    const hid_t ls = H5Dget_space(ld);
    const hssize_t n = H5Sget_simple_extent_npoints(ls);
    H5Sclose(ls);
    herr_t r = -1;
    if (n == count_) {
      const hid_t lt = H5Dget_type(ld);
      const size_t label_bytes = H5Tget_size(lt);
      H5Tclose(lt);
      try {
        check_stored(ld, hsize_t(n), std::max<size_t>(label_bytes, 1), path + ":" + label_name);
      } catch (...) {
        H5Dclose(ld);
        throw;
      }
      labels_.resize(size_t(n));
      r = H5Dread(ld, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, labels_.data());
    }
    H5Dclose(ld);
    check(n == count_, path + ":" + label_name + ": " + std::to_string(n) + " labels for " + std::to_string(count_) + " samples");
    check(r >= 0, path + ":" + label_name + ": cannot read labels");
  }
}

Hdf5Source::~Hdf5Source() { close(); }

void Hdf5Source::close() {
  if (data_ >= 0) H5Dclose(data_);
  if (file_ >= 0) H5Fclose(file_);
  data_ = file_ = -1;
}

RawSample Hdf5Source::load(size_t i) const {
  RawSample s;
  s.tensor = Tensor(dtype_, sample_dims_);
  const hid_t space = H5Dget_space(data_);
  std::vector<hsize_t> start(sample_dims_.size() + 1, 0), count(sample_dims_.size() + 1, 1);
  start[0] = i;
  for (size_t d = 0; d < sample_dims_.size(); ++d) count[d + 1] = hsize_t(sample_dims_[d]);
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
  const hid_t mem = H5Screate_simple(int(count.size()), count.data(), nullptr);
  const herr_t r = H5Dread(data_, native_type(dtype_), mem, space, H5P_DEFAULT, s.tensor.raw());
  H5Sclose(mem);
  H5Sclose(space);
  if (r < 0) throw DecodeError(origin(i) + ": cannot read (corrupt HDF5 data?)");
  return s;
}

std::optional<int64_t> Hdf5Source::label(size_t i) const {
  if (labels_.empty()) return std::nullopt;
  return labels_[i];
}

std::string Hdf5Source::describe() const {
  return std::to_string(count_) + " samples of " + dims_to_string(sample_dims_) + " " + std::string(dtype_name(dtype_)) +
         " in " + path_ + ":" + dataset_ + (labels_.empty() ? "" : ", labelled");
}

}  // namespace q8
