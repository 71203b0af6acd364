#!/usr/bin/env python3
"""Writes random .npy weights from a manifest, so a model's .ks text can travel to the GPU machine
without its weights (ResNet-18's 45 MB push a copy of the tree past what a device call carries).
Timing does not depend on the values; correctness is checked on this side with `check`.
Manifest lines: NAME DTYPE DIM... (as numpy's dtype.str, e.g. "fc_weight.npy <f4 1000 512").
Usage: random_weights.py MANIFEST OUTDIR"""
import os
import sys

import numpy as np

manifest, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
for line in open(manifest):
    name, dtype, *dims = line.split()
    shape = tuple(int(d) for d in dims)
    a = rng.standard_normal(shape).astype(np.dtype(dtype)) * 0.05
    np.save(os.path.join(out, name), a)
