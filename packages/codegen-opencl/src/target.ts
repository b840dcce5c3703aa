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
import {
  type ProgramAst,
  type SubgroupSupport,
  type Target,
  type TargetOutput,
  checkOptionKeys,
  optionKeys,
} from '@loom/core';
import { printCProgram } from '@loom/codegen-cfamily';
import { openclDialect } from './dialect.ts';
import { KHR_SUBGROUPS, PTX_SUBGROUPS } from './subgroups.ts';

/** The options openclTarget reads; any other key is an error. */
const OPENCL_TARGET_OPTIONS = optionKeys<OpenCLTargetOptions>()(['float16', 'subgroups']);

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
  /**
   * How subgroup functions are spelled: `'khr'` with the built-ins of `cl_khr_subgroups` (the
   * default: code only), `'nvidia-ptx'` with NVIDIA's warp shuffles in inline PTX (its OpenCL has
   * no cl_khr_subgroups), `'none'` where the device has neither (a kernel calling one is refused).
   */
  readonly subgroups?: 'khr' | 'nvidia-ptx' | 'none';
}

/** What each spelling of subgroups states to core: its dtypes and its subgroups' width. */
const SUBGROUP_SUPPORT: Readonly<Record<'khr' | 'nvidia-ptx' | 'none', SubgroupSupport>> = {
  // the width is the driver's (1 on PoCL's CPU devices, 8 to 64 on GPUs); the last subgroup may be partial
  khr: { dtypes: ['int32', 'uint32', 'float32', 'int64', 'uint64', 'float64'], size: { min: 1, max: 128 } },
  'nvidia-ptx': { dtypes: ['int32', 'uint32', 'float32', 'int64', 'uint64', 'float64'], size: 32 },
  none: {
    refused: "this OpenCL device has no cl_khr_subgroups (nor is it NVIDIA's, whose warp shuffles Loom spells in PTX)",
  },
};

/**
 * The OpenCL target: spells the program AST as OpenCL C.
 * ```ts
 * console.log(generateCode(knl, openclTarget()).code);
 * ```
 */
export function openclTarget(options: OpenCLTargetOptions = {}): Target<OpenCLExtra> {
  checkOptionKeys('openclTarget', options, OPENCL_TARGET_OPTIONS);
  const halfStorage = options.float16 === 'storage';
  const subgroups = options.subgroups ?? 'khr';
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
    // bfloat16 computed in float, and float16 without cl_khr_fp16: their temporaries are floats
    heldInFloat: halfStorage ? ['float16', 'bfloat16'] : ['bfloat16'],
    // image2d_t/image3d_t read through a sampler (images.ts); the device makes them at launch
    images: 'native',
    subgroups: SUBGROUP_SUPPORT[subgroups],
    generate: (program) => spellOpenCL(program, halfStorage, subgroups),
  };
}

/** The OpenCL C source of a program AST. */
export function generateOpenCL(program: ProgramAst): string {
  return spellOpenCL(program, false).code;
}

function spellOpenCL(
  program: ProgramAst,
  halfStorage: boolean,
  subgroups: 'khr' | 'nvidia-ptx' | 'none' = 'khr',
): TargetOutput<OpenCLExtra> {
  // the C printer in OpenCL's dialect (dialect.ts); the names OpenCL reserves are renamed (names.ts)
  const dialect =
    subgroups === 'none'
      ? openclDialect
      : { ...openclDialect, subgroups: subgroups === 'khr' ? KHR_SUBGROUPS : PTX_SUBGROUPS };
  const { code, entryPoints, declarations } = printCProgram(program, dialect, { halfStorage });
  return { code, entryPoints, declarations, extra: undefined };
}
