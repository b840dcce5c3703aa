#!/usr/bin/env bash
# An Nsight Compute profile of the kernels a benchmark launches on Loom's CUDA device (there, with
# .device/ carried): the benchmark runs under ncu on --backends=cuda, and the first COUNT launches of
# kernels whose names match REGEX are profiled (the sections that say what bounds a kernel: speed of
# light, memory workload, occupancy, launch statistics, warp states).
#
#   bash bench/ncu/cuda.sh REGEX COUNT .device/fft.mjs --full --only=2^24      # there
#
# Writes $OUT/ncu/<bundle>.ncu-rep and details.txt (default OUT=/tmp), and prints the details.
set -euo pipefail
regex=$1
count=$2
bundle=$3
shift 3
out=${OUT:-/tmp}/ncu
mkdir -p "$out"
name=$(basename "$bundle" .mjs)
# run.sh execs node with the environment the bundles need; ncu follows it into node (--target-processes all)
ncu --target-processes all --kernel-name "regex:$regex" --launch-count "$count" \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
  --section WarpStateStats --section SchedulerStats -f -o "$out/$name" \
  bash .device/run.sh "$bundle" --backends=cuda "$@" > "$out/$name.stdout" 2> "$out/$name.stderr" || true
ncu --import "$out/$name.ncu-rep" --page details | tee "$out/details.txt"
