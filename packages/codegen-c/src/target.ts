/**
 * `cTarget()`: the program AST as C99 for the C device. Each kernel's work-groups run one after
 * another on a CPU thread, their work-items serialized between local barriers (core's
 * `serializeWorkItems`); every kernel gets a launcher that runs its grid (launchers.ts).
 *
 * The kernels' statements and expressions are spelled, for now, by the OpenCL C printer of
 * `@loom/codegen-opencl` (OpenCL C is C99 with a few more words, which prelude.ts defines), so
 * the C device computes exactly what the OpenCL one does, helper for helper. When the C-family
 * printer lands (issue 26, item 2) this becomes a C dialect of it and the prelude shrinks to
 * what C lacks. Until then the generated code keeps OpenCL's spellings (`uint`, `__global`).
 */
import {
  byteSize,
  checkOptionKeys,
  InternalError,
  LoomError,
  optionKeys,
  serializeWorkItems,
  mapStmts,
  statementsOfKind,
  type KernelFunction,
  type ProgramAst,
  type Target,
  type TargetOutput,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { C_PRELUDE } from './prelude.ts';
import { GROUP_IDS, printLauncher } from './launchers.ts';

/** The C target tells its device nothing beyond the code and its kernels' names. */
export type CExtra = undefined;

/** Options of `cTarget` (none yet: an object, so that options can come without breaking callers). */
export type CTargetOptions = Readonly<Record<never, never>>;

const C_TARGET_OPTIONS = optionKeys<CTargetOptions>()([]);

/**
 * The memory one work-group's arrays may take: they live on the stack of the thread that runs
 * the group, where a private array of every work-item (serialization's context arrays) adds up.
 */
export const MAX_GROUP_STACK_BYTES = 4 * 1024 * 1024;

/**
 * The C target: spells the program AST as C99 that `cDevice()` compiles and runs.
 * ```ts
 * console.log(generateCode(knl, cTarget()).code);
 * ```
 */
export function cTarget(options: CTargetOptions = {}): Target<CExtra> {
  checkOptionKeys('cTarget', options, C_TARGET_OPTIONS);
  // no vector types in C: `vec` loops are unrolled lane by lane (core's vectorize.ts)
  return { name: 'c', vectorTypes: false, generate: spellC };
}

/** The C source of a program AST. */
export function generateC(program: ProgramAst): string {
  return spellC(program).code;
}

/** How OpenCL C spells a kernel's header: its work-group size attribute, its name, its parameters. */
const KERNEL_HEADER = /^__kernel void __attribute__ \(\(reqd_work_group_size\(\d+, \d+, \d+\)\)\) (\w+)\((.*)\)$/;

function spellC(program: ProgramAst): TargetOutput<CExtra> {
  const kernels = program.kernels.map((k) => checkGroupStack(serializeWorkItems(withoutVectorArrays(k))));
  const serialized: ProgramAst = { ...program, kernels };
  // float16 as OpenCL stores it without cl_khr_fp16: half bits in memory, float arithmetic
  const opencl = openclTarget({ float16: 'storage' }).generate(serialized);
  let headers = 0;
  const lines = opencl.code.split('\n').flatMap((line) => {
    // FP_CONTRACT OFF is the compiler flag -ffp-contract=off; extensions are OpenCL's business
    if (line.startsWith('#pragma OPENCL')) return [];
    // helpers are local to the library: C99's plain `inline` would want an external definition too
    if (line.startsWith('inline ')) return [`static ${line}`];
    const header = KERNEL_HEADER.exec(line);
    if (!header) return [line];
    headers++;
    const params = header[2] ? `${header[2]}, ` : '';
    return [`static void ${header[1]}(${params}int const *__restrict__ ${GROUP_IDS})`];
  });
  if (headers !== kernels.length) throw new InternalError(`the C target found ${headers} kernel headers for ${kernels.length} kernels`);
  const launchers = kernels.map((k, i) => printLauncher(k, opencl.entryPoints[i]));
  const code = [C_PRELUDE, '', ...lines, ...launchers.join('\n\n').split('\n'), ''].join('\n');
  return { code, entryPoints: opencl.entryPoints, extra: undefined };
}

/**
 * `k` with its arrays of vectors as arrays of their lanes: C has no vector types, so no
 * statement reads a whole vector (the `vec` loops were unrolled), and the lanes of vector i
 * are elements `lanes * i + k`, the index every access already has.
 */
function withoutVectorArrays(k: KernelFunction): KernelFunction {
  const params = k.params.map(({ vectorWidth: _, ...p }) => p);
  const body = mapStmts(k.body, { stmt: (s) => (s.kind === 'declare' && s.vectorWidth !== undefined ? { ...s, vectorWidth: undefined } : s) });
  return { ...k, params, body };
}

/** Refuses a kernel whose work-group would not fit the stack of the thread that runs it. */
function checkGroupStack(k: KernelFunction): KernelFunction {
  const bytes = statementsOfKind(k.body, 'declare').reduce((sum, d) => sum + (d.length ?? 1) * byteSize(d.dtype), 0);
  if (bytes > MAX_GROUP_STACK_BYTES) {
    throw new LoomError(
      `kernel '${k.name}': one work-group of ${k.localSize.join(' x ')} work-items needs ${bytes} bytes of arrays on the C device (local memory, and a copy of ` +
        `each private array kept across a barrier for every work-item), more than the ${MAX_GROUP_STACK_BYTES} a thread's stack is given: use smaller work-groups or fewer private values`,
    );
  }
  return k;
}
