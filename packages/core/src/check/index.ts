/**
 * Validity checks: kernels that would compute wrong numbers (or different numbers on
 * different devices) are refused before any code is generated, each with a
 * `KernelCheckError` naming the kernel, the instruction, the inames and a fix.
 * Modelled on loopy's `check` module; the checks run in two groups, at the points of
 * code generation where what they need is known:
 *
 *  - on the typed kernel as the user wrote it (reductions not yet loops);
 *  - on the preprocessed kernel (reductions realized, temporaries placed, ILP
 *    temporaries privatized), with its schedule split into device kernels;
 *  - before the code is built (`checkGeneratable`).
 */
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { Subkernel } from '../schedule/print-linearization.ts';
import { checkConstantExtents } from './constant-extents.ts';
import { checkHardwareAxesUsedOnce } from './hardware-axes.ts';
import { checkIntegerIndices } from './integer-indices.ts';
import { checkNoReductionOverVecInames, checkReductionInamesNotSurrounding } from './reduction-inames.ts';
import { checkWriteRaces } from './write-races.ts';
import { checkLocalTemporaryWrites } from './local-writes.ts';
import { checkPrivateTemporaryReads } from './private-reads.ts';
import { checkVariableAccessOrdered } from './access-ordering.ts';
import { checkImageArguments } from '../kernel/images.ts';
import { checkAtomicFetches } from './atomic-fetches.ts';

export { KernelCheckError } from './check-error.ts';

/** loopy's pre-schedule checks that look at instructions as written. */
export function checkTypedKernel(knl: LoopKernel): void {
  checkIndexDtype(knl);
  checkIntegerIndices(knl);
  checkHardwareAxesUsedOnce(knl);
  checkReductionInamesNotSurrounding(knl);
  checkNoReductionOverVecInames(knl);
  checkImageArguments(knl);
  checkAtomicFetches(knl);
}

/** Every target's code indexes in int32 (runtime/limits.ts checks each launch against it), so int64 would be a promise unkept. */
function checkIndexDtype(knl: LoopKernel): void {
  if (knl.indexDtype !== 'int32')
    throw new LoomError(
      `kernel '${knl.name}' asks for ${knl.indexDtype} indices (indexDtype): Loom's targets index in int32 only; make it with indexDtype 'int32'`,
    );
}

/**
 * Checks of what code generation itself needs, made where loopy makes them (its code
 * generation, not its linearization): an `ilp` or `unr` iname of parametric length
 * linearizes, with its write-race warning, and is refused only here.
 */
export function checkGeneratable(knl: LoopKernel): void {
  checkConstantExtents(knl);
}

/** Checks that need the final instructions and temporaries, and the device kernels. */
export function checkLinearizedKernel(knl: LoopKernel, subkernels: readonly Subkernel[]): void {
  if (knl.options.enforceVariableAccessOrdered) checkVariableAccessOrdered(knl);
  checkWriteRaces(knl);
  checkLocalTemporaryWrites(knl, subkernels);
  checkPrivateTemporaryReads(knl);
}
