/**
 * From a kernel to the target-independent program AST, then to code:
 *
 *   preprocessed (../preprocess: typed, checked, reductions realized...) → linearized → checked
 *   → statements (builder.ts) → printed by the target
 *
 * The checks (../check) refuse kernels that would compute wrong numbers.
 */
import { compiledKernel } from '../program/resolve.ts';
import { checkTracing } from './trace.ts';
import type { Program } from '../program/program.ts';
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { CoefficientRangeError, LoomError, UnscheduledInstructionError } from '../errors.ts';
import type { KernelArg, LoopKernel } from '../kernel/model.ts';
import { runPasses, PREPROCESS_PASSES } from '../preprocess/pipeline.ts';
import { calledFunctions } from '../functions/resolve.ts';
import { linearize, scheduledInstructions } from '../schedule/linearize.ts';
import { checkGlobalBarriers, insertBarriers } from '../schedule/barriers.ts';
import { splitAtGlobalBarriers, type HostScheduleItem, type Subkernel } from './subkernels.ts';
import { hostProgramOf } from './host-program.ts';
import { printLinearization } from '../schedule/print-linearization.ts';
import { stringifyKernel } from '../kernel/print.ts';
import type { DeviceFunction, KernelFunction, ProgramAst } from './ast.ts';
import { outlineCallees } from './device-functions.ts';
import { checkSubgroupUses } from './subgroup-uses.ts';
import { checkBarrierUniformity } from './barrier-uniformity.ts';
import { DeviceKernelBuilder } from './builder.ts';
import { constantLocalSize } from './local-size.ts';
import { checkProgramNames, programNames } from './program-names.ts';
import { checkGeneratable, checkLinearizedKernel } from '../check/index.ts';
import { asyncCopyProblem } from '../transform/async-copies.ts';
import type { ExtraOf, Target } from './target.ts';
import { targetFacts, type TargetFacts } from './target-facts.ts';
import { describeProgram, hostArgument, type GeneratedCode } from './generated.ts';

/** The options generateCode reads; any other key is an error. */
const CODEGEN_OPTIONS = optionKeys<CodegenOptions>()(['checkBounds']);

/** Options of `buildProgram` and `generateCode`. */
export interface CodegenOptions {
  /**
   * Guards that fail also record themselves in a flag buffer, which `run` reads back
   * and reports as a LoomError (access-guards.ts). Off, the guards only keep accesses
   * in bounds, and the code takes no extra buffer.
   */
  readonly checkBounds?: boolean;
}

/**
 * The kernel's code for `target`, with what running it takes (generated.ts). Every input
 * array's dtype must be known (`addDtypes`); outputs' are inferred.
 */
export function generateCode<T extends Target>(
  knl: LoopKernel | Program,
  target: T,
  options?: CodegenOptions,
): GeneratedCode<ExtraOf<T>>;
// (the signature above types a call with a union of targets as the union of what they tell)
export function generateCode<Extra>(
  program: LoopKernel | Program,
  target: Target<Extra>,
  options: CodegenOptions = {},
): GeneratedCode<Extra> {
  const knl = compiledKernel(program);
  checkOptionKeys('generateCode', options, CODEGEN_OPTIONS);
  try {
    const { program, args, typedArgs } = build(knl, target, options);
    return describeProgram(
      target.name,
      program,
      target.generate(program),
      args.map((a, k) => hostArgument(a, typedArgs[k].dtype)),
    );
  } catch (e) {
    // the set arithmetic does not know which kernel it works for: say it here
    if (e instanceof CoefficientRangeError && e.kernel === undefined)
      throw new CoefficientRangeError(e.value, knl.name);
    throw e;
  }
}

/** Builds the target-independent program AST of a kernel (scheduling, lowering, guards): what `generateCode` hands to a target. */
export function buildProgram(program: LoopKernel | Program, target?: Target, options: CodegenOptions = {}): ProgramAst {
  const knl = compiledKernel(program);
  checkOptionKeys('buildProgram', options, CODEGEN_OPTIONS);
  return build(knl, target, options).program;
}

/**
 * The program's kernels with their parameters, grids and declarations but no statements: what
 * the device's limits (`checkProgramLimits`) and a cost model read, at about half the cost of
 * `buildProgram`. The kernel passes every check `buildProgram` makes before building statements;
 * what only building them finds (a vector width the target lacks, a tensor tile's layout) is
 * not found, so a kernel shaped here may still be refused by `buildProgram`.
 * ```ts
 * const shape = programShape(candidate, device.target);
 * checkProgramLimits(shape, device.limits, device.name);
 * ```
 */
export function programShape(program: LoopKernel | Program, target?: Target): ProgramAst {
  return build(compiledKernel(program), target, {}, false).program;
}

