#include "tools/q8/dataset_options.h"

#include <cmath>
#include <sstream>

#include "engine/io/numbers.h"
#include "engine/io/sha256.h"
#include "tools/q8/validators.h"

#include "engine/cpu/threads.h"

namespace q8::cli {

namespace {
std::vector<double> parse_list(const std::string& text, const char* flag) {
  std::vector<double> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(parse_double(item, std::string(flag) + " '" + text + "'"));
  check_argument(!out.empty(), std::string(flag) + " is empty");
  return out;
}
}  // namespace

void DatasetOptions::resolve() {
  if (threads > 0) set_compute_threads(threads);
  else use_threads_beside_a_reader();
  if (!preprocess_json.empty()) pre.merge_json(preprocess_json);
  if (!size.empty()) {
    const size_t x = size.find('x');
    check_argument(x != std::string::npos && x > 0 && x + 1 < size.size(), "--size '" + size + "' is not HxW");
    pre.height = parse_int(size.substr(0, x), "--size '" + size + "'"), pre.width = parse_int(size.substr(x + 1), "--size '" + size + "'");
    check_argument(pre.height > 0 && pre.width > 0 && pre.height <= 65536 && pre.width <= 65536,
          "--size '" + size + "': height and width must be in 1..65536");
  }
  if (sequence_length) pre.sequence_length = sequence_length;
  for (const std::string& item : batch_axis) {
    const size_t eq = item.rfind('=');
    check_argument(eq != std::string::npos && eq > 0 && eq + 1 < item.size(), "--batch-axis '" + item + "' is not NAME=AXIS");
    const int64_t axis = parse_int(item.substr(eq + 1), "--batch-axis '" + item + "'");
    check_argument(axis >= 0 && axis < 64, "--batch-axis '" + item + "': the axis must be in 0..63");
    pre.batch_axes[item.substr(0, eq)] = axis;
  }
  if (!mean.empty()) pre.mean = parse_list(mean, "--mean");
  if (!std.empty()) pre.std = parse_list(std, "--std");
  for (double s : pre.std) check_argument(s != 0, "--std " + (std.empty() ? std::string("(from --preprocess)") : std) + ": a std of 0 divides by zero");
  check_argument(std::isfinite(pre.scale) && pre.scale != 0, "--scale " + std::to_string(pre.scale) + ": must be finite and not 0");
}

std::optional<int64_t> DatasetOptions::asked_batch_size() const {
  if (batch_size_option && batch_size_option->count() > 0) return stream.batch_size;
  return std::nullopt;
}

void add_dataset_options(CLI::App* cmd, DatasetOptions& o, bool auto_batch) {
  cmd->add_option("--data", o.data, "dataset directory or file (images, .npy, .pb, IDX, HDF5; docs/datasets.md)");
  auto* pre = "Preprocessing";
  cmd->add_option("--resize", o.pre.resize, "exact, or shorter (shorter side, then centre crop)")->capture_default_str()->group(pre)
      ->check(CLI::IsMember({"exact", "shorter"}));
  cmd->add_option("--size", o.size, "HxW of the model input (default: from the model)")->group(pre);
  cmd->add_option("--sequence-length", o.sequence_length,
                  "S of token inputs [N, S] and [N, S, D] whose sequence axis is dynamic; samples cut or padded with zeros to it")
      ->group(pre)->check(CLI::Range(int64_t(1), kMaxSequenceLength));
  cmd->add_option("--batch-axis", o.batch_axis,
                  "NAME=AXIS: input NAME batches its samples along AXIS, not 0 (a recurrent state [layers, N, hidden]); repeatable")
      ->group(pre);
  cmd->add_option("--color", o.pre.color, "rgb, bgr or gray (default: from the channel count)")->group(pre)
      ->check(CLI::IsMember({"rgb", "bgr", "gray"}));
  cmd->add_option("--layout", o.pre.layout, "nchw or nhwc (default: from the model's input shape)")->group(pre)
      ->check(CLI::IsMember({"nchw", "nhwc"}));
  cmd->add_option("--scale", o.pre.scale, "multiplies 8-bit pixels")->capture_default_str()->group(pre)->check(CLI::Range(-1e30, 1e30));
  cmd->add_option("--mean", o.mean, "per-channel mean, after scale (a or a,b,c)")->group(pre);
  cmd->add_option("--std", o.std, "per-channel std, after scale (a or a,b,c)")->group(pre);
  cmd->add_option("--preprocess", o.preprocess_json, "JSON file with the same keys (flags given here win)")->group(pre);
  cmd->add_option("--h5-dataset", o.source.h5_dataset, "HDF5 dataset of samples")->capture_default_str()->group(pre);
  cmd->add_option("--h5-labels", o.source.h5_labels, "HDF5 dataset of labels (default: 'labels' if present)")->group(pre);
  auto* stream = "Streaming";
  auto* batch = cmd->add_option("--batch-size", o.stream.batch_size,
                                auto_batch ? "samples per batch (default: as many as fit 1 MiB of input, 1 to 32)" : "samples per batch");
  batch->group(stream)->check(CLI::Range(int64_t(1), int64_t(1) << 20));
  if (!auto_batch) batch->capture_default_str();
  o.batch_size_option = batch;
  cmd->add_option("--limit", o.stream.limit, "use the first N samples of the order (0: all)")->capture_default_str()->group(stream)
      ->check(at_least(0));
  cmd->add_flag("--shuffle", o.stream.shuffle, "shuffle the order (with --seed)")->group(stream);
  cmd->add_option("--seed", o.stream.seed, "shuffle seed")->capture_default_str()->group(stream)->check(at_least(0));
  cmd->add_flag("--strict", o.stream.strict, "stop at the first corrupt sample instead of skipping it")->group(stream);
  cmd->add_option("--threads", o.threads, "compute threads (0: one per core)")->capture_default_str()->group(stream)
      ->check(CLI::Range(0, kMaxThreads));
}


}  // namespace q8::cli
