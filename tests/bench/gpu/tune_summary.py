#!/usr/bin/env python3
"""What the autotuner did per kernel, from a saved session (.kss.json): the kernel, its FLOPs,
the winner and its time, why the search stopped, and each measured schedule with its status.
Usage: tune_summary.py SESSION.kss.json"""
import json
import sys

s = json.load(open(sys.argv[1]))
t = s["trace"]
kernels = t.get("kernels", [])
by_kernel = {}
for m in t.get("measurements", []):
    by_kernel.setdefault((m["kernel"], m["device"]), []).append(m)
for se in sorted(t.get("searches", []), key=lambda x: -(x.get("winner_ns") or 0)):
    k = kernels[se["kernel"]] if se["kernel"] < len(kernels) else {}
    print(f"{k.get('name', se['kernel'])}: {k.get('flops', 0) / 1e6:.1f} MFLOP, winner {se['winner']} "
          f"{(se.get('winner_ns') or 0) / 1e3:.1f} us, stop {se['stop_reason']}, {se['measured']}/{se['candidates']} measured")
    for m in by_kernel.get((se["kernel"], se["device"]), []):
        why = f" ({m['reason'][:90]})" if m.get("reason") else ""
        print(f"    {m['schedule']:<40} {m['status']:<12} {m['ns'] / 1e3:10.1f} us{why}")
