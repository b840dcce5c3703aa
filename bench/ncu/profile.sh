#!/usr/bin/env bash
# An Nsight Compute profile of Loom's tuned SGEMM on the GPU machine. Nsight Compute profiles
# CUDA kernels only, so the OpenCL C that Loom generates for the configuration is compiled by
# nvcc (opencl-in-cuda.h spells OpenCL's built-ins) and launched by host.cu with the same grid.
#
#   bash bench/ncu/profile.sh '<config JSON>' [n] [out dir]      # there, with .device/ carried
#
# Needs .device/emit-sgemm.mjs (here: ../shared/device/pack.sh bench/ncu/emit-sgemm.ts).
set -euo pipefail
config=$1
n=${2:-4096}
out=${3:-${OUT:-/tmp}/ncu}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
bash .device/run.sh .device/emit-sgemm.mjs --config="$config" --n="$n" --out="$out"
# shellcheck disable=SC1091
source "$out/shape.sh"
nvcc -O3 -arch=sm_90 -std=c++17 -I "$here" -I "$out" -DKERNEL_FILE='"kernel.cl"' \
  -DN="$N" -DTILE_M="$TILE_M" -DTILE_N="$TILE_N" -DWG0="$WG0" -DWG1="$WG1" \
  -Xptxas -v "$here/host.cu" -o "$out/sgemm" 2>&1 | grep -E 'registers|spill|error' || true
"$out/sgemm"
ncu --set full --kernel-name sgemm --launch-skip 2 --launch-count 1 -f -o "$out/sgemm" "$out/sgemm" > /dev/null
ncu --import "$out/sgemm.ncu-rep" --page details --section SpeedOfLight --section Occupancy \
  --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
  --section SchedulerStats --section InstructionStats | tee "$out/details.txt"
