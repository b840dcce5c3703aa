/**
 * The kernels of the comparison with loopy (issue 18): loopy 2020.2.1's median code generation time
 * on the 2-core machines, in one warm process, for the same kernel built the same way. Loom's target
 * is a fiftieth of each. (The cases are named as in bench/codegen-kernels.ts, which builds them.)
 */
export const LOOPY_COMPARISON: readonly { readonly name: string; readonly what: string; readonly loopyMs: number }[] = [
  { name: 'double', what: 'double a vector', loopyMs: 12.8 },
  { name: 'parallel', what: 'split onto g/l', loopyMs: 23.8 },
  { name: 'tiled matmul', what: 'tiled matmul with two prefetches', loopyMs: 337 },
  { name: 'slabs', what: 'unroll by 4 with slabs', loopyMs: 44 },
  { name: 'tiled transpose, 2-D prefetch', what: 'tiled transpose with a 2-D prefetch', loopyMs: 116 },
  { name: 'sgemm 128x128x16 r8x8', what: 'the 128x128x16 r8x8 SGEMM', loopyMs: 2433 },
];

/** How much faster than loopy each of those must be. */
export const LOOPY_SPEEDUP_TARGET = 50;

/** The tuned SGEMM's own code generation target (issue 18), and the first call's for the tutorial kernels. */
export const TUNED_SGEMM = 'sgemm 128x128x16 r8x8';
export const TUNED_SGEMM_TARGET_MS = 10;
export const FIRST_CALL_TARGET_MS = 10;
