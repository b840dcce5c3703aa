/**
 * What bench/c-device.ts runs on the C device: loopy's tutorial kernels (codegen-kernels.ts builds
 * them) with inputs of a size, the SGEMM configurations of examples/matmul.ts that suit a CPU,
 * and the hand-written C loop nests that are the bar (issue 26: the C device at ≥ 0.9x of them).
 *
 * A hand-written nest is a whole C program in the C device's calling convention (launchers.ts of
 * @loom/codegen-c): one exported `K__launch(void *const *args, const int32_t *group_count)`
 * whose `args[p]` point at the Loom kernel's parameters, in its order. The bench compiles it
 * through the device's own `compile`, so the compiler, flags, cache and koffi call are the
 * generated code's; the nest ignores the group counts and runs its own OpenMP loop.
 */
import type { DeviceKernel } from '@loom/core';
import type { MatmulConfig } from '../examples/matmul.ts';
import { TUTORIAL_KERNELS, type KernelCase } from './codegen-kernels.ts';

/** A tutorial kernel to run: its inputs' shapes at size `n`, and which of its arrays it writes. */
export interface TutorialRun {
  readonly kernel: KernelCase;
  /** The float32 inputs, by name, and their shapes. */
  readonly inputs: Readonly<Record<string, readonly number[]>>;
  /** The outputs, by name, and their shapes. */
  readonly outputs: Readonly<Record<string, readonly number[]>>;
  /** The hand-written C of the same loop nest, where there is one (`params`: the kernel's parameter indices by name). */
  readonly handWritten?: (entry: string, params: ParameterIndex) => string;
}

/** The index of each of a kernel's parameters in `args`, by name. */
export type ParameterIndex = (name: string) => number;

/** The index of each parameter of `kernel`, by name; a name it does not have is an error. */
export function parameterIndex(kernel: DeviceKernel): ParameterIndex {
  return (name) => {
    const k = kernel.function.params.findIndex((p) => p.name === name);
    if (k < 0)
      throw new Error(
        `kernel '${kernel.name}' has no parameter '${name}' (it has ${kernel.function.params.map((p) => p.name).join(', ')})`,
      );
    return k;
  };
}

const tutorial = (name: string): KernelCase => {
  const found = TUTORIAL_KERNELS.find((k) => k.name === name);
  if (!found) throw new Error(`no tutorial kernel '${name}' in codegen-kernels.ts`);
  return found;
};

/** The launcher's signature, the OpenMP pragma guarded as the generated launchers guard it. */
const launcher = (entry: string, body: string) => `#include <stddef.h>
#include <stdint.h>

void ${entry}__launch(void *const *args, const int32_t *group_count)
{
  (void) group_count;
${body}
}
`;
const PARALLEL_FOR = '#ifdef _OPENMP\n  #pragma omp parallel for schedule(static)\n#endif';

/**
 * The tutorial's kernels that take arrays in and give arrays out, at a 1-D size `n1` and a 2-D
 * side `n2` (multiples of 16, as their splits assume); `matmulN` for the tiled matmul, the
 * slowest of them. Each has the hand-written nest of the same work, parallel (OpenMP over its
 * outer loop) exactly where the kernel has group axes: an untransformed kernel is one work-item,
 * which the C device runs on one thread, as a C programmer's plain loop runs.
 */
