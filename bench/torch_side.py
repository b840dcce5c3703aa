#!/usr/bin/env python3
"""PyTorch's side of the benchmarks: the same operations, shapes and layouts as bench/elementwise.ts
and bench/matmul.ts, timed with CUDA events, printed as JSON lines that bench/report.ts pairs with ours.

    python3 bench/torch_side.py [--full] [--json] [--only=computations,fft]

  elementwise  torch.add(x, y, out=out) on float32 rows x cols (8192 x 8192 = 2^26 with --full), y
               contiguous, broadcast along the rows (shape (cols,)), or transposed (y.t() of a
               contiguous cols x rows tensor); GB/s counting x, y and out once, as ours do
  matmul       torch.matmul(a, b, out=c), float32, n = 1024 .. 8192, TF32 off (cuBLAS SGEMM); TFLOP/s; and
               bench/matmul.ts's awkward shapes M x N x K: c (M x N) = a (M x K) @ b (K x N) for 4000x4100x3900
               and 1024x8192x1024, torch.bmm for 64 products of 512³ (case 'sgemm 64 x 512x512x512'), size =
               batch*M*N*K, TFLOP/s = 2*batch*M*N*K / time (without --full the smaller shapes it uses)
  reductions   torch.sum(a, dim=1, out=out) over float32 rows x cols (8192 x 8192 with --full, 256 x 2048
               without), and torch.sum(x, dim=0, out=out) over 2^26 float32 (2^20 without); GB/s of the
               data read, as bench/reductions.ts counts it
  computations bench/computations.ts's cases: torch.sum over all of 2^26 float32 and over the last axis of
               8192 x 8192 (GB/s read), torch.cumsum of the same (GB/s read + written), x.t().contiguous()
               of 8192 x 8192 (GB/s read + written), torch.matmul(a, b) and torch.matmul(a, b) * k at 4096³
               (TFLOP/s); without --full 2^18, 256 x 1024 and 128³, as ours
  auto-schedule bench/auto-schedule.ts's kernels where PyTorch has the operation, at its --full sizes (without
               --full, its small ones): matmul n 1024, batched matvec (torch.bmm) 64 of 1024², transpose
               (x.t().contiguous()) 4096², row and column sums (torch.sum, dim 1 and 0) of 4096², softmax over
               rows of 4096 x 1024, a 5 x 5 convolution of a 4100² image (torch.nn.functional.conv2d, valid),
               the contraction 'bik,kj->bij' of 32 x 512³ (torch.matmul); milliseconds a call, case = the kernel's
               name in bench/auto-schedule.ts, for issue 31's "at least 0.8x PyTorch"
  fft          bench/fft.ts's cases: torch.fft.fftn (cuFFT) of complex64 over the same axes, forward, out of
               place; GFLOP/s = 5 N log2 N per transform, as ours

Without a CUDA device it says so and exits cleanly: the other benchmarks still run.
"""
import argparse
import datetime
import json
import math
import statistics
import sys


SECTIONS = "elementwise,matmul,reductions,computations,auto-schedule,fft"


def emit(record, as_json):
    if as_json:
        print(json.dumps(record), flush=True)
    else:
        value = record.get("value")
        print(f"  torch {record.get('bench', record.get('info'))} {record.get('case', '')} {record.get('size', '')}: "
              f"{value if value is not None else json.dumps(record)} {record.get('unit', '')}", file=sys.stderr, flush=True)


