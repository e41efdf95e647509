// Every dataset reader on tiny fixtures made here, corrupt files included; preprocessing.
#include <gtest/gtest.h>

#include <hdf5.h>
#include <stb/stb_image_write.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "datasets/batch_stream.h"
#include "datasets/image_decoder.h"
#include "datasets/model_inputs.h"
#include "datasets/preprocess.h"
#include "datasets/sample_source.h"
#include "engine/io/atomic_write.h"
#include "engine/io/npy.h"
#include "engine/onnx/tensor_proto.h"

namespace q8 {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / ("q8_readers_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

// A w×h RGB gradient.
std::vector<uint8_t> gradient(int w, int h, int c) {
  std::vector<uint8_t> p(size_t(w * h * c));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) p[size_t((y * w + x) * c + k)] = uint8_t((x * 20 + y * 7 + k * 50) % 256);
  return p;
}

TEST(ImageDecoder, PngBmpJpegPgmPpm) {
  TempDir dir("images");
  const auto rgb = gradient(5, 4, 3), gray = gradient(5, 4, 1);
  ASSERT_TRUE(stbi_write_png((dir.path / "a.png").c_str(), 5, 4, 3, rgb.data(), 15));
  ASSERT_TRUE(stbi_write_bmp((dir.path / "b.bmp").c_str(), 5, 4, 3, rgb.data()));
  ASSERT_TRUE(stbi_write_jpg((dir.path / "c.jpg").c_str(), 5, 4, 3, rgb.data(), 100));
  std::string pgm = "P5\n5 4\n255\n" + std::string(gray.begin(), gray.end());
  write_file_atomically((dir.path / "d.pgm").string(), pgm);
  std::string ppm = "P6\n5 4\n255\n" + std::string(rgb.begin(), rgb.end());
  write_file_atomically((dir.path / "e.ppm").string(), ppm);
  for (const char* name : {"a.png", "b.bmp", "e.ppm"}) {
    const Image img = decode_image((dir.path / name).string());
    EXPECT_EQ(img.width, 5);
    EXPECT_EQ(img.height, 4);
    EXPECT_EQ(img.channels, 3);
    EXPECT_EQ(img.pixels, rgb) << name;  // lossless formats decode exactly
  }
  const Image jpg = decode_image((dir.path / "c.jpg").string());
  EXPECT_EQ(jpg.width, 5);
  const Image pgm_img = decode_image((dir.path / "d.pgm").string());
  EXPECT_EQ(pgm_img.channels, 1);
  EXPECT_EQ(pgm_img.pixels, gray);
  // Corrupt: a PNG cut in half, a text file named .png.
  const std::string png = read_file((dir.path / "a.png").string());
  write_file_atomically((dir.path / "cut.png").string(), png.substr(0, png.size() / 2));
  write_file_atomically((dir.path / "text.png").string(), "hello");
  EXPECT_THROW(decode_image((dir.path / "cut.png").string()), DecodeError);
  EXPECT_THROW(decode_image((dir.path / "text.png").string()), DecodeError);
}

TEST(Sources, ImageFolderLabelsFromClassFolders) {
  TempDir dir("folder");
  const auto rgb = gradient(6, 6, 3);
  for (const char* cls : {"cat", "dog"}) {
    fs::create_directories(dir.path / cls);
    for (int i = 0; i < 2; ++i)
      stbi_write_png((dir.path / cls / (std::to_string(i) + ".png")).c_str(), 6, 6, 3, rgb.data(), 18);
  }
  auto src = open_source(dir.path.string(), {});
  ASSERT_EQ(src->size(), 4u);
  EXPECT_EQ(src->label(0), 0);
  EXPECT_EQ(src->label(3), 1);
  EXPECT_NE(src->describe().find("2 class folders"), std::string::npos);
}

TEST(Sources, FlatFolderWithLabelsCsv) {
  TempDir dir("csv");
  const auto g = gradient(4, 4, 1);
  for (const char* n : {"x.pgm", "y.pgm"})
    write_file_atomically((dir.path / n).string(), "P5\n4 4\n255\n" + std::string(g.begin(), g.end()));
  write_file_atomically((dir.path / "labels.csv").string(), "file,label\nx.pgm,3\ny.pgm,7\n");
  auto src = open_source(dir.path.string(), {});
  ASSERT_EQ(src->size(), 2u);
  EXPECT_EQ(src->label(0), 3);
  EXPECT_EQ(src->label(1), 7);
}

TEST(Sources, NpyAndPbSamplesAndBatches) {
  TempDir dir("tensors");
  Tensor batch(DType::Float32, {3, 2, 4});
  for (int64_t i = 0; i < batch.numel(); ++i) batch.data<float>()[i] = float(i);
  write_npy((dir.path / "a.npy").string(), batch);
  onnx::TensorProto proto;
  tensor_to_proto(Tensor::from_vector<float>({2, 4}, std::vector<float>(8, 9.0f)), proto);
  write_file_atomically((dir.path / "b.pb").string(), proto.SerializeAsString());
  SourceOptions options;
  options.sample_rank = 2;  // one sample is [2, 4]
  auto src = open_source(dir.path.string(), options);
  ASSERT_EQ(src->size(), 4u);  // 3 from the batch file, 1 from the .pb
  EXPECT_EQ(src->load(1).tensor.data<float>()[0], 8.0f);
  EXPECT_EQ(src->load(3).tensor.data<float>()[0], 9.0f);
  EXPECT_EQ(src->origin(2), (dir.path / "a.npy").string() + "[2]");
  // A truncated batch file: the samples whose bytes are missing fail to decode.
  const std::string bytes = read_file((dir.path / "a.npy").string());
  write_file_atomically((dir.path / "a.npy").string(), bytes.substr(0, bytes.size() - 10));
  auto cut = open_source(dir.path.string(), options);
  EXPECT_THROW(cut->load(2), DecodeError);
}

void write_gz(const fs::path& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), unsigned(bytes.size()));
  gzclose(f);
}

