// Calibration across processes (`mpirun -n N q8 calibrate ...`, Open MPI): each rank observes its
// share of the sample order, and rank 0 gathers every rank's observers and merges them, which is
// exact (integer counts, exact minima and maxima: docs/calibration.md), so the outputs are the
// bytes one process would write.
#pragma once

#include <cstdint>
#include <string>

#include "calib/calibrator.h"

namespace q8::cli {

class MpiWorld {
 public:
  // Joins the MPI job when an MPI launcher started this process (its environment says so); a
  // world of one, without MPI, otherwise.
  static MpiWorld& join();
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool joined() const { return joined_; }

  // Every rank's observers merged into rank 0's calibrator, in rank order (Calibrator::merge,
  // which checks the bins and the zero rule); the other ranks keep their own.
  void merge_to_root(Calibrator& calibrator) const;
  int64_t sum(int64_t value) const;  // over ranks, on every rank
  bool any(bool value) const;        // over ranks, on every rank

  // Leaves the job (after a rank's last call).
  void finish();
  // Stops every rank of the job with this exit code; called after the error was printed.
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1;
  bool joined_ = false;
};

}  // namespace q8::cli
