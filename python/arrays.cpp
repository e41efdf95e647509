#include "python/arrays.h"

#include <Python.h>

namespace q8::python {

namespace {

// q8's element types and numpy's, by numpy's one-character kind and item size.
DType dtype_of(const py::dtype& d) {
  switch (d.kind()) {
    case 'f': return d.itemsize() == 4 ? DType::Float32 : d.itemsize() == 2 ? DType::Float16 : DType::Undefined;
    case 'i': return d.itemsize() == 1 ? DType::Int8 : d.itemsize() == 4 ? DType::Int32 : d.itemsize() == 8 ? DType::Int64 : DType::Undefined;
    case 'u': return d.itemsize() == 1 ? DType::Uint8 : DType::Undefined;
    case 'b': return DType::Bool;
    default: return DType::Undefined;
  }
}

py::dtype numpy_dtype(DType t) {
  switch (t) {
    case DType::Float32: return py::dtype("float32");
    case DType::Float16: return py::dtype("float16");
    case DType::Int8: return py::dtype("int8");
    case DType::Uint8: return py::dtype("uint8");
    case DType::Int32: return py::dtype("int32");
    case DType::Int64: return py::dtype("int64");
    case DType::Bool: return py::dtype("bool");
    default: throw Error("a tensor of type " + std::string(dtype_name(t)) + " has no numpy twin");
  }
}

// Keeps a Python object alive from C++ for as long as a tensor borrows its bytes; the reference
// is dropped under the GIL, from whichever thread frees the last tensor.
std::shared_ptr<void> keep_alive(const py::object& owner) {
  PyObject* o = owner.ptr();
  Py_INCREF(o);
  return std::shared_ptr<void>(o, [](void* p) {
    const PyGILState_STATE state = PyGILState_Ensure();
    Py_DECREF(static_cast<PyObject*>(p));
    PyGILState_Release(state);
  });
}

}  // namespace

Tensor to_tensor(const py::handle& value, const std::string& what) {
  if (!py::isinstance<py::array>(value) && !py::isinstance<py::buffer>(value))
    throw Error(what + ": a numpy array expected, got " + std::string(py::str(py::type::of(value).attr("__name__"))));
  py::array a = py::array::ensure(value, py::array::c_style);
  if (!a) throw Error(what + ": cannot be read as a C-contiguous numpy array");
  const DType t = dtype_of(a.dtype());
  if (t == DType::Undefined)
    throw Error(what + ": numpy dtype " + std::string(py::str(a.dtype())) +
                " is not a type q8 takes (float32, float16, int8, uint8, int32, int64, bool)");
  Dims dims(a.shape(), a.shape() + a.ndim());
  auto* data = static_cast<std::byte*>(const_cast<void*>(a.data()));
  return Tensor::borrowed(t, std::move(dims), data, keep_alive(a));
}

py::array to_array(Tensor tensor) {
  check(!tensor.on_device(), "a tensor in a device's memory cannot become a numpy array");
  const DType t = tensor.dtype();
  std::vector<py::ssize_t> shape(tensor.dims().begin(), tensor.dims().end());
  auto* held = new Tensor(std::move(tensor));
  py::capsule owner(held, [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(numpy_dtype(t), shape, held->raw(), owner);
}

TensorMap to_tensor_map(const py::handle& mapping, const std::string& what) {
  if (!py::isinstance<py::dict>(mapping))
    throw Error(what + ": a dict of input name to numpy array expected, got " +
                std::string(py::str(py::type::of(mapping).attr("__name__"))));
  TensorMap out;
  for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(mapping)) {
    if (!py::isinstance<py::str>(key)) throw Error(what + ": input names must be strings");
    const std::string name = key.cast<std::string>();
    out[name] = to_tensor(value, what + ", input '" + name + "'");
  }
  return out;
}

py::dict to_dict(TensorMap tensors) {
  py::dict out;
  for (auto& [name, t] : tensors) out[py::str(name)] = to_array(std::move(t));
  return out;
}

}  // namespace q8::python
