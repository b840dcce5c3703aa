#!/usr/bin/env bash
# Every benchmark figure of the GPU machine in one command (issues 7, 14, 26, 29, 30 and 31: elementwise,
# SGEMM and its awkward shapes, reductions, the computation library, FFT, code generation, statistics,
# launches, the roofline, HGEMM and TF32 on the tensor cores, auto-scheduling), PyTorch's included, then the
# report. (It was bench/h100.sh, after the first GPU machine.)
#
# On the GPU machine, from the repository root, with .device/ carried along (packed here first:
#   ../shared/device/pack.sh bench/elementwise.ts bench/matmul.ts bench/reductions.ts bench/computations.ts bench/fft.ts bench/codegen.ts bench/statistics.ts bench/launch.ts bench/pointwise-host.ts bench/roofline.ts bench/hgemm.ts bench/auto-schedule.ts bench/report.ts):
#     bash bench/gpu-run.sh
# Here (CPU devices, small sizes, the TypeScript run directly):
#     bash bench/gpu-run.sh --local
# CUDA beside OpenCL and PyTorch alone, in about 3 minutes (issue 26: each CUDA row against the OpenCL row of
# the same run): the elementwise, SGEMM (4096³ and the awkward shapes, shorter tuning), reduction and
# computation-library steps on --backends=opencl,cuda, then the report:
#     bash bench/gpu-run.sh --quick           (there; with --local too, here, where CUDA is a one-line skip)
#
# A whole run takes about 20 minutes on the H200 (2026-12-05: the matmul step alone, three backends
# tuned and the awkward shapes, about 5 minutes; auto-scheduling 5), so TOTAL defaults to 1500 s. Where a
# device call is limited to 10 minutes, split it with STEPS and TOTAL (e.g. TOTAL=560 STEPS="torch
# elementwise matmul reductions", then the others, each with its own OUT), and make the report here on
# the h100.jsonl files joined.
#
# Writes into $OUT (default bench/results/run/ there, /tmp/loom-bench here): h100.jsonl (every JSON line), a log per step (its
# notices and readable table), BENCHMARKS.md + h100.json from bench/report.ts, and profiles/ (each device's measured profile;
# bench/report.ts run here on h100.jsonl writes those of a --full run to packages/dsl/profiles/, the committed ones). Each step has its
# own time limit and the whole run stays under TOTAL seconds (default 1500), so nothing can hang it;
# a step that fails or times out is recorded and the next one runs.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
local_run=false
quick=false
for arg in "$@"; do
  case $arg in
    --local) local_run=true ;;
    --quick) quick=true ;;
    *) echo "gpu-run.sh: unknown argument '$arg' (--local, --quick)" >&2; exit 2 ;;
  esac
done
if $local_run; then out=${OUT:-/tmp/loom-bench}; else out=${OUT:-bench/results/run}; fi
mkdir -p "$out"
lines="$out/h100.jsonl"
: > "$lines"
total=${TOTAL:-1500}
$quick && total=${TOTAL:-240}
began=$(date +%s)

# a step: NAME LIMIT COMMAND...; its stdout (JSON lines) joins h100.jsonl, its stderr goes to NAME.log
step() {
  local name=$1 limit=$2; shift 2
  # STEPS="torch matmul": only those (and the report); the run is then one of several calls
  if [ -n "${STEPS:-}" ] && [ "$name" != report ] && [[ " $STEPS " != *" $name "* ]]; then return; fi
  # `ours NAME FLAGS...`: our benchmark, the bundle there (with --full), the TypeScript here
  if [ "$1" = ours ]; then
    local script=$2; shift 2
    if $local_run; then set -- node --import tsx "bench/$script.ts" "$@"; else set -- bash .device/run.sh ".device/$script.mjs" --full "$@"; fi
  fi
  local left=$(( total - ($(date +%s) - began) - 20 ))   # keep 20 s for the report
  [ "$name" = report ] && left=$(( total - ($(date +%s) - began) ))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -le 5 ]; then
    echo "== $name: skipped, no time left" >&2
    echo "{\"info\":\"step\",\"step\":\"$name\",\"rc\":124,\"seconds\":0}" >> "$lines"
    return
  fi
  echo "== $name (at most ${limit} s)" >&2
  local t0
  t0=$(date +%s)
  timeout -k 5 "$limit" "$@" >> "$lines" 2> "$out/$name.log"
  local rc=$?
  echo "{\"info\":\"step\",\"step\":\"$name\",\"rc\":$rc,\"seconds\":$(( $(date +%s) - t0 ))}" >> "$lines"
  grep -v '^Warning: maxDynamic' "$out/$name.log" | tail -n 60 >&2
  echo "== $name: exit $rc after $(( $(date +%s) - t0 )) s" >&2
}

gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n 1)
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')
echo "{\"info\":\"gpu\",\"gpu\":\"${gpu:-none}\",\"cpu\":\"${cpu:-unknown}\",\"cores\":$(nproc)}" >> "$lines"

full=--full
$local_run && full=
# the tensor-core configurations measured fastest on the H200 (BENCHMARKS.md, eleventh and twelfth sessions)
TENSOR_CONFIGS='[{"warpsM":2,"warpsN":2,"regM":4,"regN":4,"tileK":32,"padding":8},{"warpsM":2,"warpsN":4,"regM":4,"regN":2,"tileK":32,"padding":8,"doubleBuffered":true},{"warpsM":2,"warpsN":4,"regM":4,"regN":2,"tileK":32,"padding":4,"wideCopies":true,"asyncCopies":true},{"warpsM":2,"warpsN":2,"regM":4,"regN":4,"tileK":32,"padding":4,"wideCopies":true}]'
if $quick; then
  # SGEMM at 4096³ alone (the GPU's sizes; here the small ones), the awkward shapes, shorter searches
  sizes=--sizes=4096
  $local_run && sizes=
  step torch 120 python3 bench/torch_side.py $full --json
  step elementwise 60 ours elementwise --json --backends=opencl,cuda
  step matmul 90 ours matmul --json --backends=opencl,cuda $sizes --classic-up-to=0 --budget=10 --awkward-budget=2
  step reductions 30 ours reductions --json --backends=opencl,cuda
  step computations 60 ours computations --json --backends=opencl,cuda
  step fft 90 ours fft --json --backends=opencl,cuda
else
  step torch 150 python3 bench/torch_side.py $full --json
  step elementwise 120 ours elementwise --json
  step matmul 330 ours matmul --json --budget=40
  step reductions 45 ours reductions --json
  step computations 90 ours computations --json
  step fft 120 ours fft --json
  step codegen 120 ours codegen --json --fresh=3
  step statistics 40 ours statistics --json --samples=10
  step launch 45 ours launch --json
  step pointwise-host 30 ours pointwise-host --json
  step roofline 90 ours roofline --json --profile-dir="$out/profiles"
  # the tensor cores (issue 30): the best configurations of each product, and PyTorch's HGEMM and TF32 SGEMM
  step torch-hgemm 90 python3 bench/torch_hgemm.py --sizes=4096,8192
  step hgemm 150 ours hgemm --json --backends=cuda --sizes=4096,8192 --modes=hgemm,tf32 --config="$TENSOR_CONFIGS"
  # Hopper's warpgroup instructions, panels swizzled and copied by the tensor memory accelerator (twenty-fifth
  # session); a configuration at 4096³ takes 20-25 s (NVRTC, the warm-up, nine samples, the check)
  step wgmma 120 ours hgemm --json --backends=cuda --sizes=4096 --modes=wgmma,wgmma-half,wgmma-bf16 \
    --config='{"warpgroups":2,"columns":256,"tileK":64,"stages":4,"ahead":2,"bulkCopies":true,"swizzled":true}'
  # TF32 on warpgroup instructions, b transposed first by a kernel of its own (twenty-seventh session)
  step wgmma-tf32 60 ours hgemm --json --backends=cuda --sizes=4096 --modes=wgmma-tf32 \
    --config='{"warpgroups":2,"columns":256,"stages":4,"ahead":2,"bulkCopies":true,"transposeFirst":true}'
  # auto-scheduling (issue 31): every benchmark kernel, specialised to its sizes, with a spread of the space
  step auto-schedule 600 ours auto-schedule --json --backends=opencl --budget=55 --measure=10 --fix-sizes --skip-untransformed --spread=5
fi
if $local_run; then
  step report 30 node --import tsx bench/report.ts "$lines" --out="$out"
else
  step report 30 bash .device/run.sh .device/report.mjs "$lines" --out="$out"
fi
echo "== all done in $(( $(date +%s) - began )) s; results in $out" >&2
# the quick run's JSON lines, then its table of targets, in the output itself
$quick && grep '^{' "$lines" >&2
[ -f "$out/BENCHMARKS.md" ] && sed -n '/^## Targets/,/^## Elementwise/p' "$out/BENCHMARKS.md" >&2
exit 0
