#include "tools/q8/mpi_world.h"

// The C API only (Open MPI and MPICH would otherwise pull in their removed C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <vector>

#include "calib/observer_codec.h"
#include "engine/ir/error.h"

namespace q8::cli {

namespace {

// Launchers' environment: Open MPI's mpirun, PMIx (Open MPI 4+, Slurm), and PMI (Slurm, MPICH).
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(std::string("MPI: ") + what + ": " + std::string(text, size_t(length)));
}

// Observers as bytes: per tensor its name, statistics, and histogram (width and counts).
class Writer {
 public:
  template <typename T>
  void put(const T& v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof v);
  }
  void put(const std::string& s) {
    put(uint64_t(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  std::vector<char> bytes;
};

class Reader {
 public:
  Reader(const char* p, size_t n) : p_(p), end_(p + n) {}
  template <typename T>
  T get() {
    T v;
    check(size_t(end_ - p_) >= sizeof v, "MPI: a rank's observers arrived truncated");
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
    return v;
  }
  std::string get_string() {
    const auto n = get<uint64_t>();
    check(uint64_t(end_ - p_) >= n, "MPI: a rank's observers arrived truncated");
    std::string s(p_, size_t(n));
    p_ += n;
    return s;
  }
  bool done() const { return p_ == end_; }

 private:
  const char* p_;
  const char* end_;
};

std::vector<char> serialize(const Calibrator& calibrator) {
  Writer w;
  const auto& observers = calibrator.observers();
  w.put(uint64_t(observers.size()));
  for (const auto& [name, obs] : observers) {
    const ObserverParts parts = observer_parts(obs);
    const TensorStats& s = parts.stats;
    w.put(name);
    w.put(s.elements), w.put(s.zeros), w.put(s.nan), w.put(s.pos_inf), w.put(s.neg_inf);
    w.put(s.min), w.put(s.max), w.put(s.max_abs);
    w.put(uint8_t(parts.has_width)), w.put(int32_t(parts.exponent)), w.put(uint64_t(parts.counts.size()));
    for (uint64_t c : parts.counts) w.put(c);
  }
  // SmoothQuant's per-channel maxima: a maximum merges exactly, so they travel too.
  const auto& channels = calibrator.channel_amax();
  w.put(uint64_t(channels.size()));
  for (const auto& [name, m] : channels) {
    w.put(name);
    w.put(uint64_t(m.size()));
    for (float v : m) w.put(v);
  }
  return w.bytes;
}

struct RankObservers {
  std::map<std::string, TensorObserver> observers;
  std::map<std::string, std::vector<float>> channel_amax;
};

RankObservers deserialize(const char* p, size_t n, bool skip_zeros) {
  Reader r(p, n);
  RankObservers out;
  for (auto count = r.get<uint64_t>(); count > 0; --count) {
    const std::string name = r.get_string();
    ObserverParts parts;
    TensorStats& s = parts.stats;
    s.elements = r.get<uint64_t>(), s.zeros = r.get<uint64_t>(), s.nan = r.get<uint64_t>();
    s.pos_inf = r.get<uint64_t>(), s.neg_inf = r.get<uint64_t>();
    s.min = r.get<double>(), s.max = r.get<double>(), s.max_abs = r.get<double>();
    parts.has_width = r.get<uint8_t>() != 0;
    parts.exponent = r.get<int32_t>();
    const auto bins = r.get<uint64_t>();
    check(bins <= n / sizeof(uint64_t), "MPI: a rank's observers arrived truncated");
    parts.counts.resize(size_t(bins));
    for (uint64_t& c : parts.counts) c = r.get<uint64_t>();
    out.observers.emplace(name, observer_from_parts(std::move(parts), skip_zeros, "MPI: a rank's tensor '" + name + "'"));
  }
  for (auto count = r.get<uint64_t>(); count > 0; --count) {
    const std::string name = r.get_string();
    const auto channels = r.get<uint64_t>();
    check(channels <= n / sizeof(float), "MPI: a rank's observers arrived truncated");
    std::vector<float>& m = out.channel_amax[name];
    m.resize(size_t(channels));
    for (float& v : m) v = r.get<float>();
  }
  check(r.done(), "MPI: a rank's observers arrived with trailing bytes");
  return out;
}

}  // namespace

MpiWorld& MpiWorld::join() {
  static MpiWorld world = [] {
    MpiWorld w;
    if (!launched_by_mpi()) return w;
    int provided = 0;
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    // Errors come back as codes (and become q8 errors), instead of MPI's default abort.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &w.rank_), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &w.size_), "MPI_Comm_size");
    w.joined_ = true;
    return w;
  }();
  return world;
}

void MpiWorld::merge_to_root(Calibrator& calibrator) const {
  if (size_ == 1) return;
  const std::vector<char> mine = serialize(calibrator);
  // Sizes first; a rank's bytes may pass 2^31, so they go in pieces.
  const auto size = uint64_t(mine.size());
  std::vector<uint64_t> sizes(static_cast<size_t>(size_));
  check_mpi(MPI_Gather(&size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Gather");
  constexpr uint64_t kPiece = uint64_t(1) << 30;
  if (rank_ != 0) {
    for (uint64_t at = 0; at < size; at += kPiece)
      check_mpi(MPI_Send(mine.data() + at, int(std::min(kPiece, size - at)), MPI_BYTE, 0, 0, MPI_COMM_WORLD), "MPI_Send");
    return;
  }
  for (int from = 1; from < size_; ++from) {
    std::vector<char> bytes(size_t(sizes[size_t(from)]));
    for (uint64_t at = 0; at < bytes.size(); at += kPiece)
      check_mpi(MPI_Recv(bytes.data() + at, int(std::min<uint64_t>(kPiece, bytes.size() - at)), MPI_BYTE, from, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE),
                "MPI_Recv");
    try {
      const RankObservers rank = deserialize(bytes.data(), bytes.size(), calibrator.options().skip_zeros);
      calibrator.merge(rank.observers);
      calibrator.merge_channels(rank.channel_amax);
    } catch (const Error& e) {
      throw e.with_context("MPI rank " + std::to_string(from));
    }
  }
}

int64_t MpiWorld::sum(int64_t value) const {
  if (size_ == 1) return value;
  int64_t total = 0;
  check_mpi(MPI_Allreduce(&value, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return total;
}

bool MpiWorld::any(bool value) const {
  if (size_ == 1) return value;
  int mine = value, result = 0;
  check_mpi(MPI_Allreduce(&mine, &result, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD), "MPI_Allreduce");
  return result != 0;
}

void MpiWorld::finish() {
  if (joined_) MPI_Finalize();
  joined_ = false;
}

void MpiWorld::abort(int code) const {
  if (joined_) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace q8::cli