export function tutorialRuns(n1: number, n2: number, matmulN: number): TutorialRun[] {
  return [
    {
      kernel: tutorial('double'),
      inputs: { a: [n1] },
      outputs: { out: [n1] },
      handWritten: (entry, p) =>
        launcher(
          entry,
          `  const float *restrict a = args[${p('a')}];
  float *restrict out = args[${p('out')}];
  for (int i = 0; i < ${n1}; ++i)
    out[i] = 2.0f * a[i];`,
        ),
    },
    {
      kernel: tutorial('parallel'),
      inputs: {},
      outputs: { a: [n1] },
      handWritten: (entry, p) =>
        launcher(
          entry,
          `  float *restrict a = args[${p('a')}];
${PARALLEL_FOR}
  for (int i = 0; i < ${n1}; ++i)
    a[i] = 0.0f;`,
        ),
    },
    {
      kernel: tutorial('local temporary'),
      inputs: { a: [n1] },
      outputs: { out: [n1] },
      handWritten: (entry, p) =>
        launcher(
          entry,
          `  const float *restrict a = args[${p('a')}];
  float *restrict out = args[${p('out')}];
${PARALLEL_FOR}
  for (int block = 0; block < ${n1 / 16}; ++block) {
    float sum = 0.0f;
    for (int k = 0; k < 16; ++k)
      sum += a[16 * block + k];
    for (int i = 0; i < 16; ++i)
      out[16 * block + i] = sum;
  }`,
        ),
    },
    {
      kernel: tutorial('tiled transpose'),
      inputs: { a: [n2, n2] },
      outputs: { out: [n2, n2] },
      handWritten: (entry, p) =>
        launcher(
          entry,
          `  const float *restrict a = args[${p('a')}];
  float *restrict out = args[${p('out')}];
  for (int i = 0; i < ${n2}; ++i)
    for (int j = 0; j < ${n2}; ++j)
      out[(size_t) i * ${n2} + j] = a[(size_t) j * ${n2} + i];`,
        ),
    },
    {
      kernel: tutorial('tiled transpose, 2-D prefetch'),
      inputs: { a: [n2, n2] },
      outputs: { out: [n2, n2] },
      handWritten: (entry, p) =>
        launcher(
          entry,
          `  const float *restrict a = args[${p('a')}];
  float *restrict out = args[${p('out')}];
${PARALLEL_FOR}
  for (int i = 0; i < ${n2}; ++i)
    for (int j = 0; j < ${n2}; ++j)
      out[(size_t) j * ${n2} + i] = a[(size_t) i * ${n2} + j];`,
        ),
    },
    {
      kernel: tutorial('tiled matmul'),
      inputs: { a: [matmulN, matmulN], b: [matmulN, matmulN] },
      outputs: { c: [matmulN, matmulN] },
      handWritten: (entry, p) => handWrittenSgemm(entry, p, matmulN),
    },
  ];
}

/**
 * SGEMM, c = a*b for n x n float32, as a C programmer writes it: rows of c in parallel, the
 * k loop outside the j loop so that the innermost loop runs along rows of b and c (contiguous:
 * the compiler vectorizes it), no blocking beyond that.
 */
export function handWrittenSgemm(entry: string, p: ParameterIndex, n: number): string {
  return launcher(
    entry,
    `  const float *restrict a = args[${p('a')}];
  const float *restrict b = args[${p('b')}];
  float *restrict c = args[${p('c')}];
${PARALLEL_FOR}
  for (int i = 0; i < ${n}; ++i) {
    float *restrict row = c + (size_t) i * ${n};
    for (int j = 0; j < ${n}; ++j)
      row[j] = 0.0f;
    for (int k = 0; k < ${n}; ++k) {
      const float aik = a[(size_t) i * ${n} + k];
      const float *restrict bk = b + (size_t) k * ${n};
      for (int j = 0; j < ${n}; ++j)
        row[j] += aik * bk[j];
    }
  }`,
  );
}

/**
 * SGEMM configurations for a CPU, where a work-group is one thread's task and its work-items a
 * loop: register tiles of consecutive columns (`blocked`), so that a work-item's unrolled copies
 * read neighbouring words of b, with and without staging panels in (stack) memory; the bench
 * times each and keeps the fastest.
 */
export const CPU_MATMUL_CONFIGS: readonly MatmulConfig[] = [
  { tileM: 64, tileN: 64, tileK: 16, regM: 4, regN: 4, layout: 'blocked', prefetch: false, unrollK: false },
  { tileM: 32, tileN: 64, tileK: 16, regM: 4, regN: 8, layout: 'blocked', prefetch: false, unrollK: false },
  { tileM: 32, tileN: 64, tileK: 16, regM: 4, regN: 16, layout: 'blocked', prefetch: false, unrollK: false },
  { tileM: 64, tileN: 64, tileK: 16, regM: 8, regN: 8, layout: 'blocked', prefetch: false, unrollK: false },
  { tileM: 64, tileN: 64, tileK: 16, regM: 4, regN: 4, layout: 'blocked', prefetch: true, unrollK: false },
  { tileM: 64, tileN: 64, tileK: 16, regM: 4, regN: 4, layout: 'strided', prefetch: true, unrollK: false },
];
