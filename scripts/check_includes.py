#!/usr/bin/env python3
"""Fails on an #include arrow outside the folders' allowed matrix (docs/architecture.md, "Folders
and what each may use"): every `#include "folder/…"` of a C++, OpenCL or .inc file under the
repository is read, and one line names each include that points where its folder may not.

    check_includes.py [REPO_ROOT]
"""
import os
import re
import sys

ENGINE = ["engine/ir", "engine/io", "engine/onnx", "engine/cpu", "engine/ops", "engine/passes", "engine/exec", "engine/plan",
          "engine/opencl", "engine/runtime"]
# What each folder may include besides itself. The engine's layers from the bottom: ir, io, onnx,
# cpu (kernels of the CPU), ops, exec (backends, executor), passes, plan, opencl, runtime.
ALLOWED = {
    "kernels": [],
    "engine/ir": [],
    "engine/io": ["engine/ir"],
    "engine/onnx": ["engine/ir", "engine/io"],
    "engine/cpu": ["engine/ir", "engine/io"],
    "engine/ops": ["engine/ir", "engine/io", "engine/cpu", "kernels"],
    "engine/exec": ["engine/ir", "engine/io", "engine/onnx", "engine/cpu", "engine/ops"],
    "engine/passes": ["engine/ir", "engine/io", "engine/onnx", "engine/cpu", "engine/ops", "engine/exec"],
    "engine/plan": ["engine/ir", "engine/io", "engine/onnx", "engine/cpu", "engine/ops", "engine/exec", "engine/passes", "kernels"],
    "engine/opencl": ["engine/ir", "engine/io", "engine/onnx", "engine/cpu", "engine/ops", "engine/exec", "engine/plan", "kernels"],
    "engine/runtime": ENGINE[:-1] + ["kernels"],
    "datasets": ["engine/ir", "engine/io", "engine/onnx"],
    "calib": ENGINE + ["datasets"],
    "quant": ENGINE + ["calib"],
    "eval": ENGINE + ["calib", "quant", "datasets"],
    "python": ENGINE + ["kernels", "datasets", "calib", "quant", "eval"],
}
# Everything may be used by these.
FREE = {"tools", "bench", "tests", "examples"}


def folder(path):
    parts = path.split("/")
    return "/".join(parts[:2]) if parts[0] == "engine" and len(parts) > 2 else parts[0]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    known = set(ALLOWED) | FREE
    problems, files = [], 0
    for directory, subdirs, names in os.walk(root):
        rel_dir = os.path.relpath(directory, root)
        subdirs[:] = [d for d in subdirs if not d.startswith(".") and not d.startswith("build")]
        for name in names:
            if not name.endswith((".cpp", ".h", ".inc", ".cl")):
                continue
            path = os.path.normpath(os.path.join(rel_dir, name))
            source = folder(path)
            if source in FREE:
                continue
            files += 1
            if source not in known:
                problems.append(f"{path}: folder {source} is not in the matrix")
                continue
            for number, line in enumerate(open(os.path.join(directory, name), errors="replace"), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m or "/" not in m.group(1):
                    continue
                target = folder(m.group(1))
                if target != source and target in known | set(ENGINE) and target not in ALLOWED[source]:
                    problems.append(f"{path}:{number}: {source} may not include {m.group(1)} ({target})")
    for p in problems:
        print(p)
    print(f"{files} files read, {len(problems)} arrows outside the matrix")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
