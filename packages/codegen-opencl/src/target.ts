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
  constantLocalSize,
  LoomError,
  optionKeys,
} from '@loom/core';
import { printCProgram } from '@loom/codegen-cfamily';
import { openclDialect } from './dialect.ts';
import { KHR_SUBGROUPS, PTX_SUBGROUPS } from './subgroups.ts';

/** The options openclTarget reads; any other key is an error. */
const OPENCL_TARGET_OPTIONS = optionKeys<OpenCLTargetOptions>()(['float16', 'subgroups', 'registersPerComputeUnit']);

/**
 * What the driver needs beside the code and its kernels' names (it finds the rest in the code):
 * build options the program asks for, or undefined.
 */
export type OpenCLExtra = { readonly buildOptions: readonly string[] } | undefined;

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
  /**
   * The 32-bit registers a compute unit gives its work-groups, where the device's compiler takes a
   * cap on each work-item's (NVIDIA's `-cl-nv-maxrregcount`; the OpenCL device sets it from the
   * driver). With it, a kernel's `minGroupsPerComputeUnit` is honoured: the program is built with
   * each work-item's registers capped at `registersPerComputeUnit / (work-group size x groups)`
   * (rounded down to a multiple of 8, at most 255; the smallest of its kernels' caps, since the
   * option is the program's). Without it such a kernel is refused.
   */
  readonly registersPerComputeUnit?: number;
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
  const registers = options.registersPerComputeUnit;
  if (registers !== undefined && !(Number.isInteger(registers) && registers > 0))
    throw new LoomError(`openclTarget: registersPerComputeUnit must be a positive whole number, got ${registers}`);
  return {
    name: 'opencl',
    vectorTypes: true,
    // a work-item's registers capped by a build option, where the device's compiler takes one
    occupancyHints: registers !== undefined,
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
    // the built-ins return the old value; floats by a compare-and-swap loop that returns it (atomics.ts)
    atomicFetches: { dtypes: OPENCL_ATOMIC_DTYPES },
    globalFences: true,
    // bfloat16 computed in float, and float16 without cl_khr_fp16: their temporaries are floats
    heldInFloat: halfStorage ? ['float16', 'bfloat16'] : ['bfloat16'],
    // image2d_t/image3d_t read through a sampler (images.ts); the device makes them at launch
    images: 'native',
    subgroups: SUBGROUP_SUPPORT[subgroups],
    generate: (program) => spellOpenCL(program, halfStorage, subgroups, registers),
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
  registersPerComputeUnit?: number,
): TargetOutput<OpenCLExtra> {
  // the C printer in OpenCL's dialect (dialect.ts); the names OpenCL reserves are renamed (names.ts)
  const dialect =
    subgroups === 'none'
      ? openclDialect
      : { ...openclDialect, subgroups: subgroups === 'khr' ? KHR_SUBGROUPS : PTX_SUBGROUPS };
  const { code, entryPoints, declarations } = printCProgram(program, dialect, { halfStorage });
  const cap = registerCap(program, registersPerComputeUnit);
  return { code, entryPoints, declarations, extra: cap ? { buildOptions: [`-cl-nv-maxrregcount=${cap}`] } : undefined };
}

/**
 * The registers a work-item may hold so that each kernel's `minGroupsPerComputeUnit` work-groups fit
 * in a compute unit's `registers` together (the smallest over the program's kernels), or undefined
 * where no kernel asks. A cap below 16 registers is refused: no kernel runs in so few.
 */
function registerCap(program: ProgramAst, registers: number | undefined): number | undefined {
  if (registers === undefined) return undefined;
  let cap: number | undefined;
  for (const k of program.kernels) {
    const groups = k.minGroupsPerComputeUnit;
    if (!groups) continue;
    // (the size is a constant: core refuses the request otherwise)
    const items = (constantLocalSize(k.localSize) ?? []).reduce((a, b) => a * b, 1);
    const fits = Math.min(255, 8 * Math.floor(registers / (items * groups) / 8));
    if (fits < 16)
      throw new LoomError(
        `kernel '${k.name}' asks for ${groups} work-groups of ${items} work-items per compute unit (minGroupsPerComputeUnit): ${registers} registers give each work-item ${Math.floor(registers / (items * groups))}, fewer than the 16 a kernel needs`,
      );
    cap = Math.min(cap ?? fits, fits);
  }
  return cap;
}
