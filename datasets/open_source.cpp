// Recognizing a dataset path (docs/datasets.md): one file, an ImageFolder tree, a flat folder
// with an optional labels.csv, tensor files, IDX files or HDF5 files.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "datasets/file_list_source.h"
#include "datasets/hdf5_source.h"
#include "datasets/idx_source.h"
#include "datasets/image_decoder.h"
#include "engine/io/numbers.h"

namespace q8 {

namespace fs = std::filesystem;

namespace {

enum class FileKind { Image, Tensor, Idx, Hdf5, Other };

FileKind kind_of(const fs::path& p) {
  const std::string ext = p.extension().string();
  if (is_image_file(p.string())) return FileKind::Image;
  if (ext == ".npy" || ext == ".pb") return FileKind::Tensor;
  if (ext == ".h5" || ext == ".hdf5") return FileKind::Hdf5;
  if (is_idx_file(p.string())) return FileKind::Idx;
  return FileKind::Other;
}

const char* kind_name(FileKind k) {
  switch (k) {
    case FileKind::Image: return "image";
    case FileKind::Tensor: return ".npy/.pb";
    case FileKind::Idx: return "IDX";
    case FileKind::Hdf5: return "HDF5";
    case FileKind::Other: break;
  }
  return "other";
}

// labels.csv: "file,label" lines (a header line is allowed); labels are integers or class names
// (names are numbered in sorted order).
std::map<std::string, int64_t> read_labels_csv(const fs::path& path) {
  std::ifstream in(path);
  check(bool(in), path.string() + ": cannot read");
  std::vector<std::pair<std::string, std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const size_t comma = line.rfind(',');
    check(comma != std::string::npos, path.string() + ": line '" + line + "' is not file,label");
    rows.emplace_back(line.substr(0, comma), line.substr(comma + 1));
  }
  if (!rows.empty() && rows[0].first == "file") rows.erase(rows.begin());
  bool numeric = true;
  for (const auto& [f, l] : rows) numeric = numeric && !l.empty() && l.find_first_not_of("0123456789") == std::string::npos;
  std::set<std::string> names;
  for (const auto& [f, l] : rows) names.insert(l);
  std::map<std::string, int64_t> out;
  for (const auto& [f, l] : rows)
    out[f] = numeric ? parse_int(l, path.string() + ": label of '" + f + "'") : int64_t(std::distance(names.begin(), names.find(l)));
  return out;
}

std::unique_ptr<SampleSource> open_directory(const fs::path& dir, const SourceOptions& options, size_t sample_rank) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && kind_of(e.path()) != FileKind::Other) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  check(!files.empty(), dir.string() + ": no files of a known type (images .png/.jpg/.bmp/.pgm/.ppm, .npy, .pb, IDX, .h5)");
  std::set<FileKind> kinds;
  for (const auto& f : files) kinds.insert(kind_of(f));
  if (kinds.size() > 1) {
    std::string found;
    for (FileKind k : kinds) found += (found.empty() ? "" : ", ") + std::string(kind_name(k));
    throw Error(dir.string() + ": mixes file types (" + found + "); point --data at one kind");
  }
  const FileKind kind = *kinds.begin();
  if (kind == FileKind::Idx) {
    std::vector<fs::path> images;
    for (const auto& f : files)
      if (f.filename().string().find("labels") == std::string::npos) images.push_back(f);
    check(images.size() == 1, dir.string() + ": holds " + std::to_string(images.size()) +
                                  " IDX image files; point --data at one of them");
    return open_source(images[0].string(), options);
  }
  if (kind == FileKind::Hdf5) {
    check(files.size() == 1, dir.string() + ": holds several HDF5 files; point --data at one of them");
    return open_source(files[0].string(), options);
  }
  // Images or tensor files: ImageFolder classes when every file sits in a direct subfolder.
  std::vector<int64_t> labels;
  std::string layout;
  const bool folders = std::all_of(files.begin(), files.end(), [&](const fs::path& f) { return f.parent_path().parent_path() == dir; });
  const fs::path csv = dir / "labels.csv";
  if (folders) {
    std::set<std::string> classes;
    for (const auto& f : files) classes.insert(f.parent_path().filename().string());
    for (const auto& f : files) labels.push_back(int64_t(std::distance(classes.begin(), classes.find(f.parent_path().filename().string()))));
    layout = " in " + std::to_string(classes.size()) + " class folders";
  } else if (fs::exists(csv)) {
    const auto table = read_labels_csv(csv);
    for (const auto& f : files) {
      auto it = table.find(fs::relative(f, dir).string());
      labels.push_back(it == table.end() ? -1 : it->second);
    }
    layout = ", labels from labels.csv";
  }
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(f.string());
  const std::string what = std::to_string(files.size()) + (kind == FileKind::Image ? " image files" : " tensor files") + layout;
  return std::make_unique<FileListSource>(std::move(names), std::move(labels), sample_rank, what, options.batch_axis);
}

}  // namespace

std::unique_ptr<SampleSource> open_source(const std::string& path, const SourceOptions& options) {
  const fs::path p(path);
  std::error_code ec;
  check(fs::exists(p, ec), path + ": no such file or directory");
  if (fs::is_directory(p)) {
    check(!fs::is_empty(p, ec), path + ": directory is empty");
    return open_directory(p, options, options.sample_rank);
  }
  switch (kind_of(p)) {
    case FileKind::Idx: {
      // The labels file beside it: "…images-idx3-ubyte…" → "…labels-idx1-ubyte…".
      std::string labels = p.filename().string();
      const size_t at = labels.find("images-idx3");
      std::string labels_path;
      if (at != std::string::npos) {
        labels.replace(at, 11, "labels-idx1");
        if (fs::exists(p.parent_path() / labels)) labels_path = (p.parent_path() / labels).string();
      }
      return std::make_unique<IdxSource>(path, labels_path);
    }
    case FileKind::Hdf5: return std::make_unique<Hdf5Source>(path, options.h5_dataset, options.h5_labels);
    case FileKind::Image:
    case FileKind::Tensor:
      return std::make_unique<FileListSource>(std::vector<std::string>{path}, std::vector<int64_t>{}, options.sample_rank,
                                              "1 file", options.batch_axis);
    case FileKind::Other: break;
  }
  throw Error(path + ": not a dataset file of a known type (images, .npy, .pb, IDX, .h5)");
}

}  // namespace q8