def time_per_call(torch, call, budget_seconds=2.0, rounds=5):
    """Median seconds per call: rounds of back-to-back calls between two CUDA events, after a warm-up."""
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    # size a round to about 20 ms (at most 50 calls), as bench/lib/timing.ts does for WebGPU
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    call()
    end.record()
    end.synchronize()
    once = start.elapsed_time(end) / 1000
    count = max(1, min(50, round(0.02 / max(once, 1e-6))))
    times = []
    spent = 0.0
    while len(times) < rounds and (len(times) < 2 or spent < budget_seconds):
        start.record()
        for _ in range(count):
            call()
        end.record()
        end.synchronize()
        seconds = start.elapsed_time(end) / 1000
        times.append(seconds / count)
        spent += seconds
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="the issue's sizes (2^26 elements, n = 1024..8192)")
    parser.add_argument("--json", action="store_true", help="JSON lines on stdout")
    parser.add_argument("--only", default=SECTIONS, help=f"comma-separated sections to run (default all: {SECTIONS})")
    args = parser.parse_args()
    only = set(args.only.split(","))
    unknown = only - set(SECTIONS.split(","))
    if unknown:
        parser.error(f"--only: unknown sections {sorted(unknown)} (known: {SECTIONS})")
    today = datetime.date.today().isoformat()

    try:
        import torch
    except ImportError:
        print("(torch_side.py: PyTorch is not installed here; nothing to compare with)", file=sys.stderr)
        return 0
    if not torch.cuda.is_available():
        print("(torch_side.py: PyTorch has no CUDA device here; nothing to compare with)", file=sys.stderr)
        return 0

    # cuBLAS's true float32 GEMM, not TF32 (which Ampere and later would otherwise be allowed to use)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    cuda = torch.device("cuda")
    name = torch.cuda.get_device_name(0)
    emit({"info": "torch", "torch": torch.__version__, "cuda": torch.version.cuda, "device": name, "date": today}, args.json)

    def record(bench, case, size, value, unit):
        emit({"bench": bench, "backend": "torch", "case": case, "size": size, "value": float(f"{value:.4g}"), "unit": unit,
              "device": name, "date": today}, args.json)

    if "elementwise" in only:
        elementwise(torch, cuda, record, args.full)
    if "matmul" in only:
        matmuls(torch, cuda, record, args.full)
        awkward_matmuls(torch, cuda, record, args.full)
    if "reductions" in only:
        reductions(torch, cuda, record, args.full)
    if "computations" in only:
        computations(torch, cuda, record, args.full)
    if "auto-schedule" in only:
        auto_schedule_ops(torch, cuda, record, args.full)
    if "fft" in only:
        ffts(torch, cuda, record, args.full)
    return 0


def elementwise(torch, cuda, record, full):
    """torch.add with y contiguous, broadcast along the rows, or transposed; GB/s of x, y and out."""
    rows, cols = (8192, 8192) if full else (1024, 2048)
    n = rows * cols
    try:
        x = torch.rand(rows, cols, device=cuda)
        y = torch.rand(rows, cols, device=cuda)
        y_t = torch.rand(cols, rows, device=cuda)
        row = torch.rand(cols, device=cuda)
        out = torch.empty(rows, cols, device=cuda)
        layouts = {
            "contiguous": (y, 12 * n),
            "rows": (row, 8 * n + 4 * cols),
            "transposed": (y_t.t(), 12 * n),
        }
        for case, (other, moved) in layouts.items():
            try:
                seconds = time_per_call(torch, lambda: torch.add(x, other, out=out))
                assert torch.equal(out, x + other), "torch.add gave an unexpected result"
                record("elementwise", case, n, moved / seconds / 1e9, "GB/s")
            except Exception as e:  # one failure must not cost the other figures
                print(f"  torch elementwise {case}: FAILED: {e}", file=sys.stderr)
        del x, y, y_t, row, out
        torch.cuda.empty_cache()
    except Exception as e:
        print(f"  torch elementwise: FAILED: {e}", file=sys.stderr)


def matmuls(torch, cuda, record, full):
    """torch.matmul of square float32 matrices (cuBLAS SGEMM, TF32 off); TFLOP/s."""
    for size in ([1024, 2048, 4096, 8192] if full else [128, 256]):
        try:
            a = torch.rand(size, size, device=cuda) * 2 - 1
            b = torch.rand(size, size, device=cuda) * 2 - 1
            c = torch.empty(size, size, device=cuda)
            seconds = time_per_call(torch, lambda: torch.matmul(a, b, out=c))
            record("matmul", "sgemm", size, 2 * size**3 / seconds / 1e12, "TFLOP/s")
            del a, b, c
            torch.cuda.empty_cache()
        except Exception as e:
            print(f"  torch matmul {size}: FAILED: {e}", file=sys.stderr)


