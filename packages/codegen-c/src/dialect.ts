/**
 * What C99 says differently from the C printer's defaults (@loom/codegen-cfamily's
 * `CDialect`), for the C device: a kernel is a `static` function of one work-group, whose
 * work-items core's `serializeWorkItems` has already turned into loops (so there are no
 * local ids and no barriers left), called by a launcher per group (launchers.ts) with the
 * group's ids as its last parameter. C's type names (`unsigned int`, `int64_t`), `<math.h>`'s
 * names by precision (`sinf`, `sin`), float16 as `uint16_t` bits computed in float, no
 * vector types (the `vec` loops are unrolled), local memory as the group function's own
 * arrays, atomics with GCC's `__atomic` builtins, integer min/max as helpers (C has none).
 */
import { InternalError } from '@loom/core';
import type { CDialect, VectorSpelling } from '@loom/codegen-cfamily';
import { cAtomic, cAtomicCompareSwap, cAtomicFetch, cAtomicLoad, cAtomicStore } from './atomics.ts';
import { cFloatToInteger, cLiteral, cType } from './c-types.ts';
import { cBfloat16Storage } from './bfloat16-storage.ts';
import { cHalfStorage } from './half-storage.ts';
import { cMathFunction } from './math.ts';
import { GROUP_IDS, isReservedInC } from './names.ts';
import { cPrelude } from './prelude.ts';

/** No vector types in C: the target states `vectorTypes: false`, so no vector reaches the printer. */
const noVectors = (what: string) => (): never => {
  throw new InternalError(
    `a vector ${what} reached the C printer, which has no vector types (the target unrolls every vec loop)`,
  );
};
const cVectors: VectorSpelling = {
  type: noVectors('type'),
  packed: [],
  element: noVectors('element'),
  arithmetic: false,
};

/** C99 as a dialect of the C printer. */
export const cDialect: CDialect = {
  language: 'C',
  isReserved: isReservedInC,
  // defineFunction's `c:` code
  functionDialects: ['c'],
  type: cType,
  literal: cLiteral,
  mathFunction: cMathFunction,
  // |x| of an unsigned x is x; int8/int16 arrive in int; int64_t is long or long long: llabs takes either
  integerAbs: (t) => (t === 'int64' ? 'llabs' : t.startsWith('uint') ? undefined : 'abs'),
  integerMinMax: (fn, t) => {
    const name = `loom_${fn}_${t}`;
    const ct = cType(t);
    const definition = [
      `static inline ${ct} ${name}(${ct} a, ${ct} b)`,
      '{',
      `  return a ${fn === 'min' ? '<' : '>'} b ? a : b;`,
      '}',
    ].join('\n');
    return { name, definition };
  },
  unordered: (a, b) => `isunordered(${a}, ${b})`,
  // no product hook: the compiler's -ffp-contract=off keeps a * b + c two roundings
  // gcc folds 0.0 - (double) i to -(double) i (-0 for i = 0) even at -O0: found by the differential
  foldsZeroSums: true,
  floatToInteger: cFloatToInteger,
  helperQualifier: 'static inline',
  oversizedShift: () => 'C leaves it undefined',
  hardwareId: (fn, axis) => {
    // gid(N): the prelude's macro over the group ids' parameter, as OpenCL's code reads
    if (fn === 'gid') return `gid(${axis})`;
    throw new InternalError(
      `a local id reached the C printer: serializeWorkItems turns the work-items of a group into loops`,
    );
  },
  barrier: () => {
    throw new InternalError(
      'a barrier reached the C printer: serializeWorkItems splits the work-items at every barrier',
    );
  },
  // one work-group per call; `static`: only the launcher is exported from the library
  kernelDeclaration: (k, params) =>
    `static void ${k.name}(${[...params, `int const *__restrict__ ${GROUP_IDS}`].join(', ')})`,
  functionDeclaration: (name, params) => `static void ${name}(${params.join(', ')})`,
  arrayParameter: (p, type, restrict) =>
    `${type}${p.written ? '' : ' const'} *${restrict ? '__restrict__ ' : ''}${p.name}`,
  // one address space on a CPU
  addressSpace: () => '',
  // a group's local memory is the group function's own arrays: each call (each group) has its own
  localQualifier: '',
  halfStorage: cHalfStorage,
  bfloat16Storage: cBfloat16Storage,
  vectors: cVectors,
  atomic: cAtomic,
  atomicCompareSwap: cAtomicCompareSwap,
  atomicStore: cAtomicStore,
  atomicLoad: cAtomicLoad,
  // the __atomic builtins take plain pointers
  atomicQualifier: '',
  atomicFetch: cAtomicFetch,
  // the work-groups run in parallel (OpenMP): the thread's accesses in order, as the others see them
  globalFence: '__atomic_thread_fence(__ATOMIC_SEQ_CST);',
  // GCC and Clang unroll min/max accumulations correctly (the pragma is for NVIDIA's compilers)
  keepRolled: undefined,
  // gcc runs with -fwrapv (runtime/compiler.ts): a wrapping int32 sum hides the loop's step from its vectorizer
  wideIndexSums: 'int64_t',
  prelude: cPrelude,
};
