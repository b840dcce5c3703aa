/**
 * Preprocessing: the passes that turn a kernel as the user and the transformations left it
 * into one that code generation can lower, instruction for instruction. They run in the
 * order of one named list, `PREPROCESS_PASSES`:
 *
 *   lowerIndexof             `indexof(a[i, j])` becomes the element's flat index
 *   defaultValueTypes        untyped value arguments (domain parameters) are int32
 *   inferTypes               temporaries and outputs typed from what is assigned to them
 *   resolveUserCalls         calls of user functions get their signature's types (../functions)
 *   checkTypedKernel         the validity checks on the kernel as written (../check)
 *   checkComplexTypes        the target can store the parts of every complex value
 *   checkCInstructions       the target compiles C, where a cInstruction's code is C
 *   checkGlobalFences        the target orders memory between work-groups, where a kernel fences it
 *   lowerComplex             complex values become their real and imaginary parts
 *   realizeReductions        `sum(k, e)` becomes an accumulator and its update loop
 *   separateArrays           an array's `sep` axis becomes one array per index
 *   placeTemporaries         each `auto` temporary goes to private or local memory
 *   privatizeIlpTemporaries  temporaries written in ILP or vec lanes get one copy per lane
 *   keepWritersWithReaders   a temporary's writer waits for the global barrier all its readers wait for
 *   checkDtypes              every dtype is known and the target can store it
 *
 * Each pass is a function from kernel to kernel, in its own file. With `LOOM_DEBUG` set, the
 * kernel is verified (verify.ts) before the first pass and after each one, and a pass that
 * leaves it broken is named in an InternalError: a pass's bug shows where it is, not three
 * passes later as a puzzling failure of code generation.
 */
import { refuseCalls } from '../program/resolve.ts';
import { withCallStatements } from '../functions/call-statements.ts';
import type { KernelArg, LoopKernel } from '../kernel/model.ts';
import { checkTypedKernel } from '../check/index.ts';
import type { Target } from '../codegen/target.ts';
import { debugMode } from '../runtime/environment.ts';
import { withDefaultValueTypes } from './default-value-types.ts';
import { inferTypes } from './infer-types.ts';
import { lowerIndexof } from './lower-indexof.ts';
import { resolveUserCalls } from '../functions/resolve.ts';
import { lowerComplex } from './lower-complex.ts';
import { separateArrays } from './separate-arrays.ts';
import { realizeReductions } from './realize-reductions.ts';
import { placeTemporaries } from './placement.ts';
import { privatizeIlpTemporaries } from './privatize-ilp.ts';
import { checkComplexTypes, checkDtypes } from './check-dtypes.ts';
import { checkCInstructions } from './check-c-instructions.ts';
import { checkGlobalFences } from './check-global-fences.ts';
import { keepWritersWithReaders } from './writers-after-barriers.ts';
import { verifyKernel, type KernelProperty } from './verify.ts';

/** What a pass may need besides the kernel. */
export interface PreprocessContext {
  /** The target code is generated for, if known (which dtypes it can store). */
  readonly target?: Target;
}

export interface PreprocessPass {
  /** The pass's name, as errors and ARCHITECTURE.md say it. */
  readonly name: string;
  readonly run: (knl: LoopKernel, context: PreprocessContext) => LoopKernel;
  /** What holds of the kernel from this pass on: the verifier checks it after every later pass too. */
  readonly establishes?: readonly KernelProperty[];
}

/** The passes, in the order they run. */
export const PREPROCESS_PASSES: readonly PreprocessPass[] = Object.freeze<PreprocessPass[]>([
  { name: 'lowerIndexof', run: lowerIndexof },
  { name: 'defaultValueTypes', run: withDefaultValueTypes },
  { name: 'inferTypes', run: inferTypes, establishes: ['typed'] },
  { name: 'resolveUserCalls', run: resolveUserCalls },
  { name: 'checkTypedKernel', run: checkedAsTyped },
  { name: 'checkComplexTypes', run: (knl, { target }) => checkComplexTypes(knl, target) },
  { name: 'checkCInstructions', run: (knl, { target }) => checkCInstructions(knl, target) },
  { name: 'checkGlobalFences', run: (knl, { target }) => checkGlobalFences(knl, target) },
  { name: 'lowerComplex', run: lowerComplex },
  // reductions first: the passes after them see one assignee per instruction
  {
    name: 'realizeReductions',
    run: (knl, { target }) => realizeReductions(knl, {}, target),
    establishes: ['reductionsRealized'],
  },
  { name: 'separateArrays', run: separateArrays },
  { name: 'placeTemporaries', run: placeTemporaries, establishes: ['temporariesPlaced'] },
  { name: 'privatizeIlpTemporaries', run: privatizeIlpTemporaries },
  { name: 'keepWritersWithReaders', run: keepWritersWithReaders },
  { name: 'checkDtypes', run: (knl, { target }) => checkDtypes(knl, target) },
]);

/** The validity checks on the kernel as written (../check): they refuse, or let it through as it is. */
function checkedAsTyped(knl: LoopKernel): LoopKernel {
  checkTypedKernel(knl);
  return knl;
}

export interface Preprocessed {
  readonly kernel: LoopKernel;
  /**
   * The arguments as the caller passes them, every dtype known: the kernel's arguments as
   * the last pass that kept their names left them (separateArrays replaces an array with
   * a `sep` axis by its slices, which the caller does not pass one by one).
   */
  readonly callerArgs: readonly KernelArg[];
  /** The same arguments as typed, before any pass stored them otherwise (a complex array as its parts). */
  readonly typedArgs: readonly KernelArg[];
}

export interface RunPassesOptions {
  /** Verify the kernel before and after each pass; default: when `LOOM_DEBUG` is set. */
  readonly verify?: boolean;
}

/** Runs `passes` in order on `knl` (verified after each one in debug mode). */
export function runPasses(
  given: LoopKernel,
  passes: readonly PreprocessPass[] = PREPROCESS_PASSES,
  context: PreprocessContext = {},
  options: RunPassesOptions = {},
): Preprocessed {
  // calls of kernels are inlined from their program before anything runs (program/resolve.ts);
  // a call of a user function on a line of its own is a statement of this kernel
  const knl = withCallStatements(given);
  refuseCalls(knl);
  const verify = options.verify ?? debugMode();
  const established = new Set<KernelProperty>();
  if (verify) verifyKernel(knl, established, 'before preprocessing (by the front end or a transformation)');
  const callerNames = knl.args.map((a) => a.name).join(',');
  let kernel = knl;
  let callerArgs = knl.args;
  let typedArgs: readonly KernelArg[] | undefined;
  for (const pass of passes) {
    kernel = pass.run(kernel, context);
    for (const p of pass.establishes ?? []) established.add(p);
    if (typedArgs === undefined && established.has('typed')) typedArgs = kernel.args;
    if (verify) verifyKernel(kernel, established, `after preprocessing pass '${pass.name}'`);
    if (kernel.args.map((a) => a.name).join(',') === callerNames) callerArgs = kernel.args;
  }
  return { kernel, callerArgs, typedArgs: typedArgs ?? callerArgs };
}

/** The kernel after the passes that code generation needs: typed, reductions realized. */
export function preprocess(knl: LoopKernel, target?: Target): LoopKernel {
  return runPasses(knl, PREPROCESS_PASSES, target ? { target } : {}).kernel;
}