def reductions(torch, cuda, record, full):
    """bench/reductions.ts's row sums and full sum (small integers: exact, checked); GB/s read."""
    rows, cols = (8192, 8192) if full else (256, 2048)
    total = 2**26 if full else 2**20
    try:
        # small integers, as bench/reductions.ts uses: every sum is exact, and checked
        a = (torch.arange(rows * cols, device=cuda) % 17 - 8).to(torch.float32).reshape(rows, cols)
        row_out = torch.empty(rows, device=cuda)
        seconds = time_per_call(torch, lambda: torch.sum(a, dim=1, out=row_out))
        assert torch.equal(row_out, a.double().sum(dim=1).float()), "torch.sum over rows gave an unexpected result"
        record("reductions", "row sum", rows * cols, 4 * rows * cols / seconds / 1e9, "GB/s")
        del a, row_out
        x = (torch.arange(total, device=cuda) % 3 - 1).to(torch.float32)
        out = torch.empty((), device=cuda)
        seconds = time_per_call(torch, lambda: torch.sum(x, dim=0, out=out))
        assert out.item() == float(x.double().sum().item()), "torch.sum gave an unexpected result"
        record("reductions", "full sum", total, 4 * total / seconds / 1e9, "GB/s")
        del x, out
        torch.cuda.empty_cache()
    except Exception as e:
        print(f"  torch reductions: FAILED: {e}", file=sys.stderr)


def awkward_matmuls(torch, cuda, record, full):
    """bench/matmul.ts's awkward shapes (batch, M, N, K; bench/lib/awkward-sgemm.ts), named and sized as it names and sizes them; results checked."""
    shapes = ([(None, 4000, 4100, 3900), (None, 1024, 8192, 1024), (64, 512, 512, 512)] if full
              else [(None, 100, 164, 92), (None, 64, 512, 64), (4, 64, 64, 64)])
    for batch, m, n, k in shapes:
        name = f"sgemm {'' if batch is None else f'{batch} x '}{m}x{n}x{k}"
        try:
            lead = () if batch is None else (batch,)
            a = torch.rand(*lead, m, k, device=cuda) * 2 - 1
            b = torch.rand(*lead, k, n, device=cuda) * 2 - 1
            c = torch.empty(*lead, m, n, device=cuda)
            call = (lambda: torch.matmul(a, b, out=c)) if batch is None else (lambda: torch.bmm(a, b, out=c))
            seconds = time_per_call(torch, call)
            exact = (a.double() @ b.double()).float()
            assert torch.allclose(c, exact, rtol=1e-4, atol=1e-3 * k**0.5), f"{name} gave an unexpected result"
            record("matmul", name, (batch or 1) * m * n * k, 2 * (batch or 1) * m * n * k / seconds / 1e12, "TFLOP/s")
            del a, b, c, exact
            torch.cuda.empty_cache()
        except Exception as e:  # one failure must not cost the other figures
            print(f"  torch matmul {name}: FAILED: {e}", file=sys.stderr)