function build(
  knl: LoopKernel,
  target: Target | undefined,
  options: CodegenOptions,
  statements = true,
): { program: ProgramAst; args: readonly KernelArg[]; typedArgs: readonly KernelArg[] } {
  const { kernel, subkernels, host, args, typedArgs } = linearized(knl, target);
  checkGeneratable(kernel);
  const facts = target && targetFacts(target);
  checkTracing(kernel, target, facts);
  checkAsyncCopies(kernel, target, facts);
  const builder = new DeviceKernelBuilder(kernel, {
    ...options,
    vectorTypes: facts?.vectorTypes ?? false,
    vectorLanes: facts?.vectorLanes,
    images: imageSupport(kernel, target, facts),
    ...(target && facts
      ? {
          runtimeSizedArrays: {
            spaces: facts.runtimeSizedArrays,
            target: target.name,
            localArguments: facts.localArraysAsArguments,
          },
          matrix: { support: facts.matrixInstructions, target: target.name },
        }
      : {}),
  });
  const { bulkRelease: release, warpSpecialized } = kernel.options;
  const built = withOccupancyRequest(
    kernel,
    subkernels.map((sub) => builder.build(sub.schedule, sub.name, sub.hostInames, { statements })),
    target,
    facts,
  ).map((k) => ({
    ...k,
    ...(release === 'auto' ? {} : { bulkRelease: release }),
    ...(warpSpecialized ? { warpSpecialized: true as const } : {}),
  }));
  const { kernels, deviceFunctions } = asDeviceFunctions(kernel, built, facts);
  checkSubgroupUses({ kernels, deviceFunctions }, facts, target?.name);
  // a group whose work-items run one after another checks this as it runs them (serialize-work-items.ts)
  if (statements && !facts?.sequentialWorkItems) checkBarrierUniformity(kernels);
  const boundsChecks = builder.boundsChecks;
  const functions = calledFunctions(kernel);
  const program: ProgramAst = {
    kernels,
    ...(deviceFunctions.length ? { deviceFunctions } : {}),
    ...(kernel.preambles.length ? { preambles: preambleCode(kernel) } : {}),
    host: hostProgramOf(kernel, host),
    ...(boundsChecks ? { boundsChecks } : {}),
    ...(kernel.options.fusedMultiplyAdd ? { fusedMultiplyAdd: true } : {}),
    ...(functions.size ? { functions } : {}),
  };
  checkProgramNames(program);
  return { program, args, typedArgs };
}

/**
 * The callees inlined when the program was compiled made device functions where the target
 * calls functions (device-functions.ts); elsewhere they stay inlined.
 */
function asDeviceFunctions(
  knl: LoopKernel,
  kernels: readonly KernelFunction[],
  facts: TargetFacts | undefined,
): { kernels: readonly KernelFunction[]; deviceFunctions: readonly DeviceFunction[] } {
  const calls = new Map(knl.instructions.flatMap((i) => (i.inlinedFrom ? [[i.id, i.inlinedFrom] as const] : [])));
  if (!facts?.deviceFunctions || !calls.size) return { kernels, deviceFunctions: [] };
  const taken = programNames({ kernels });
  const { kernels: outlined, functions } = outlineCallees(kernels, calls, facts.deviceFunctions, taken);
  return { kernels: outlined, deviceFunctions: functions };
}

/** The kernel's preambles' code in the order of their keys (a stable sort: equal keys as written), each once. */
function preambleCode(knl: LoopKernel): string[] {
  const sorted = [...knl.preambles].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return [...new Set(sorted.map(([, code]) => code))];
}

/**
 * Whether the kernel's image arguments are read as images (the target's `images` fact):
 * a target that refuses them says why here, naming the arguments, before any code is built.
 */
function imageSupport(knl: LoopKernel, target: Target | undefined, facts: TargetFacts | undefined): boolean {
  const images = knl.args.filter((a) => a.kind === 'image').map((a) => `'${a.name}'`);
  if (!images.length || !target || !facts) return false;
  const support = facts.images;
  if (typeof support === 'object')
    throw new LoomError(
      `${target.name}: image argument${images.length > 1 ? 's' : ''} ${images.join(', ')}: ${support.refused}`,
    );
  return support === 'native';
}

/**
 * The preprocessed kernel and its device kernels' schedules, barriers included
 * (loopy's get_one_linearized_kernel).
 */
export function linearizeKernel(knl: LoopKernel, target?: Target): LinearizedKernel {
  const { kernel, subkernels, host } = linearized(knl, target);
  return { kernel, subkernels, host };
}

/**
 * The preprocessed kernel, its device kernels, and the host schedule that launches them
 * (with host loops where a global barrier sits inside a sequential loop).
 */
export interface LinearizedKernel {
  readonly kernel: LoopKernel;
  readonly subkernels: Subkernel[];
  readonly host: readonly HostScheduleItem[];
}