TEST(Sources, IdxImagesAndLabelsGzipped) {
  TempDir dir("idx");
  std::string images = std::string("\0\0\x08\x03", 4) + std::string("\0\0\0\x02\0\0\0\x03\0\0\0\x02", 12) + std::string(12, '\x05');
  std::string labels = std::string("\0\0\x08\x01\0\0\0\x02", 8) + std::string("\x04\x09", 2);
  write_gz(dir.path / "t-images-idx3-ubyte.gz", images);
  write_gz(dir.path / "t-labels-idx1-ubyte.gz", labels);
  auto src = open_source((dir.path / "t-images-idx3-ubyte.gz").string(), {});
  ASSERT_EQ(src->size(), 2u);
  EXPECT_EQ(src->label(1), 9);
  const RawSample s = src->load(0);
  EXPECT_EQ(s.image.height, 3);
  EXPECT_EQ(s.image.width, 2);
  // The directory form finds the same pair.
  EXPECT_EQ(open_source(dir.path.string(), {})->size(), 2u);
  // Truncated data and gzip.
  write_gz(dir.path / "t-images-idx3-ubyte.gz", images.substr(0, images.size() - 3));
  EXPECT_THROW(open_source((dir.path / "t-images-idx3-ubyte.gz").string(), {}), Error);
  std::string gz = read_file((dir.path / "t-labels-idx1-ubyte.gz").string());
  write_file_atomically((dir.path / "x-images-idx3-ubyte.gz").string(), gz.substr(0, gz.size() / 2));
  EXPECT_THROW(open_source((dir.path / "x-images-idx3-ubyte.gz").string(), {}), Error);
}