def computations(torch, cuda, record, full):
    """The cases of bench/computations.ts, on the same sizes and data (small integers: exact results)."""
    rows, cols = (8192, 8192) if full else (256, 1024)
    total = 2**26 if full else 2**18
    n = 4096 if full else 128
    k = 0.5

    def case(name, size, call, check, work, unit):
        try:
            seconds = time_per_call(torch, call)
            assert check(call()), f"{name} gave an unexpected result"
            record("computations", name, size, work / seconds / (1e12 if unit == "TFLOP/s" else 1e9), unit)
        except Exception as e:  # one failure must not cost the other figures
            print(f"  torch computations {name}: FAILED: {e}", file=sys.stderr)

    try:
        x = (torch.arange(total, device=cuda) % 3 - 1).to(torch.float32)
        m = (torch.arange(rows * cols, device=cuda) % 17 - 8).to(torch.float32).reshape(rows, cols)
        one = torch.empty((), device=cuda)
        row_sums = torch.empty(rows, 1, device=cuda)
        x_scan = torch.empty(total, device=cuda)
        m_scan = torch.empty(rows, cols, device=cuda)
        case("reduce all", total, lambda: torch.sum(x, dim=0, out=one), lambda r: r.item() == x.double().sum().item(), 4 * total, "GB/s")
        case("reduce last axis", rows * cols, lambda: torch.sum(m, dim=1, keepdim=True, out=row_sums),
             lambda r: torch.equal(r, m.double().sum(dim=1, keepdim=True).float()), 4 * rows * cols, "GB/s")
        case("scan all", total, lambda: torch.cumsum(x, dim=0, out=x_scan), lambda r: torch.equal(r, x.double().cumsum(0).float()), 8 * total, "GB/s")
        case("scan last axis", rows * cols, lambda: torch.cumsum(m, dim=1, out=m_scan),
             lambda r: torch.equal(r, m.double().cumsum(1).float()), 8 * rows * cols, "GB/s")
        case("transpose", rows * cols, lambda: m.t().contiguous(), lambda r: torch.equal(r, m.t()), 8 * rows * cols, "GB/s")
        del x, m, one, row_sums, x_scan, m_scan
        torch.cuda.empty_cache()
        p = torch.arange(n * n, device=cuda)
        a = ((p * 7) % 5 - 2).to(torch.float32).reshape(n, n)
        b = ((p * 3) % 7 - 3).to(torch.float32).reshape(n, n)
        c = torch.empty(n, n, device=cuda)
        exact = (a.double() @ b.double()).float()
        case("matmul", n, lambda: torch.matmul(a, b, out=c), lambda r: torch.equal(r, exact), 2 * n**3, "TFLOP/s")
        case("matmul * k", n, lambda: torch.matmul(a, b) * k, lambda r: torch.equal(r, exact * k), 2 * n**3, "TFLOP/s")
        del p, a, b, c, exact
        torch.cuda.empty_cache()
    except Exception as e:
        print(f"  torch computations: FAILED: {e}", file=sys.stderr)


def auto_schedule_ops(torch, cuda, record, full):
    """bench/auto-schedule.ts's kernels where PyTorch has the operation (milliseconds a call), float32, TF32 off."""
    F = torch.nn.functional
    n_mm, nb, n_mv, n_t, rows, n_sm, m_sm, n_conv = (1024, 64, 1024, 4096, 4096, 4096, 1024, 4096) if full else (
        128, 8, 128, 256, 256, 256, 256, 128)
    contraction = (32, 512, 512, 512) if full else (4, 32, 64, 64)

    def case(name, size, call, check):
        try:
            seconds = time_per_call(torch, call)
            assert check(call()), f"{name} gave an unexpected result"
            record("auto-schedule", name, size, seconds * 1e3, "ms")
        except Exception as e:  # one failure must not cost the other figures
            print(f"  torch auto-schedule {name}: FAILED: {e}", file=sys.stderr)

    def close(got, want):
        return torch.allclose(got.double(), want, rtol=1e-4, atol=1e-4 * float(want.abs().max()))

    try:
        a, b = torch.rand(n_mm, n_mm, device=cuda), torch.rand(n_mm, n_mm, device=cuda)
        case("matmul", n_mm, lambda: torch.matmul(a, b), lambda r: close(r, a.double() @ b.double()))
        m, x = torch.rand(nb, n_mv, n_mv, device=cuda), torch.rand(nb, n_mv, 1, device=cuda)
        case("batched matvec", nb * n_mv * n_mv, lambda: torch.bmm(m, x), lambda r: close(r, m.double() @ x.double()))
        t = torch.rand(n_t, n_t, device=cuda)
        case("transpose", n_t * n_t, lambda: t.t().contiguous(), lambda r: torch.equal(r, t.t()))
        s = torch.rand(rows, rows, device=cuda)
        case("row sums", rows * rows, lambda: torch.sum(s, dim=1), lambda r: close(r, s.double().sum(1)))
        case("column sums", rows * rows, lambda: torch.sum(s, dim=0), lambda r: close(r, s.double().sum(0)))
        sm = torch.rand(n_sm, m_sm, device=cuda)
        case("softmax over rows", n_sm * m_sm, lambda: torch.softmax(sm, dim=1), lambda r: close(r, torch.softmax(sm.double(), 1)))
        image, w = torch.rand(1, 1, n_conv + 4, n_conv + 4, device=cuda), torch.rand(1, 1, 5, 5, device=cuda)
        case("2-D convolution", n_conv * n_conv, lambda: F.conv2d(image, w), lambda r: close(r, F.conv2d(image.double(), w.double())))
        bb, ni, nj, nk = contraction
        xc, wc = torch.rand(bb, ni, nk, device=cuda), torch.rand(nk, nj, device=cuda)
        case("tensor contraction", bb * ni * nj * nk, lambda: torch.matmul(xc, wc), lambda r: close(r, xc.double() @ wc.double()))
        del a, b, m, x, t, s, sm, image, w, xc, wc
        torch.cuda.empty_cache()
    except Exception as e:
        print(f"  torch auto-schedule: FAILED: {e}", file=sys.stderr)


