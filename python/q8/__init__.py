"""q8 from Python: calibrate, quantize, build and run ONNX models in INT8 (docs/python.md).

    import q8
    model = q8.load("model.onnx")
    table = q8.calibrate(model, data, method="mse")
    qdq = q8.quantize(model, table, per_channel=True)
    plan = q8.build(qdq, device="cpu")
    outputs = plan.run({"input": x})
    report = q8.compare(model, qdq, data)

Errors are q8.Error (q8.ArgumentError for an argument that cannot work) with q8's one-line
message. Long work shows progress and stops between batches on Ctrl-C (KeyboardInterrupt).
"""
import json
import sys

from . import _q8
from ._q8 import (DEFAULT_AUTO_SAMPLES, DEFAULT_BINS, DEFAULT_METHOD, DEFAULT_PERCENTILE, DEFAULT_THRESHOLD, DEFAULT_TRT_VERSION, ArgumentError,
                  CalibrationTable, Error, Model, Plan, __version__, build, load, load_plan, load_table, quantize, set_log_level)

__all__ = ["DEFAULT_AUTO_SAMPLES", "DEFAULT_BINS", "DEFAULT_METHOD", "DEFAULT_PERCENTILE", "DEFAULT_THRESHOLD", "DEFAULT_TRT_VERSION", "ArgumentError",
           "CalibrationTable", "Error", "Model", "Plan", "build", "calibrate", "compare", "load", "load_plan", "load_table",
           "quantize", "set_log_level", "__version__"]


class _TextBar:
    """A progress line on stderr, redrawn in place (a notebook renders the carriage return)."""

    def __init__(self):
        self.drawn = False

    def __call__(self, done, total, what):
        if total > 0:
            width = 30
            filled = width * min(done, total) // total
            line = f"\r{what} [{'=' * filled:<{width}}] {done}/{total}"
        else:
            line = f"\r{what}: {done} samples"
        sys.stderr.write(line)
        sys.stderr.flush()
        self.drawn = True

    def close(self):
        if self.drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()


class _TqdmBar:
    """tqdm's bar (its notebook widget in Jupyter), where tqdm is installed."""

    def __init__(self, tqdm):
        self.tqdm, self.bar = tqdm, None

    def __call__(self, done, total, what):
        if self.bar is None:
            self.bar = self.tqdm(total=total if total > 0 else None, desc=what, unit="samples")
        self.bar.update(done - self.bar.n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _progress(progress):
    """progress=True: a bar; False or None: none; a callable: called with (done, total, what)."""
    if progress is True:
        try:
            from tqdm.auto import tqdm
            return _TqdmBar(tqdm)
        except ImportError:
            return _TextBar()
    if progress is False or progress is None:
        return None
    if not callable(progress):
        raise ArgumentError("progress: True, False or a callable (done, total, what)")
    return progress


def _with_progress(progress, call):
    bar = _progress(progress)
    try:
        return call(bar)
    finally:
        if hasattr(bar, "close"):
            bar.close()


def _json(preprocess):
    return None if preprocess is None else json.dumps(preprocess)


def calibrate(model, data, method=DEFAULT_METHOD, *, percentile=DEFAULT_PERCENTILE, bins=DEFAULT_BINS, batch_size=None,
              limit=0, shuffle=False, seed=0, skip_zeros=False, equalize=False, overrides=None, preprocess=None, streams=0,
              auto_samples=DEFAULT_AUTO_SAMPLES, progress=True):
    """Streams data through the FP32 model and returns each activation's amax by `method` (max, percentile,
    entropy, mse, or auto: each tried on the model's outputs, on auto_samples of a dataset path) and the
    weights' per-channel ranges, as `q8 calibrate` does with the same settings.

    data: a dataset path (what --data takes), a reader with get_next() returning {input name: array} or None
    (ONNX Runtime's CalibrationDataReader), or an iterable of {input name: array}, one batch each.
    overrides: {tensor name or op type: method}; preprocess: the keys of --preprocess's JSON, for images.
    """
    return _with_progress(progress, lambda bar: _q8._calibrate(
        model, data, method, percentile, bins, batch_size, limit, shuffle, seed, skip_zeros, equalize, dict(overrides or {}),
        _json(preprocess), streams, auto_samples, bar))


def compare(fp32, qdq, data, *, int8=False, threshold=DEFAULT_THRESHOLD, batch_size=None, limit=0, preprocess=None,
            progress=True):
    """INT8 against FP32 on data (as calibrate takes it): the report `q8 compare --json` writes, as a dict.
    int8=True runs the QDQ model on the INT8 engine; preprocess replaces what the QDQ model recorded."""
    return _with_progress(progress, lambda bar: _q8._compare(fp32, qdq, data, int8, threshold, batch_size, limit,
                                                             _json(preprocess), bar))
