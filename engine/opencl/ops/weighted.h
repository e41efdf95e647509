// What the OpenCL QConv, QConvTranspose and QGemm share (every variant of each is a class of its
// own, chosen at create by the op's select_* function, engine/opencl/select.h): the epilogue's
// constants uploaded at create (bias, multipliers, clamp, residual scale) and its mode for a run;
// the weight layouts the kernels read; the window's geometry table; and qgemm_mma's launch.
#pragma once

#include "engine/opencl/ops/int8_node.h"
#include "kernels/abi.h"
#include "engine/opencl/select.h"
#include "engine/ops/window.h"

namespace q8 {

class ClWeighted : public ClInt8Node {
 public:
  ClWeighted(std::shared_ptr<OpenClDevice> device, const NodeView& view);

 protected:
  // abi.h's epilogue mode of a run with or without a residual.
  int mode(const Tensor* residual) const {
    if (activation_mode_ >= 0) return activation_mode_;
    if (float_out_) return Q8_FLOAT_OUT;
    if (!residual) return Q8_INT8_OUT;
    if (y_ratio_ == 0.0f) return Q8_INT8_OUT_RESIDUAL;
    return residual_first_ ? Q8_INT8_OUT_ROUNDED_RESIDUAL_FIRST : Q8_INT8_OUT_ROUNDED_RESIDUAL;
  }
  // The residual argument: the residual, else any buffer (never read unless the mode says so).
  const Tensor& residual_or_bias(const Tensor* residual) const { return residual ? *residual : bias_; }

  // qgemm_mma.cl's `function` with the tile select_mma_tile picks for [rows, k] · [k, cols]: one
  // work-group per tile of y, or, where mma_split_k splits K, Z per tile (`function`_split: each
  // stores its int32 sums, the last to finish adds them and runs the epilogue). The arguments,
  // the kernel's own, are set on the kernel that runs.
  template <typename... Args>
  void launch_mma(const std::string& function, int rows, int k, int cols, const Args&... args) {
    const MmaTile tile = select_mma_tile(rows, k, cols, device_->mma_tuning(), device_->caps());
    const size_t groups_n = size_t((cols + tile.cols - 1) / tile.cols), groups_m = size_t((rows + tile.rows - 1) / tile.rows);
    check_row_groups(groups_m, rows, tile);
    const int splits = mma_split_k(rows, k, cols, tile, device_->caps());
    const size_t threads = size_t(tile.threads());
    if (splits == 1) {
      const cl_kernel kernel = device_->mma_kernel(tile, function);
      set_args(kernel, args...);
      device_->launch(kernel, {groups_n * threads, groups_m}, {threads, 1});
      return;
    }
    // Back to the device's pool on return: the queue is in order, so it is not handed out again
    // before the kernel has read it.
    const Tensor partial = device_->allocate(DType::Int32, {splits, rows, cols});
    const cl_kernel split = device_->mma_kernel(tile, function + "_split");
    set_args(split, args..., partial, split_counters(int64_t(groups_n * groups_m)));
    device_->launch(split, {groups_n * threads, groups_m, size_t(splits)}, {threads, 1, 1});
  }

  Tensor bias_, scale_;
  bool float_out_ = false;        // float b and S (float output, or an activation in the epilogue)
  int activation_mode_ = -1;      // an activation's epilogue mode (abi.h), or -1
  int lo_ = -128, hi_ = 127;
  float r_scale_ = 0.0f;          // R, or s_y of an activation with int8 output
  float y_ratio_ = 0.0f;          // A, the op's own rounded output in the sum (sum_scale), or 0
  bool residual_first_ = false;   // the residual is the Add's first input

 private:
  // Split-K's tile counters, zeros between launches (each launch's last work-groups set them
  // back): made and zeroed once, again only for a launch with more tiles.
  const Tensor& split_counters(int64_t tiles);
  Tensor split_counters_;
  void check_row_groups(size_t groups, int rows, const MmaTile& tile) const;
};

// Why the OpenCL QConv, QConvTranspose or QGemm does not take node's epilogue, "" if it does: an
// activation runs in QConv's and QGemm's kernels, on a device that divides correctly rounded.
std::string epilogue_refusal(const Node& node, const DeviceCaps& caps);

// The geometry table of a window (abi.h's Q8_GEO_* slots), for windows of 1 to 3 spatial axes.
Tensor window_geometry(const ResolvedWindow& r, const Dims& in_spatial);

// int8 w [M, …] as [M, K] with K = the rest of its dims rounded up to a multiple of `multiple`,
// zeros after each row's values.
Tensor padded_rows(const Tensor& w, int64_t multiple);
// Conv weights [M, C, taps…] as [M, taps, C]: the columns of a channels-last im2col.
Tensor taps_major(const Tensor& w);
// A 2-D int8 tensor transposed.
Tensor transposed(const Tensor& w);

}  // namespace q8
