#!/usr/bin/env bash
# SGEMM configurations at 4096³, one process each, beside cuBLAS in the same call, with the registers
# nvcc gives each CUDA kernel: the tuned kernel's neighbours, measured as issue 30's rows are.
#
# Here: ../shared/device/pack.sh bench/matmul.ts bench/ncu/emit-sgemm.ts; cp bench/torch_side.py .device/
# There, from the repository root, with .device/ carried along:
#     bash bench/sgemm-configs.sh bench/sgemm-configs/registers.txt
# Here too (nvcc counts the registers without a GPU; the CPU devices time small sizes):
#     bash bench/sgemm-configs.sh LIST --local
#
# LIST holds a configuration a line: BACKEND NAME CONFIG_JSON [VAR='VALUE' ...] (blank lines and # comments
# skipped; the JSON without spaces). The variables are set for that process only (LOOM_OPENCL_OPTIONS,
# LOOM_OPENCL_BUILD_LOG, LOOM_BENCH_DAWN). ONLY='REGEX' keeps the lines whose "BACKEND NAME" matches (a long
# list split over device calls: about 10 s a configuration, and nvcc's count a few seconds more; REGISTERS=0
# skips the count). Writes into $OUT/sgemm-configs (default /tmp there and here): torch.jsonl,
# BACKEND-NAME.jsonl and .log, NAME.cu and registers.txt; prints one line a configuration.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
list=${1:?usage: bash bench/sgemm-configs.sh LIST [--local]}
local_run=false
[ "${2:-}" = --local ] && local_run=true
out=${OUT:-/tmp}/sgemm-configs
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
if $local_run; then
  bench=(node --import tsx bench/matmul.ts)
  emit=(node --import tsx bench/ncu/emit-sgemm.ts)
  sizes=256
else
  bench=(bash .device/run.sh .device/matmul.mjs --full)
  emit=(bash .device/run.sh .device/emit-sgemm.mjs)
  sizes=4096
  timeout 120 python3 .device/torch_side.py --full --json --only=matmul > "$out/torch.jsonl" 2> "$out/torch.log"
  echo "cuBLAS (torch.matmul, TF32 off) at 4096: $(grep -E '"case": ?"sgemm", ?"size": ?4096,' "$out/torch.jsonl" | grep -oE '"value": ?[0-9.]+' | head -1 | grep -oE '[0-9.]+$') TFLOP/s"
fi
: > "$out/registers.txt"
while read -r backend name config vars; do
  case $backend in '' | '#'*) continue ;; esac
  [[ "$backend $name" =~ ${ONLY:-.} ]] || continue
  # the CUDA C of the configuration, and what ptxas gives it (registers, spills), once a name
  if [ "${REGISTERS:-1}" != 0 ] && ! grep -q "^$name " "$out/registers.txt" && command -v nvcc > /dev/null; then
    "${emit[@]}" --config="$config" --n="$sizes" --out="$out/$name.emit" > /dev/null 2>&1 &&
      cp "$out/$name.emit/kernel.cu" "$out/$name.cu" &&
      echo "$name $(nvcc -arch=sm_90 -cubin -Xptxas -v -o /dev/null "$out/$name.cu" 2>&1 | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | tr '\n' ' ')" >> "$out/registers.txt"
  fi
  # the variables as the list quotes them, for this process only
  eval "env $vars timeout 60 \"\${bench[@]}\" --json --backends=\"\$backend\" --sizes=\$sizes --awkward=off --classic-up-to=0 \"--config=\$config\"" \
    > "$out/$backend-$name.jsonl" 2> "$out/$backend-$name.log"
  value=$(grep -o '"value":[0-9.]*' "$out/$backend-$name.jsonl" | head -1 | cut -d: -f2)
  printf '%-8s %-16s %8s TFLOP/s  %s\n' "$backend" "$name" "${value:-failed}" "$(grep "^$name " "$out/registers.txt" | cut -d' ' -f2-)"
done < "$list"
