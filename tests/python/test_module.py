"""q8's Python module (docs/python.md) on the shipped model: every call, ONNX Runtime-style readers,
the same bytes as the CLI for the same settings, errors for bad input, Ctrl-C, and no leak over
1,000 runs.

Run by ctest (python.module) with PYTHONPATH at the build's python/ folder and Q8_CLI at the q8
executable; the expectations are the CLI's own files and numpy's arithmetic, not the module's.
"""
import gc
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import q8

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODEL = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
TRAIN = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
TEST = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"
CLI = os.environ.get("Q8_CLI", os.path.join(ROOT, "build", "q8"))


def images(path, count):
    """The first `count` images of an IDX file as the model takes them: [N, 1, 28, 28] float32 in [0, 1]."""
    with gzip.open(path) as f:
        raw = np.frombuffer(f.read(16 + 784 * count), np.uint8, offset=16)
    return (raw.reshape(count, 1, 28, 28) / np.float32(255)).astype(np.float32)


def cli(*args):
    subprocess.run([CLI, *map(str, args), "--quiet"], check=True)


def read(path):
    with open(path, "rb") as f:
        return f.read()


class Reader:
    """ONNX Runtime's CalibrationDataReader protocol: get_next() gives a batch, then None."""

    def __init__(self, x, batch):
        self.batches = [{"input": x[i:i + batch]} for i in range(0, len(x), batch)]
        self.calls = 0

    def get_next(self):
        self.calls += 1
        return self.batches.pop(0) if self.batches else None


@pytest.fixture(scope="module")
def model():
    return q8.load(MODEL)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("q8")


@pytest.fixture(scope="module")
def table(model):
    return q8.calibrate(model, TRAIN, method="entropy", batch_size=64, limit=512, progress=False)


def test_model_describes_its_inputs_and_outputs(model):
    assert model.path == MODEL
    assert re.fullmatch(r"[0-9a-f]{64}", model.sha256)
    assert model.inputs == [("input", "float32", ["batch", 1, 28, 28])]
    assert [o[0] for o in model.outputs] == ["logits"]


def test_fp32_run_matches_the_cli(model, work):
    x = images(TEST, 4)
    np.save(work / "x.npy", x)
    cli("run", MODEL, "--input", f"input={work / 'x.npy'}", "--output-dir", work / "run")
    expected = np.load(work / "run" / "logits.npy")
    got = model.run({"input": x})["logits"]
    assert got.dtype == np.float32 and got.shape == (4, 10)
    np.testing.assert_array_equal(got, expected)
    # A strided view is read as its values, not its memory.
    wide = np.zeros((4, 1, 28, 56), np.float32)
    wide[..., ::2] = x
    np.testing.assert_array_equal(model.run({"input": wide[..., ::2]})["logits"], expected)
    # ONNX Runtime's optimization levels, as q8 run's --graph-optimization.
    cli("run", MODEL, "--input", f"input={work / 'x.npy'}", "--output-dir", work / "run-plain", "--graph-optimization", "disable")
    plain = model.run({"input": x}, graph_optimization="disable")["logits"]
    np.testing.assert_array_equal(plain, np.load(work / "run-plain" / "logits.npy"))
    with pytest.raises(q8.ArgumentError, match="graph_optimization 'fast'"):
        model.run({"input": x}, graph_optimization="fast")


def test_outputs_are_not_copies(model):
    out = model.run({"input": images(TEST, 2)})["logits"]
    assert not out.flags["OWNDATA"] and out.base is not None  # the engine's buffer, kept alive by the array