def ffts(torch, cuda, record, full):
    """The cases of bench/fft.ts: names, shapes and axes as it has them; each result checked against float64."""
    cases = [
        ("2^10 x 2^14 batched", (2**14, 2**10), (1,)),
        ("2^20 x 2^4 batched", (2**4, 2**20), (1,)),
        ("2^24", (2**24,), (0,)),
        ("4096^2 2-D", (4096, 4096), (0, 1)),
        ("3^12 x 8 batched", (8, 3**12), (1,)),
        ("5^8 x 8 batched", (8, 5**8), (1,)),
        ("prime 1048573 x 4 batched", (4, 1048573), (1,)),
    ] if full else [
        ("2^10 x 2^14 batched", (2**6, 2**10), (1,)),
        ("2^20 x 2^4 batched", (2**2, 2**14), (1,)),
        ("2^24", (2**16,), (0,)),
        ("4096^2 2-D", (256, 256), (0, 1)),
        ("3^12 x 8 batched", (2, 3**8), (1,)),
        ("5^8 x 8 batched", (2, 5**6), (1,)),
        ("prime 1048573 x 4 batched", (2, 4099), (1,)),
    ]
    for name, shape, axes in cases:
        try:
            size = 1
            for n in shape:
                size *= n
            k = torch.arange(2 * size, device=cuda)
            # pseudo-random parts in [-0.5, 0.5), as bench/fft.ts's: a structured input piles the transform
            # into a few huge bins, whose float32 rounding (cuFFT's too) exceeds the atol on the small ones
            parts = (torch.rand(2 * size, generator=torch.Generator(device=cuda).manual_seed(1), device=cuda) - 0.5).reshape(*shape, 2)
            x = torch.view_as_complex(parts.contiguous())
            call = lambda: torch.fft.fftn(x, dim=axes)
            seconds = time_per_call(torch, call)
            exact = torch.fft.fftn(x.to(torch.complex128), dim=axes)
            assert torch.allclose(call().to(torch.complex128), exact, atol=1e-2, rtol=1e-4), f"fft {name} gave an unexpected result"
            flops = 5 * size * sum(math.log2(shape[a]) for a in axes)
            record("fft", name, size, flops / seconds / 1e9, "GFLOP/s")
            del k, parts, x, exact
            torch.cuda.empty_cache()
        except Exception as e:  # one failure must not cost the other figures
            print(f"  torch fft {name}: FAILED: {e}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
