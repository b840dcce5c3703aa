/**
 * What OpenCL C says differently from the C printer's defaults (@loom/codegen-cfamily's
 * `CDialect`): `__kernel` with a required work-group size, `__global`/`__local` address
 * spaces, `get_local_id` behind the `lid`/`gid` macros, `barrier(CLK_LOCAL_MEM_FENCE)`,
 * overloaded math functions, `float4` vectors with arithmetic (`.s2`, `select`, packed
 * `vload3`), half storage through `vload_half`, built-in and compare-and-swap atomics, and
 * the pragmas for fp64, atomics and FP_CONTRACT.
 */
import { constantLocalSize, nameTable, type DType } from '@loom/core';
import type { CDialect, ProgramFacts } from '@loom/codegen-cfamily';
import { C_MATH_FUNCTIONS, KEEP_ROLLED } from '@loom/codegen-cfamily';
import { openclAtomic, openclAtomicCompareSwap, openclAtomicFetch, openclAtomicStore } from './atomics.ts';
import { clLiteral, clType, floatToIntegerHelper } from './c-types.ts';
import { openclBfloat16Storage } from './bfloat16-storage.ts';
import { openclHalfStorage } from './half-storage.ts';
import { isReservedInOpenCL } from './names.ts';
import { openclImages } from './images.ts';

// OpenCL's math functions are overloaded: C's name serves half, float and double alike.
// OpenCL C adds rsqrt to C99's (no prototype: a call of `constructor` finds nothing here).
const MATH_FUNCTIONS: Readonly<Record<string, string>> = nameTable({ ...C_MATH_FUNCTIONS, rsqrt: 'rsqrt' });

/** OpenCL C as a dialect of the C printer. */
export const openclDialect: CDialect = {
  language: 'OpenCL C',
  isReserved: isReservedInOpenCL,
  functionDialects: ['opencl'],
  type: clType,
  literal: clLiteral,
  mathFunction: (fn) => MATH_FUNCTIONS[fn],
  // OpenCL C's mul_hi and rotate are overloaded for every integer type
  integerBuiltin: (fn) => fn,
  integerAbs: () => 'abs',
  unordered: (a, b) => `isunordered(${a}, ${b})`,
  floatToInteger: floatToIntegerHelper,
  helperQualifier: 'inline',
  oversizedShift: (bits) => `OpenCL takes it modulo ${bits}`,
  hardwareId: (fn, axis) => `${fn}(${axis})`,
  barrier: (scope, comment) =>
    `barrier(${scope === 'local' ? 'CLK_LOCAL_MEM_FENCE' : 'CLK_GLOBAL_MEM_FENCE'})${comment ? ` /* ${comment} */` : ''};`,
  kernelDeclaration: (k, params) => {
    const constant = constantLocalSize(k.localSize);
    // a work-group size known only at launch (`l.0` over `0 <= i < n`) is the launch's alone, as loopy prints it
    if (!constant) return `__kernel void ${k.name}(${params.join(', ')})`;
    const size = [...constant, 1, 1, 1].slice(0, 3).join(', ');
    return `__kernel void __attribute__ ((reqd_work_group_size(${size}))) ${k.name}(${params.join(', ')})`;
  },
  functionDeclaration: (name, params) => `void ${name}(${params.join(', ')})`,
  arrayParameter: (p, type, restrict) =>
    `${p.kind === 'constant' ? '__constant' : '__global'} ${p.forAtomic ? 'volatile ' : ''}${type}${p.written ? '' : ' const'} *${restrict ? '__restrict__ ' : ''}${p.name}`,
  images: openclImages,
  addressSpace: (space) => `__${space} `,
  localQualifier: '__local ',
  localArrayParameter: (name, type) => `__local ${type} *__restrict__ ${name}`,
  halfStorage: openclHalfStorage,
  bfloat16Storage: openclBfloat16Storage,
  vectors: {
    type: (t: DType, lanes: number) => `${clType(t)}${lanes}`,
    // a float3 has the size of a float4: three-element groups are read and written with vload3/vstore3
    packed: [3],
    loadPacked: (index, array) => `vload3(${index}, ${array})`,
    storePacked: (value, index, array) => `vstore3(${value}, ${index}, ${array});`,
    element: (lane) => `.s${lane.toString(16)}`,
    laneWritesWholeVector: true,
    arithmetic: true,
    select: (vectorType, then, otherwise, condition) =>
      `select((${vectorType})(${otherwise}), (${vectorType})(${then}), ${condition})`,
  },
  atomic: openclAtomic,
  atomicCompareSwap: openclAtomicCompareSwap,
  atomicStore: openclAtomicStore,
  // loopy's "cl1" atomics: a variable accessed atomically is volatile, so every read is a load
  atomicQualifier: 'volatile ',
  atomicFetch: openclAtomicFetch,
  // OpenCL 1.2's fence (the built-ins the target assumes): the work-item's global accesses in
  // order, which on GPUs (NVIDIA's membar.gl) every work-group then sees in that order
  globalFence: 'mem_fence(CLK_GLOBAL_MEM_FENCE);',
  keepRolled: KEEP_ROLLED,
  prelude: openclPrelude,
};

function openclPrelude({ usesDouble, contractible, fusedMultiplyAdd, extensions }: ProgramFacts): string[] {
  const lines: string[] = [];
  // a * b + c rounds twice, as on every other device: OpenCL compilers may otherwise fuse it
  // into an fma, which rounds once (and disagrees where the product is a tie), unless the
  // kernel asked for the speed (setOptions(knl, { fusedMultiplyAdd: true }))
  if (contractible && !fusedMultiplyAdd) lines.push('#pragma OPENCL FP_CONTRACT OFF');
  const enabled = usesDouble ? [...new Set([...extensions, 'cl_khr_fp64'])].sort() : extensions;
  for (const x of enabled) lines.push(`#pragma OPENCL EXTENSION ${x}: enable`);
  lines.push('#define lid(N) ((int) get_local_id(N))', '#define gid(N) ((int) get_group_id(N))');
  return lines;
}