def test_calibration_files_and_qdq_model_equal_the_clis(model, table, work):
    cli("calibrate", MODEL, "--data", TRAIN, "--method", "entropy", "--batch-size", 64, "--limit", 512,
        "--cache", work / "cli.cache", "--json", work / "cli.json", "--histograms", work / "cli.h5")
    table.save_trt_cache(work / "py.cache")
    table.save_json(work / "py.json")
    table.save_histograms(str(work / "py.h5"))
    assert read(work / "py.cache") == read(work / "cli.cache")
    assert read(work / "py.json") == read(work / "cli.json")
    assert read(work / "py.h5") == read(work / "cli.h5")
    assert table.samples == 512 and table.method == "entropy"
    assert len(table.amax) > 5 and all(v >= 0 for v in table.amax.values())

    cli("quantize", MODEL, "--calib", work / "cli.json", "-o", work / "cli.qdq.onnx", "--check-samples", 0)
    qdq = q8.quantize(model, table, per_channel=True)
    qdq.save(work / "py.qdq.onnx")
    assert read(work / "py.qdq.onnx") == read(work / "cli.qdq.onnx")
    # The CLI's own files read back: its JSON table and its TensorRT cache quantize as the CLI does.
    from_json = q8.load_table(work / "cli.json", model)
    assert from_json.amax == table.amax and from_json.method == "entropy"
    q8.quantize(model, from_json).save(work / "json.qdq.onnx")
    assert read(work / "json.qdq.onnx") == read(work / "cli.qdq.onnx")
    from_json.save_trt_cache(work / "json.cache")
    assert read(work / "json.cache") == read(work / "cli.cache")
    cli("quantize", MODEL, "--calib", work / "cli.cache", "-o", work / "cli.cache.qdq.onnx", "--check-samples", 0)
    q8.quantize(model, q8.load_table(work / "cli.cache", model)).save(work / "cache.qdq.onnx")
    assert read(work / "cache.qdq.onnx") == read(work / "cli.cache.qdq.onnx")
    with pytest.raises(q8.ArgumentError, match="holds no histograms"):
        from_json.save_histograms(work / "none.h5")
    # Other options reach the library as the CLI's flags do.
    cli("quantize", MODEL, "--calib", work / "cli.json", "-o", work / "cli.pt.onnx", "--check-samples", 0,
        "--per-tensor-weights", "--exclude", "Gemm")
    q8.quantize(model, table, per_channel=False, exclude=["Gemm"]).save(work / "py.pt.onnx")
    assert read(work / "py.pt.onnx") == read(work / "cli.pt.onnx")
    assert read(work / "py.pt.onnx") != read(work / "py.qdq.onnx")


def test_plan_from_python_runs_as_the_clis(model, table, work):
    qdq = q8.quantize(model, table)
    qdq.save(work / "plan.qdq.onnx")
    plan = q8.build(qdq, device="cpu", shapes={"input": [8, 1, 28, 28]})
    assert plan.shapes == "input=8x1x28x28" and plan.device == "cpu"
    plan.save(work / "py.q8plan")
    cli("build", work / "plan.qdq.onnx", "-o", work / "cli.q8plan", "--shape", "input=8x1x28x28")
    assert read(work / "py.q8plan") == read(work / "cli.q8plan")
    x = images(TEST, 8)
    np.save(work / "x8.npy", x)
    cli("run", work / "cli.q8plan", "--input", f"input={work / 'x8.npy'}", "--output-dir", work / "plan-run")
    expected = np.load(work / "plan-run" / "logits.npy")
    np.testing.assert_array_equal(plan.run({"input": x})["logits"], expected)
    np.testing.assert_array_equal(q8.load_plan(work / "py.q8plan").run({"input": x})["logits"], expected)
    # The INT8 plan agrees with FP32 on most of these images.
    fp32 = model.run({"input": x})["logits"]
    assert (fp32.argmax(1) == expected.argmax(1)).mean() >= 0.75


def test_a_plan_for_opencl_gives_the_cpus_bytes(model, table):
    qdq = q8.quantize(model, table)
    try:
        plan = q8.build(qdq, device="opencl", shapes={"input": [4, 1, 28, 28]})
    except q8.Error as e:
        if "no OpenCL" in str(e) or "does not exist" in str(e):
            pytest.skip(f"no OpenCL device: {e}")
        raise
    assert plan.device == "opencl" and "opencl" in plan.placement
    x = images(TEST, 4)
    np.testing.assert_array_equal(plan.run({"input": x})["logits"], q8.build(qdq).run({"input": x})["logits"])


def test_compare_reports_what_the_cli_writes(model, table, work):
    qdq = q8.quantize(model, table)
    qdq.save(work / "cmp.qdq.onnx")
    cli("compare", MODEL, work / "cmp.qdq.onnx", "--data", TEST, "--limit", 300, "--json", work / "cmp.json")
    import json
    expected = json.load(open(work / "cmp.json"))
    got = q8.compare(model, q8.load(work / "cmp.qdq.onnx"), TEST, limit=300, progress=False)
    assert got == expected
    assert got["samples"] == 300 and got["kind"] == "classifier" and got["top1_agreement"] > 0.9


