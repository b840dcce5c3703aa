"""torch.matmul in half precision and in bfloat16 (cuBLAS on the tensor cores, float32 accumulation)
and in float32 with TF32 allowed, n x n, timed with CUDA events: the references of bench/hgemm.ts.
Prints one JSON line per case and size.

    python3 bench/torch_hgemm.py [--sizes=1024,4096]
"""
import json
import sys

import torch


def seconds_per_call(call, rounds=50):
    call()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(5):
        start.record()
        for _ in range(rounds):
            call()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3 / rounds)
    return sorted(times)[len(times) // 2]


def main():
    sizes = [1024, 2048, 4096, 8192]
    for arg in sys.argv[1:]:
        if arg.startswith("--sizes="):
            sizes = [int(s) for s in arg.split("=", 1)[1].split(",")]
    for n in sizes:
        a = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
        b = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
        c = torch.empty(n, n, device="cuda", dtype=torch.float16)
        calls = [("hgemm half out", lambda: torch.matmul(a, b, out=c))]
        try:
            # float32 out, as Loom's kernel writes (torch.mm's out_dtype, where this PyTorch has it)
            torch.mm(a, b, out_dtype=torch.float32)
            calls.append(("hgemm float out", lambda: torch.mm(a, b, out_dtype=torch.float32)))
        except (TypeError, RuntimeError) as e:
            print(f"(no float32 out: {e})", file=sys.stderr)
        a16, b16 = a.bfloat16(), b.bfloat16()
        c16 = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
        calls.append(("bf16 bf16 out", lambda: torch.matmul(a16, b16, out=c16)))
        try:
            torch.mm(a16, b16, out_dtype=torch.float32)
            calls.append(("bf16 float out", lambda: torch.mm(a16, b16, out_dtype=torch.float32)))
        except (TypeError, RuntimeError) as e:
            print(f"(no float32 out for bfloat16: {e})", file=sys.stderr)
        a32, b32 = a.float(), b.float()
        c32 = torch.empty(n, n, device="cuda", dtype=torch.float32)

        def tf32():
            torch.backends.cuda.matmul.allow_tf32 = True
            torch.matmul(a32, b32, out=c32)

        calls.append(("sgemm tf32", tf32))
        for name, call in calls:
            s = seconds_per_call(call)
            print(json.dumps({"bench": "matmul", "backend": "torch", "case": name, "size": n, "value": round(2 * n**3 / s / 1e12, 2), "unit": "TFLOP/s"}))

main()
