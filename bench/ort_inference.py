#!/usr/bin/env python3
"""ONNX Runtime's FP32 CPU inference time, for machines where q8's benchmarks cannot reach
onnxruntime-node (Python's onnxruntime instead): the median of R runs after one warm-up, on the
same random-input shape and thread count as bench/fp32_inference.

    ort_inference.py MODEL NAME=DxDx... THREADS [REPEAT]
"""
import statistics
import sys
import time

import numpy as np
import onnxruntime as ort

model, shape_arg, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 10
name, dims = shape_arg.split("=")
dims = [int(d) for d in dims.split("x")]
opts = ort.SessionOptions()
opts.intra_op_num_threads = threads
opts.inter_op_num_threads = 1
opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
session = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
x = np.random.default_rng(1).random(dims, dtype=np.float32)
session.run(None, {name: x})
times = []
for _ in range(repeat):
    t0 = time.perf_counter()
    session.run(None, {name: x})
    times.append((time.perf_counter() - t0) * 1000)
ms = statistics.median(times)
print(f"{model.split('/')[-1]:28s} {shape_arg:18s} threads {threads} | ORT {ms:9.2f} ms ({1000 * dims[0] / ms:8.1f} samples/s)")