def test_the_default_method_auto_writes_the_clis_table(model, work):
    # Both choose by the model's outputs on the 8 samples after the 512 observed (docs/calibration.md).
    cli("calibrate", MODEL, "--data", TRAIN, "--limit", 512, "--json", work / "auto.cli.json")
    t = q8.calibrate(model, TRAIN, limit=512, progress=False)
    t.save_json(work / "auto.py.json")
    assert q8.DEFAULT_METHOD == "auto"
    assert read(work / "auto.py.json") == read(work / "auto.cli.json")
    settings = json.loads(t.to_json())["settings"]
    assert settings["auto"]["as_given"]["samples"] == q8.DEFAULT_AUTO_SAMPLES and t.method == settings["auto"]["chosen"]
    # Batches a reader hands over are read once: nothing to measure the methods on, so the
    # default method, said so in a warning.
    from_reader = q8.calibrate(model, Reader(images(TRAIN, 64), 32), progress=False)
    assert from_reader.method == "mse" and "auto" not in json.loads(from_reader.to_json())["settings"]


def test_a_reader_and_an_iterable_calibrate_as_the_same_samples_from_a_file(model, work):
    x = images(TRAIN, 200)
    np.save(work / "train200.npy", x)
    from_file = q8.calibrate(model, work / "train200.npy", method="max", progress=False)
    reader = Reader(x, 32)
    from_reader = q8.calibrate(model, reader, method="max", progress=False)
    assert reader.calls == 8  # 7 batches, then None
    from_list = q8.calibrate(model, [{"input": x[i:i + 50]} for i in range(0, 200, 50)], method="max", progress=False)
    from_generator = q8.calibrate(model, ({"input": x[i:i + 1]} for i in range(200)), method="max", progress=False)
    for t in (from_reader, from_list, from_generator):
        assert t.samples == 200
        assert t.amax == from_file.amax
    assert '"a data reader (Reader, get_next())"' in from_reader.to_json()
    # The same readers serve compare.
    qdq = q8.quantize(model, from_file)
    report = q8.compare(model, qdq, Reader(x, 40), progress=False)
    assert report["samples"] == 200 and report["labelled"] == 0


def test_progress_reaches_a_callable(model):
    seen = []
    q8.calibrate(model, TRAIN, method="max", limit=256, batch_size=32, progress=lambda d, t, what: seen.append((d, t, what)))
    assert seen and seen[-1] == (256, 256, "calibrating")
    assert [d for d, _, _ in seen] == sorted(d for d, _, _ in seen)


def test_the_gil_is_released_while_q8_computes(model):
    x = images(TEST, 1000)
    start = time.perf_counter()
    model.run({"input": x})
    one_run = time.perf_counter() - start
    done = threading.Event()

    def work():
        for _ in range(3):
            model.run({"input": x})
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    longest, last = 0.0, time.perf_counter()
    while not done.is_set():  # pure Python, which needs the GIL: held by a run, it would stall for a run
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    assert longest < one_run / 2, f"this thread stalled {longest * 1000:.0f} ms while runs of {one_run * 1000:.0f} ms went on"


def test_ctrl_c_stops_between_batches(model):
    x = images(TRAIN, 4)

    class Interrupting:
        calls = 0

        def get_next(self):
            self.calls += 1
            if self.calls == 3:
                signal.raise_signal(signal.SIGINT)
            return {"input": x} if self.calls < 10000 else None

    reader = Interrupting()
    with pytest.raises(KeyboardInterrupt):
        q8.calibrate(model, reader, method="max", streams=1, progress=False)
    assert reader.calls < 10000


@pytest.mark.parametrize("data, message", [
    ("/nonexistent/images", "/nonexistent/images"),
    ([{"input": np.zeros((2, 1, 28, 28))}], "float64"),
    ([{"image": np.zeros((2, 1, 28, 28), np.float32)}], "'image' is not an input of the model"),
    ([{"input": np.zeros((2, 1, 27, 28), np.float32)}], "2x1x27x28"),
    ([{"input": np.zeros((2, 1, 28, 28), np.complex64)}], "complex64"),
    ([{"input": [1, 2, 3]}], "a numpy array expected"),
    ([[np.zeros((2, 1, 28, 28), np.float32)]], "a dict of input name to numpy array expected"),
    ([], "no sample was observed"),
])
def test_bad_data_is_one_clear_error(model, data, message):
    with pytest.raises(q8.Error, match=re.escape(message)):
        q8.calibrate(model, data, method="max", progress=False)


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "median"}, "method 'median': unknown"),
    ({"bins": 1000}, "bins 1000: must be a power of two"),
    ({"overrides": {"Relu": "nope"}}, "method 'nope': unknown"),
    ({"overrides": {"no_such_tensor": "max"}}, "no_such_tensor"),
    ({"limit": -1}, "limit -1"),
])
def test_bad_arguments_are_argument_errors(model, kwargs, message):
    with pytest.raises(q8.ArgumentError, match=re.escape(message)):
        q8.calibrate(model, TRAIN, progress=False, **kwargs)


