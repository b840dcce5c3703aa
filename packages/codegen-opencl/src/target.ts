/**
 * `openclTarget()`: the program AST as OpenCL C that reads like loopy's output:
 *
 *   __kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float const *__restrict__ a, int const n, __global float *__restrict__ out)
 *   {
 *     for (int i = 0; i <= -1 + n; ++i)
 *       out[i] = 2.0f * a[i];
 *   }
 */
import { OPENCL_ATOMIC_DTYPES } from './atomics.ts';
import { type ProgramAst, type Target, type TargetOutput, checkOptionKeys, optionKeys } from '@loom/core';
import { printCProgram } from '@loom/codegen-cfamily';
import { openclDialect } from './dialect.ts';

/** The options openclTarget reads; any other key is an error. */
const OPENCL_TARGET_OPTIONS = optionKeys<OpenCLTargetOptions>()(['float16']);

/** OpenCL C needs nothing but the code and its kernels' names: the driver finds the rest in it. */
export type OpenCLExtra = undefined;

/** Options of `openclTarget`. */
export interface OpenCLTargetOptions {
  /**
   * How float16 is computed: `'native'` in `half` (the device has cl_khr_fp16, the default),
   * `'storage'` stored as half but computed in float, each result rounded to float16
   * (half-storage.ts), for devices without it.
   */
  readonly float16?: 'native' | 'storage';
}

/**
 * The OpenCL target: spells the program AST as OpenCL C.
 * ```ts
 * console.log(generateCode(knl, openclTarget()).code);
 * ```
 */
export function openclTarget(options: OpenCLTargetOptions = {}): Target<OpenCLExtra> {
  checkOptionKeys('openclTarget', options, OPENCL_TARGET_OPTIONS);
  const halfStorage = options.float16 === 'storage';
  return {
    name: 'opencl',
    vectorTypes: true,
    functionDialects: openclDialect.functionDialects,
    // int32/uint32 with OpenCL's atomics, floats by a compare-and-swap loop, stores by exchange (atomics.ts)
    // C-family: a cInstruction's C code is printed as given
    cInstructions: true,
    // printf, for traceAssignments
    prints: true,
    // a callee's code is a function that reads the work-item ids and holds barriers as the kernel does
    deviceFunctions: { arrays: 'pointers', workItemIds: 'read', barriers: true, privateArrays: true },
    // OpenCL C has no variable-length arrays: a local array sized at launch is a __local T *
    // argument whose bytes clSetKernelArg sets; a private one is refused
    runtimeSizedArrays: ['local'],
    localArraysAsArguments: true,
    atomicDTypes: OPENCL_ATOMIC_DTYPES,
    // image2d_t/image3d_t read through a sampler (images.ts); the device makes them at launch
    images: 'native',
    generate: (program) => spellOpenCL(program, halfStorage),
  };
}

/** The OpenCL C source of a program AST. */
export function generateOpenCL(program: ProgramAst): string {
  return spellOpenCL(program, false).code;
}

function spellOpenCL(program: ProgramAst, halfStorage: boolean): TargetOutput<OpenCLExtra> {
  // the C printer in OpenCL's dialect (dialect.ts); the names OpenCL reserves are renamed (names.ts)
  const { code, entryPoints, declarations } = printCProgram(program, openclDialect, { halfStorage });
  return { code, entryPoints, declarations, extra: undefined };
}
