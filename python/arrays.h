// numpy arrays and q8 tensors, both ways without a copy where the layout allows: a C-contiguous
// array of a q8 element type is borrowed (the tensor keeps the array alive), a tensor's bytes
// become an array that keeps the tensor alive. Anything else is converted once (a strided array
// is made contiguous) or refused with q8's one-line message (an element type q8 has not).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "engine/ir/tensor_map.h"

namespace q8::python {

namespace py = pybind11;

// `what` names the array in errors ("input 'x'").
Tensor to_tensor(const py::handle& value, const std::string& what);
py::array to_array(Tensor tensor);
// {name: array} → tensors; `what` names the mapping in errors ("batch 3").
TensorMap to_tensor_map(const py::handle& mapping, const std::string& what);
py::dict to_dict(TensorMap tensors);

}  // namespace q8::python
