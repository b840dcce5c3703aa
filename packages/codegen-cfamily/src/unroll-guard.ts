/**
 * Loops NVIDIA's OpenCL compiler must not unroll.
 *
 * Its loop unroller miscompiles a min/max accumulation: `acc = max(acc, -k)` over
 * k = 0..8 from INT_MIN gives 4 on an H100 (driver 580), and the same with data
 * (`max(acc, -b[i, k])` loses the first element). With the unroller off
 * (`#pragma unroll 1`, or `opencl_unroll_hint(1)`), or with -cl-opt-disable, the results are right. The
 * differential tests found it (seeds 2580333598, 29300880, 3594277482 and others);
 * test/regressions-differential.test.ts keeps the cases. Loops around an update of a
 * min/max accumulator carry the pragma (accepted by every OpenCL C version, where
 * the attribute needs 2.0); other loops unroll as the compiler likes. CUDA's compiler shares
 * NVIDIA's backend, so its dialect asks for the same line (`CDialect.keepRolled`).
 */
import { printExpr, subStatements, type Stmt } from '@loom/core';

/**
 * Whether the loop body folds a value into an accumulator with min or max, also in the loops
 * nested in it (the unroller miscompiles an outer loop around such an inner one too).
 */
export function accumulatesMinMax(body: Stmt): boolean {
  if (body.kind === 'assign') {
    const { target, value } = body;
    if (value.kind !== 'call' || (value.fn !== 'min' && value.fn !== 'max')) return false;
    const accumulator = printExpr(target);
    return value.args.some((a) => printExpr(a) === accumulator);
  }
  return subStatements(body).some(accumulatesMinMax);
}

/** The line before a loop that keeps it rolled, with the reason beside it. */
export const KEEP_ROLLED = "#pragma unroll 1  // kept rolled: NVIDIA's unroller miscompiles min/max accumulation";