TEST(Sources, Hdf5SamplesAndLabels) {
  TempDir dir("h5");
  const fs::path path = dir.path / "d.h5";
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[3] = {5, 2, 3};
  std::vector<float> data(30);
  for (size_t i = 0; i < 30; ++i) data[i] = float(i);
  hid_t space = H5Screate_simple(3, dims, nullptr);
  hid_t d = H5Dcreate2(f, "images", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
  H5Dclose(d), H5Sclose(space);
  std::vector<int64_t> labels{0, 1, 2, 3, 4};
  hsize_t n = 5;
  space = H5Screate_simple(1, &n, nullptr);
  d = H5Dcreate2(f, "y", H5T_NATIVE_INT64, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, labels.data());
  H5Dclose(d), H5Sclose(space), H5Fclose(f);
  SourceOptions options;
  options.h5_dataset = "images", options.h5_labels = "y";
  auto src = open_source(path.string(), options);
  ASSERT_EQ(src->size(), 5u);
  EXPECT_EQ(src->label(4), 4);
  const RawSample s = src->load(2);
  EXPECT_EQ(s.tensor.dims(), (Dims{2, 3}));
  EXPECT_EQ(s.tensor.data<float>()[0], 12.0f);
  options.h5_dataset = "missing";
  EXPECT_THROW(open_source(path.string(), options), Error);
  write_file_atomically((dir.path / "bad.h5").string(), "not hdf5");
  EXPECT_THROW(open_source((dir.path / "bad.h5").string(), {}), Error);
}

TEST(Sources, DirectoryErrors) {
  TempDir dir("errors");
  EXPECT_THROW(open_source((dir.path / "absent").string(), {}), Error);
  EXPECT_THROW(open_source(dir.path.string(), {}), Error);  // empty
  write_file_atomically((dir.path / "notes.txt").string(), "x");
  try {
    open_source(dir.path.string(), {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no files of a known type"), std::string::npos) << e.what();
  }
}

TEST(Preprocess, LayoutScaleMeanStdAndResize) {
  Image img;
  img.height = 2, img.width = 2, img.channels = 3;
  img.pixels = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120};
  RawSample s;
  s.kind = RawSample::Kind::Image;
  s.image = img;
  Preprocessing pre;
  pre.scale = 1.0, pre.mean = {10, 20, 30}, pre.std = {2, 2, 2};
  const Tensor nchw = to_model_sample(s, {"x", DType::Float32, {3, 2, 2}}, pre, "t");
  EXPECT_EQ(nchw.data<float>()[0], 0.0f);    // (10 − 10) / 2
  EXPECT_EQ(nchw.data<float>()[4], 0.0f);    // channel 1 at (0,0): (20 − 20) / 2
  EXPECT_EQ(nchw.data<float>()[1], 15.0f);   // channel 0 at (0,1): (40 − 10) / 2
  pre.color = "bgr";
  const Tensor bgr = to_model_sample(s, {"x", DType::Float32, {2, 2, 3}}, pre, "t");  // NHWC
  EXPECT_EQ(bgr.data<float>()[0], (30.0f - 10.0f) / 2.0f);  // B first
  // Resize keeps a constant image constant; a wrong-shaped tensor cannot be fixed.
  Image flat;
  flat.height = 7, flat.width = 9, flat.channels = 1, flat.pixels.assign(63, 77);
  const Image r = resize_bilinear(flat, 4, 5);
  EXPECT_TRUE(std::all_of(r.pixels.begin(), r.pixels.end(), [](uint8_t v) { return v == 77; }));
  RawSample t;
  t.tensor = Tensor(DType::Float32, {3, 4, 4});
  EXPECT_THROW(to_model_sample(t, {"x", DType::Float32, {3, 2, 2}}, pre, "t"), Error);
}

// --sequence-length: a dynamic sequence axis takes it; token samples are cut or padded with zeros
// (a padded attention mask masks the pads); without it, the first sample's length rules and
// another length is an error that names the flag.
TEST(Preprocess, SequenceLengthCutsOrPadsTokenSamples) {
  ValueInfo ids{"input_ids", DType::Int64, std::vector<Dim>{Dim{-1, "batch"}, Dim{-1, "sequence"}}};
  Preprocessing pre;
  EXPECT_THROW(input_spec(ids, pre), Error);
  pre.sequence_length = 4;
  const InputSpec spec = input_spec(ids, pre);
  EXPECT_EQ(spec.sample_dims, (Dims{4}));
  RawSample shorter, longer;
  shorter.tensor = Tensor(DType::Int64, {2});
  shorter.tensor.data<int64_t>()[0] = 101, shorter.tensor.data<int64_t>()[1] = 7;
  longer.tensor = Tensor(DType::Int64, {6});
  for (int64_t i = 0; i < 6; ++i) longer.tensor.data<int64_t>()[i] = 10 + i;
  const Tensor padded = to_model_sample(shorter, spec, pre, "s");
  EXPECT_EQ(std::vector<int64_t>(padded.data<int64_t>(), padded.data<int64_t>() + 4), (std::vector<int64_t>{101, 7, 0, 0}));
  const Tensor cut = to_model_sample(longer, spec, pre, "l");
  EXPECT_EQ(std::vector<int64_t>(cut.data<int64_t>(), cut.data<int64_t>() + 4), (std::vector<int64_t>{10, 11, 12, 13}));
  // [N, S, D] embeddings: whole rows of D are kept or padded.
  ValueInfo emb{"embeddings", DType::Float32, std::vector<Dim>{Dim{-1, "batch"}, Dim{-1, "sequence"}, Dim{3, ""}}};
  const InputSpec espec = input_spec(emb, pre);
  EXPECT_EQ(espec.sample_dims, (Dims{4, 3}));
  RawSample rows;
  rows.tensor = Tensor(DType::Float32, {1, 3});
  rows.tensor.data<float>()[2] = 5.0f;
  const Tensor e = to_model_sample(rows, espec, pre, "e");
  EXPECT_EQ(e.dims(), (Dims{4, 3}));
  EXPECT_EQ(e.data<float>()[2], 5.0f);
  EXPECT_EQ(e.data<float>()[3], 0.0f);
  // Without the flag, a sample of another length is named with the flag that fixes it.
  Preprocessing plain;
  const Dims first{2};
  const InputSpec fixed = input_spec(ids, plain, &first);
  try {
    to_model_sample(longer, fixed, plain, "l.npy");
    ADD_FAILURE() << "a sample of length 6 fit an input of length 2";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("--sequence-length"), std::string::npos) << err.what();
  }
  // The JSON form reads back.
  Preprocessing back;
  back.merge_json_text(pre.to_json(), "p.json");
  EXPECT_EQ(back.sequence_length, 4);
  EXPECT_THROW(back.merge_json_text(R"({"sequence_length": 0})", "p.json"), Error);
}

TEST(BatchStream, SkipsCorruptSamplesOrStopsWhenStrict) {
  TempDir dir("stream");
  const auto g = gradient(4, 4, 1);
  for (int i = 0; i < 5; ++i)
    write_file_atomically((dir.path / (std::to_string(i) + ".pgm")).string(), "P5\n4 4\n255\n" + std::string(g.begin(), g.end()));
  write_file_atomically((dir.path / "2.pgm").string(), "P5\n4 4\n255\nxx");  // truncated
  const InputSpec spec{"x", DType::Float32, {1, 4, 4}};
  std::shared_ptr<SampleSource> src = open_source(dir.path.string(), {});
  BatchStreamOptions options;
  options.batch_size = 2;
  BatchStream stream({{spec, src}}, Preprocessing{}, options);
  int64_t seen = 0;
  while (auto b = stream.next()) seen += b->count;
  EXPECT_EQ(seen, 4);
  ASSERT_EQ(stream.skipped().size(), 1u);
  EXPECT_NE(stream.skipped()[0].find("2.pgm"), std::string::npos);
  options.strict = true;
  BatchStream strict({{spec, src}}, Preprocessing{}, options);
  EXPECT_THROW({ while (strict.next()) {} }, Error);
}

// Batch axes (docs/datasets.md): a recurrent state [2, batch, 4] beside x [batch, 3] batches on
// axis 1, found by its dim's name or given; a scalar (a sample rate) has none, one value for every
// batch; the state's fixed 2 is no batch size.
TEST(BatchStream, StatesBatchOnTheirOwnAxisAndScalarsServeEveryBatch) {
  TempDir dir("axes");
  Graph g;
  g.inputs = {{"x", DType::Float32, std::vector<Dim>{{-1, "batch"}, {3, ""}}},
              {"state", DType::Float32, std::vector<Dim>{{2, ""}, {-1, "batch"}, {4, ""}}},
              {"sr", DType::Int64, std::vector<Dim>{}}};
  EXPECT_EQ(batch_axis_of(g, g.inputs[0], {}), 0);
  EXPECT_EQ(batch_axis_of(g, g.inputs[1], {}), 1);
  EXPECT_EQ(batch_axis_of(g, g.inputs[2], {}), -1);
  EXPECT_FALSE(fixed_batch_size(g).has_value());
  Graph unnamed = g;  // the state's dims unnamed: axis 0 (and a fixed batch of 2) unless told
  unnamed.inputs[1].shape = std::vector<Dim>{{2, ""}, {-1, ""}, {4, ""}};
  EXPECT_EQ(batch_axis_of(unnamed, unnamed.inputs[1], {}), 0);
  EXPECT_EQ(fixed_batch_size(unnamed).value_or(0), 2);
  Preprocessing told;
  told.batch_axes["state"] = 1;
  EXPECT_EQ(batch_axis_of(unnamed, unnamed.inputs[1], told), 1);
  EXPECT_FALSE(fixed_batch_size(unnamed, told).has_value());

  // Five samples; the files as the model takes them: x [5, 3], state [2, 5, 4], sr one value.
  Tensor x(DType::Float32, {5, 3}), state(DType::Float32, {2, 5, 4});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i);
  for (int64_t i = 0; i < state.numel(); ++i) state.data<float>()[i] = float(100 + i);
  write_npy((dir.path / "x.npy").string(), x);
  write_npy((dir.path / "state.npy").string(), state);
  write_npy((dir.path / "sr.npy").string(), Tensor::scalar<int64_t>(16000));
  BatchStreamOptions options;
  options.batch_size = 5;
  BatchStream stream(open_model_inputs(g, dir.path.string(), {}, {}), Preprocessing{}, options);
  const auto b = stream.next();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->count, 5);
  const Tensor& s = b->inputs.at("state");
  ASSERT_EQ(s.dims(), (Dims{2, 5, 4}));
  for (int64_t i = 0; i < s.numel(); ++i) EXPECT_EQ(s.data<float>()[i], state.data<float>()[i]) << i;
  EXPECT_EQ(b->inputs.at("sr").dims(), Dims{});
  EXPECT_EQ(b->inputs.at("sr").data<int64_t>()[0], 16000);
  options.batch_size = 2;  // a batch of two: samples 0 and 1 of the state, still on axis 1
  BatchStream pairs(open_model_inputs(g, dir.path.string(), {}, {}), Preprocessing{}, options);
  const Tensor first = pairs.next()->inputs.at("state");
  ASSERT_EQ(first.dims(), (Dims{2, 2, 4}));
  EXPECT_EQ(first.data<float>()[8], state.data<float>()[20]);  // layer 1, sample 0

  // Scalars that differ within a batch are an error naming the input; a name no input has, too.
  write_npy((dir.path / "sr.npy").string(), Tensor::from_vector<int64_t>({5}, {16000, 16000, 8000, 16000, 16000}));
  options.batch_size = 5;
  BatchStream mixed(open_model_inputs(g, dir.path.string(), {}, {}), Preprocessing{}, options);
  try {
    while (mixed.next()) {}
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input 'sr' is a scalar"), std::string::npos) << e.what();
  }
  Preprocessing wrong;
  wrong.batch_axes["hidden"] = 1;
  EXPECT_THROW(open_model_inputs(g, dir.path.string(), wrong, {}), Error);
}

