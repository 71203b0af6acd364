# Sourced by the GPU benchmarks (gpu_plans.sh, gpu_resnet.sh) with $out set: builds the CLI without
# Qt into build-gpu (a warm machine keeps it between calls) and sets $cli to it and $dev to the
# first NVIDIA OpenCL device, picked by name; exits with the log's tail when either fails.
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S . -B build-gpu "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DKS_BUILD_GUI=OFF -DKS_WITH_GRAPHVIZ=OFF \
  -DKS_WITH_ONNX=OFF -DKS_WITH_SQLITE=OFF >"$out/cmake.log" 2>&1 || { tail -20 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" --target kernelscope-cli >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
cli=$(find build-gpu -name kernelscope-cli -type f | head -1)
"$cli" devices >"$out/devices.txt"
dev=$(grep -i nvidia "$out/devices.txt" | head -1 | awk '{print $1}')
[ -n "$dev" ] || { echo "no NVIDIA OpenCL device"; cat "$out/devices.txt"; exit 1; }