def test_other_bad_input(model, table, work):
    with pytest.raises(q8.ArgumentError, match="one batch: put it in a list"):
        q8.calibrate(model, {"input": np.zeros((1, 1, 28, 28), np.float32)}, progress=False)
    with pytest.raises(q8.Error, match="input 'input' is missing"):
        model.run({})
    with pytest.raises(q8.Error, match=re.escape(str(work / "missing.onnx"))):
        q8.load(work / "missing.onnx")
    with open(work / "garbage.onnx", "wb") as f:
        f.write(b"\x00not a model")
    with pytest.raises(q8.Error, match="garbage.onnx"):
        q8.load(work / "garbage.onnx")
    with pytest.raises(q8.Error, match="not a QDQ model"):
        q8.compare(model, model, TEST, limit=10, progress=False)
    with pytest.raises(q8.ArgumentError, match="quantize_ops Conv: it has a quantization rule of its own"):
        q8.quantize(model, table, quantize_ops=["Conv"])
    with pytest.raises(q8.Error, match="device"):
        q8.build(q8.quantize(model, table), device="tpu")
    with pytest.raises(q8.ArgumentError, match="shapes images: matches no model input"):
        q8.build(q8.quantize(model, table), shapes={"images": [1, 1, 28, 28]})
    other = q8.quantize(model, table)
    other.save(work / "other.onnx")
    with pytest.raises(q8.ArgumentError, match="made for another model"):
        q8.quantize(q8.load(work / "other.onnx"), table)
    table.save_json(work / "table.json")
    with pytest.raises(q8.Error, match="table.json was made for another model"):
        q8.load_table(work / "table.json", q8.load(work / "other.onnx"))

    class Failing:
        def get_next(self):
            raise ValueError("the reader's own error")

    with pytest.raises(ValueError, match="the reader's own error"):
        q8.calibrate(model, Failing(), progress=False)
    # Nothing half-written: a write to a folder that does not exist leaves nothing behind.
    with pytest.raises(q8.Error):
        table.save_json(work / "no" / "such" / "t.json")
    assert not (work / "no").exists()


def resident_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_no_leak_over_1000_runs(model, table):
    plan = q8.build(q8.quantize(model, table), shapes={"input": [1, 1, 28, 28]})
    x1, x16 = images(TEST, 1), images(TEST, 16)
    refs = sys.getrefcount(x1), sys.getrefcount(x16)
    for _ in range(20):
        plan.run({"input": x1}), model.run({"input": x16})
    gc.collect()
    leaked = sys.getrefcount(x1) - refs[0] + sys.getrefcount(x16) - refs[1]  # every borrowed input released
    before = resident_mib()
    for _ in range(1000):
        # New arrays each run: a 50 KB input kept alive per run is 50 MB; a run's intermediates
        # kept (the INT8 plan's or the FP32 executor's) are more.
        out = plan.run({"input": x1 + 0})["logits"]
        model.run({"input": x16 + 0})
    gc.collect()
    grown = resident_mib() - before
    assert leaked == 0, f"{leaked} references to input arrays kept after 20 runs"
    assert grown < 16, f"resident memory grew {grown:.1f} MiB over 1,000 runs"
    assert out.shape == (1, 10)


def test_the_worked_example_in_the_docs_runs_as_written(tmp_path):
    text = open(os.path.join(ROOT, "docs", "python.md")).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "docs/python.md has no python block"
    os.symlink(os.path.join(ROOT, "datasets"), tmp_path / "datasets")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(q8.__file__)))
    result = subprocess.run(["/usr/bin/python3", "-c", blocks[0]], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert re.search(r"class of the first test image: \d", result.stdout)
    agreement = float(re.search(r"top-1 agreement: ([\d.]+) %", result.stdout).group(1))
    assert agreement > 90
    for name in ("fashion_cnn.json", "fashion_cnn.cache", "fashion_cnn.qdq.onnx"):
        assert (tmp_path / name).stat().st_size > 0
    shutil.rmtree(tmp_path)