function linearized(
  knl: LoopKernel,
  target: Target | undefined,
): LinearizedKernel & { args: readonly KernelArg[]; typedArgs: readonly KernelArg[] } {
  const { kernel, callerArgs: args, typedArgs } = runPasses(knl, PREPROCESS_PASSES, target ? { target } : {});
  const schedule = linearize(kernel);
  checkGlobalBarriers(kernel, schedule);
  const split = splitAtGlobalBarriers(kernel, schedule);
  checkLinearizedKernel(kernel, split.subkernels);
  // (before barriers are inserted: they replace a barrier instruction by a barrier of no id)
  checkEveryInstructionScheduled(kernel, split.subkernels, split.host);
  const subkernels = split.subkernels.map((sub) => ({ ...sub, schedule: insertBarriers(kernel, sub.schedule) }));
  return { kernel, subkernels, host: split.host, args, typedArgs };
}

/** loopy's check that no instruction is left out of the schedules: code from them would skip it. */
function checkEveryInstructionScheduled(
  kernel: LoopKernel,
  subkernels: readonly Subkernel[],
  host: readonly HostScheduleItem[],
): void {
  // a global barrier is scheduled on the host, between launches
  const hostBarriers = (items: readonly HostScheduleItem[]): string[] =>
    items.flatMap((it) => (it.kind === 'barrier' ? [it.id] : it.kind === 'loop' ? hostBarriers(it.body) : []));
  const scheduled = new Set([
    ...subkernels.flatMap((sub) => scheduledInstructions(sub.schedule)),
    ...hostBarriers(host),
  ]);
  const missing = kernel.instructions.filter((insn) => !scheduled.has(insn.id)).map((insn) => insn.id);
  if (missing.length)
    throw new UnscheduledInstructionError(
      `kernel '${kernel.name}': the instructions ${missing.join(', ')} are in no schedule`,
    );
}

/** loopy's `print(linearized kernel)`: the kernel view followed by its LINEARIZATION. */
export function stringifyLinearized(knl: LoopKernel): string {
  const { kernel, subkernels, host } = linearizeKernel(knl);
  const view = stringifyKernel(kernel).split('\n');
  const rule = view[view.length - 1];
  return [...view.slice(0, -1), rule, 'LINEARIZATION:', ...printLinearization(kernel, { subkernels, host }), rule].join(
    '\n',
  );
}

/** `the cuda target`, or what code generated without one is, for the messages of a refusal. */
const targetPhrase = (target: Target | undefined) =>
  target ? `the ${target.name} target` : 'code generated without a target';

/**
 * Asynchronous copies (`{async}` instructions) only where each is a plain copy into local memory
 * and the target can issue them: a LoomError naming the first that cannot be, before any code.
 */
function checkAsyncCopies(knl: LoopKernel, target: Target | undefined, facts: TargetFacts | undefined): void {
  for (const insn of knl.instructions) {
    if (!insn.asyncCopy) continue;
    const problem = asyncCopyProblem(knl, insn);
    if (problem) throw new LoomError(`instruction '${insn.id}' is an asynchronous copy, but it ${problem}`, insn.span);
    if (!target || !facts?.asyncCopies)
      throw new LoomError(
        `instruction '${insn.id}' is an asynchronous copy, which ${targetPhrase(target)} cannot issue (CUDA can, as cp.async); generate the kernel without asyncCopies here`,
        insn.span,
      );
    if (insn.bulkCopy && !facts.bulkCopies)
      throw new LoomError(
        `instruction '${insn.id}' is a bulk copy, which ${targetPhrase(target)} cannot issue (CUDA can on sm_90, with the tensor memory accelerator); fill the tile with asyncCopies here`,
        insn.span,
      );
  }
}

/**
 * The device kernels with the kernel option `minGroupsPerComputeUnit` passed on, where the target
 * can pass it to its compiler and the work-group size is a constant; a LoomError elsewhere (a
 * request it cannot honour is never dropped).
 */
function withOccupancyRequest(
  knl: LoopKernel,
  kernels: readonly KernelFunction[],
  target: Target | undefined,
  facts: TargetFacts | undefined,
): KernelFunction[] {
  const groups = knl.options.minGroupsPerComputeUnit;
  if (!groups) return [...kernels];
  if (!target || !facts?.occupancyHints)
    throw new LoomError(
      `kernel '${knl.name}' asks for ${groups} work-groups per compute unit (minGroupsPerComputeUnit), which ${targetPhrase(target)} cannot ask its compiler for (CUDA can); set it to 0 here`,
    );
  return kernels.map((k) => {
    if (!constantLocalSize(k.localSize))
      throw new LoomError(
        `kernel '${k.name}' asks for ${groups} work-groups per compute unit (minGroupsPerComputeUnit), but its work-group size is known only at launch; fix the sizes its local axes run over`,
      );
    return { ...k, minGroupsPerComputeUnit: groups };
  });
}
