/**
 * From a kernel to the target-independent program AST, then to code:
 *
 *   types inferred → checked → complex values lowered to their parts → reductions realized →
 *   linearized → checked → statements (builder.ts)
 *
 * The checks (../check) refuse kernels that would compute wrong numbers.
 */
import { CoefficientRangeError, LoomError } from '../errors.ts';
import type { KernelArg, LoopKernel } from '../kernel/model.ts';
import { realizeReductions } from '../kernel/realize-reductions.ts';
import { lowerComplex } from '../kernel/lower-complex.ts';
import { calledFunctions, resolveUserCalls } from '../functions/resolve.ts';
import { complexPart, isComplex } from '../dtypes.ts';
import { INDEX_DTYPE, inferTypes } from '../kernel/type-inference.ts';
import { linearize } from '../schedule/linearize.ts';
import { insertBarriers } from '../schedule/barriers.ts';
import { placeTemporaries } from '../kernel/placement.ts';
import { splitAtGlobalBarriers, type Subkernel } from './subkernels.ts';
import { separateArrays } from './separate-arrays.ts';
import { privatizeIlpTemporaries } from '../kernel/privatize-ilp.ts';
import { printLinearization } from '../schedule/print-linearization.ts';
import { stringifyKernel } from '../kernel/print.ts';
import type { ProgramAst } from './ast.ts';
import { DeviceKernelBuilder } from './builder.ts';
import { checkProgramNames } from './program-names.ts';
import { checkLinearizedKernel, checkTypedKernel } from '../check/index.ts';
import type { ExtraOf, Target } from './target.ts';
import { describeProgram, hostArgument, type GeneratedCode } from './generated.ts';

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
export function generateCode<T extends Target>(knl: LoopKernel, target: T, options?: CodegenOptions): GeneratedCode<ExtraOf<T>>;
// (the signature above types a call with a union of targets as the union of what they tell)
export function generateCode<Extra>(knl: LoopKernel, target: Target<Extra>, options: CodegenOptions = {}): GeneratedCode<Extra> {
  try {
    const { program, args, typedArgs } = build(knl, target, options);
    return describeProgram(target.name, program, target.generate(program), args.map((a, k) => hostArgument(a, typedArgs[k].dtype)));
  } catch (e) {
    // the set arithmetic does not know which kernel it works for: say it here
    if (e instanceof CoefficientRangeError && e.kernel === undefined) throw new CoefficientRangeError(e.value, knl.name);
    throw e;
  }
}

/** The kernel after the passes that code generation needs: typed, reductions realized. */
export function preprocess(knl: LoopKernel, target?: Target): LoopKernel {
  return prepare(knl, target).kernel;
}

/**
 * The preprocessed kernel, and its arguments as stored before `sep` axes split them (what the
 * caller passes: a complex array as its parts).
 */
function prepare(knl: LoopKernel, target: Target | undefined): { kernel: LoopKernel; args: readonly KernelArg[]; typedArgs: readonly KernelArg[] } {
  const typed = resolveUserCalls(inferTypes(withDefaultValueTypes(knl)));
  checkTypedKernel(typed);
  checkComplexTypes(typed, target);
  const real = lowerComplex(typed);
  const prepared = privatizeIlpTemporaries(placeTemporaries(realizeReductions(separateArrays(real))));
  checkTypes(prepared, target);
  return { kernel: prepared, args: real.args, typedArgs: typed.args };
}

export function buildProgram(knl: LoopKernel, target?: Target, options: CodegenOptions = {}): ProgramAst {
  return build(knl, target, options).program;
}

function build(knl: LoopKernel, target: Target | undefined, options: CodegenOptions): { program: ProgramAst; args: readonly KernelArg[]; typedArgs: readonly KernelArg[] } {
  const { kernel, subkernels, args, typedArgs } = linearized(knl, target);
  const builder = new DeviceKernelBuilder(kernel, options);
  const kernels = subkernels.map((sub) => builder.build(sub.schedule, sub.name));
  const boundsChecks = builder.boundsChecks;
  const functions = calledFunctions(kernel);
  const program: ProgramAst = {
    kernels,
    ...(boundsChecks ? { boundsChecks } : {}),
    ...(kernel.options.fusedMultiplyAdd ? { fusedMultiplyAdd: true } : {}),
    ...(functions.size ? { functions } : {}),
  };
  checkProgramNames(program);
  return { program, args, typedArgs };
}

/**
 * The preprocessed kernel and its device kernels' schedules, barriers included
 * (loopy's get_one_linearized_kernel).
 */
export function linearizeKernel(knl: LoopKernel, target?: Target): { kernel: LoopKernel; subkernels: Subkernel[] } {
  const { kernel, subkernels } = linearized(knl, target);
  return { kernel, subkernels };
}

function linearized(knl: LoopKernel, target: Target | undefined): { kernel: LoopKernel; subkernels: Subkernel[]; args: readonly KernelArg[]; typedArgs: readonly KernelArg[] } {
  const { kernel, args, typedArgs } = prepare(knl, target);
  const split = splitAtGlobalBarriers(kernel, linearize(kernel));
  checkLinearizedKernel(kernel, split);
  const subkernels = split.map((sub) => ({ ...sub, schedule: insertBarriers(kernel, sub.schedule) }));
  return { kernel, subkernels, args, typedArgs };
}

/** loopy's `print(linearized kernel)`: the kernel view followed by its LINEARIZATION. */
export function stringifyLinearized(knl: LoopKernel): string {
  const { kernel, subkernels } = linearizeKernel(knl);
  const view = stringifyKernel(kernel).split('\n');
  const rule = view[view.length - 1];
  return [...view.slice(0, -1), rule, 'LINEARIZATION:', ...printLinearization(kernel, subkernels), rule].join('\n');
}

/** Domain parameters and other untyped value arguments are int32, as in loopy's generated code. */
function withDefaultValueTypes(knl: LoopKernel): LoopKernel {
  if (!knl.args.some((a) => a.kind === 'value' && a.dtype === undefined)) return knl;
  return knl.with({ args: knl.args.map((a) => (a.kind === 'value' && a.dtype === undefined ? { ...a, dtype: INDEX_DTYPE } : a)) });
}

/** Complex arguments and temporaries need their parts' dtype on the target (WGSL has no complex128: no float64). */
function checkComplexTypes(knl: LoopKernel, target: Target | undefined): void {
  const named = [...knl.args.map((a) => ['argument', a] as const), ...[...knl.temporaries.values()].map((t) => ['temporary', t] as const)];
  for (const [what, { name, dtype }] of named) {
    if (!dtype || !isComplex(dtype)) continue;
    const why = target?.unsupportedDType?.(complexPart(dtype));
    if (why) throw new LoomError(`${what} '${name}' has dtype ${dtype}, whose parts are ${complexPart(dtype)}: ${why}`);
  }
}

function checkTypes(knl: LoopKernel, target: Target | undefined): void {
  for (const arg of knl.args) {
    if (arg.dtype === undefined) {
      throw new LoomError(`the dtype of argument '${arg.name}' is not known: pass data for it when running, or use addDtypes(knl, { ${arg.name}: 'float32' })`);
    }
    const why = target?.unsupportedDType?.(arg.dtype);
    if (why) throw new LoomError(`argument '${arg.name}' has dtype ${arg.dtype}: ${why}`);
  }
  for (const t of knl.temporaries.values()) {
    const why = t.dtype && target?.unsupportedDType?.(t.dtype);
    if (why) throw new LoomError(`temporary '${t.name}' has dtype ${t.dtype}: ${why}`);
  }
}
