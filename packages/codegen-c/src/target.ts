/**
 * `cTarget()`: the program AST as C99 for the C device. Each kernel's work-groups run one after
 * another on a CPU thread (the groups of a launch in parallel, with OpenMP), their work-items
 * serialized between local barriers (core's `serializeWorkItems`); the kernels are then printed
 * by the C-family printer in C's dialect (dialect.ts), and every kernel gets a launcher that
 * runs its grid (launchers.ts):
 *
 *   static void loopy_kernel(float const *__restrict__ a, float *__restrict__ out, int const n, int const *__restrict__ loom_group_ids_int32)
 *   {
 *     for (int i = 0; i <= -1 + n; ++i)
 *       out[i] = 2.0f * a[i];
 *   }
 */
import {
  byteSize,
  checkOptionKeys,
  COMMON_LIMITS,
  LoomError,
  optionKeys,
  printLocalSize,
  type Expr,
  serializeWorkItems,
  mapStmts,
  statementsOfKind,
  type DeviceFunction,
  type KernelFunction,
  type ProgramAst,
  type Target,
  type TargetOutput,
} from '@loom/core';
import { printCProgram } from '@loom/codegen-cfamily';
import { C_ATOMIC_DTYPES } from './atomics.ts';
import { cDialect } from './dialect.ts';
import { launcherDeclaration, printLauncher } from './launchers.ts';

/**
 * What the C target tells its device: the bytes of arrays one work-group of each kernel puts
 * on the stack of the thread that runs it (local memory, and the per-work-item copies of
 * private arrays that serialization keeps across barriers), checked when it compiles, after the
 * limits every device checks.
 */
export interface CExtra {
  readonly groupStackBytes: readonly number[];
}

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
  return {
    name: 'c',
    // no vector types in C: `vec` loops are unrolled lane by lane (core's vectorize.ts)
    vectorTypes: false,
    // a group's work-items are loops of one thread (serializeWorkItems): its subgroup is one
    // work-item, the default of work-items that run one after another
    sequentialWorkItems: true,
    functionDialects: cDialect.functionDialects,
    // __atomic builtins and compare-and-swap loops (atomics.ts): the groups run in parallel
    // C-family: a cInstruction's C code is printed as given
    cInstructions: true,
    // printf, for traceAssignments
    prints: true,
    // a function reads no work-item id of its own: the ids are the serialized group's loop
    // counters, its local barriers would cut the kernel's work-item loops, and a private array
    // of the caller's may become one copy per work-item after the function is made
    deviceFunctions: { arrays: 'pointers', workItemIds: 'passed', barriers: false, privateArrays: false },
    // C99 variable-length arrays: a work-item's, and a work-group's on the thread that runs it
    runtimeSizedArrays: ['private', 'local'],
    atomicDTypes: C_ATOMIC_DTYPES,
    atomicFetches: { dtypes: C_ATOMIC_DTYPES },
    globalFences: true,
    // float16 and bfloat16 computed in float: their temporaries are floats (half-storage.ts)
    heldInFloat: ['float16', 'bfloat16'],
    generate: spellC,
  };
}

/** The C source of a program AST. */
export function generateC(program: ProgramAst): string {
  return spellC(program).code;
}

function spellC(program: ProgramAst): TargetOutput<CExtra> {
  // a work-group sized at launch has at most the C device's work-items (checked at each launch)
  const kernels = program.kernels.map((k) =>
    serializeWorkItems(withoutVectorArrays(k), { maxWorkGroupSize: COMMON_LIMITS.maxWorkGroupSize }),
  );
  // float16 is stored as its bits and computed in float (half-storage.ts)
  // a callee's function reads the work-item ids it is passed: the kernel's loop counters
  const deviceFunctions = program.deviceFunctions?.map(withoutVectorArrays);
  const { code, entryPoints } = printCProgram(
    { ...program, kernels, ...(deviceFunctions ? { deviceFunctions } : {}) },
    cDialect,
    { halfStorage: true },
  );
  const launchers = kernels.map((k, i) => printLauncher(k, entryPoints[i]));
  return {
    code: `${code}\n${launchers.join('\n\n')}\n`,
    entryPoints,
    declarations: entryPoints.map((e) => `${launcherDeclaration(e)};`),
    extra: { groupStackBytes: kernels.map(groupStackBytes) },
  };
}

/**
 * `k` with its arrays of vectors as arrays of their lanes: C has no vector types, so no
 * statement reads a whole vector (the `vec` loops were unrolled), and the lanes of vector i
 * are elements `lanes * i + k`, the index every access already has.
 */
function withoutVectorArrays<F extends KernelFunction | DeviceFunction>(k: F): F {
  const params = k.params.map((p) =>
    p.kind !== 'private' && p.vectorWidth !== undefined ? { ...p, vectorWidth: undefined } : p,
  );
  const body = mapStmts(k.body, {
    stmt: (s) => (s.kind === 'declare' && s.vectorWidth !== undefined ? { ...s, vectorWidth: undefined } : s),
  });
  return { ...k, params, body };
}

/**
 * The bytes of the arrays a serialized kernel declares: one work-group's, on one thread's stack.
 * Arrays sized at launch are left out: each launch checks them against the device's local and
 * private memory (checkGridLimits), which keeps them far below the stack.
 */
function groupStackBytes(k: KernelFunction): number {
  return statementsOfKind(k.body, 'declare').reduce(
    (sum, d) => sum + (typeof d.length === 'number' ? d.length : d.length === undefined ? 1 : 0) * byteSize(d.dtype),
    0,
  );
}

/** Refuses a kernel whose work-group would not fit the stack of the thread that runs it. */
export function checkGroupStack(name: string, localSize: readonly Expr[], bytes: number): void {
  if (bytes > MAX_GROUP_STACK_BYTES) {
    throw new LoomError(
      `kernel '${name}': one work-group of ${printLocalSize(localSize)} work-items needs ${bytes} bytes of arrays on the C device (local memory, and a copy of ` +
        `each private array kept across a barrier for every work-item), more than the ${MAX_GROUP_STACK_BYTES} a thread's stack is given: use smaller work-groups or fewer private values`,
    );
  }
}