// The shards of a distributed run: contiguous parts of the order left after shuffle, limit and
// skip, near-equal, together the whole of it and in its order.
TEST(BatchStream, ShardsCutTheOrderIntoContiguousParts) {
  TempDir dir("shards");
  const auto g = gradient(4, 4, 1);
  for (int i = 0; i < 11; ++i)
    write_file_atomically((dir.path / (std::to_string(100 + i) + ".pgm")).string(), "P5\n4 4\n255\n" + std::string(g.begin(), g.end()));
  const InputSpec spec{"x", DType::Float32, {1, 4, 4}};
  std::shared_ptr<SampleSource> src = open_source(dir.path.string(), {});
  auto indices = [&](BatchStreamOptions o) {
    BatchStream stream({{spec, src}}, Preprocessing{}, o);
    std::vector<size_t> out;
    while (auto b = stream.next()) out.insert(out.end(), b->indices.begin(), b->indices.end());
    return out;
  };
  BatchStreamOptions whole;
  whole.batch_size = 3, whole.shuffle = true, whole.seed = 5, whole.limit = 10, whole.skip = 1;
  const std::vector<size_t> all = indices(whole);
  ASSERT_EQ(all.size(), 9u);
  for (int shards : {1, 2, 4, 9, 12}) {
    std::vector<size_t> joined;
    for (int shard = 0; shard < shards; ++shard) {
      BatchStreamOptions o = whole;
      o.shard = shard, o.shards = shards;
      const std::vector<size_t> part = indices(o);
      EXPECT_LE(part.size(), size_t((9 + shards - 1) / shards));
      EXPECT_GE(part.size(), size_t(9 / shards));
      joined.insert(joined.end(), part.begin(), part.end());
    }
    EXPECT_EQ(joined, all) << shards << " shards";
  }
}

}  // namespace
}  // namespace q8
