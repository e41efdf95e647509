#!/usr/bin/python3
"""The SHA-256 of the plan `q8 build` writes for the shipped model and every model of the test-model
factory: calibrated with `max` on 16 random samples per input (the oracle tests' recipe), quantized
with both Add placements, built at the factory's shapes. Two q8 binaries that must give the same
plans print the same table (a refactoring that changes no behaviour); each section's hash shows
which part of a plan a change reached.

    plan_hashes.py Q8_BINARY FACTORY_DIR WORK_DIR [--json FILE]
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

import onnx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "oracle"))
from crosscheck import SPATIAL, calibrate_and_quantize, factory_models  # noqa: E402


def sections(plan):
    """{section name: the first 12 hex digits of its SHA-256}, read from the container's table
    (docs/plan.md: a 48-byte header, then 64 bytes per section: name, offset, size, SHA-256)."""
    count = int.from_bytes(plan[12:16], "little")
    out = {}
    for i in range(count):
        entry = plan[48 + 64 * i: 48 + 64 * (i + 1)]
        name = entry[:16].rstrip(b"\0").decode()
        out[name] = entry[32:64].hex()[:12]
    return out


def shapes(model):
    """--shape for every input: batch 2, symbolic spatial dims as the oracle tests size them."""
    m = onnx.load(model, load_external_data=False)
    inits = {x.name for x in m.graph.initializer}
    flags = []
    for x in m.graph.input:
        if x.name in inits:
            continue
        dims = [d.dim_value if d.HasField("dim_value") else SPATIAL.get(d.dim_param, 2) for d in x.type.tensor_type.shape.dim]
        flags += ["--shape", f"{x.name}={'x'.join(map(str, dims))}"]
    return flags


def main():
    q8, factory, work = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    out_json = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    shutil.rmtree(work, ignore_errors=True)
    models = sorted(factory_models(factory, set()).items())
    hashes = {}
    for name, path in models:
        for mode in ("both", "tensorrt"):
            w = os.path.join(work, f"{name}-{mode}")
            os.makedirs(w)
            key = f"{name} --add-mode {mode}"
            try:
                _, qdq = calibrate_and_quantize(q8, path, w, seed=7, quantize_flags=("--add-mode", mode))
                plan = os.path.join(w, "model.q8plan")
                subprocess.run([q8, "build", qdq, "-o", plan, "--quiet"] + shapes(qdq), check=True, capture_output=True)
                data = open(plan, "rb").read()
                hashes[key] = hashlib.sha256(data).hexdigest() + "  " + " ".join(f"{k}:{v}" for k, v in sections(data).items())
            except subprocess.CalledProcessError as e:
                hashes[key] = "error: " + (e.stderr.decode() if isinstance(e.stderr, bytes) else str(e.stderr)).strip()[-200:]
            print(f"{key:<44} {hashes[key][:16]}{hashes[key][64:]}", flush=True)
    if out_json:
        json.dump(hashes, open(out_json, "w"), indent=2)


if __name__ == "__main__":
    main()
