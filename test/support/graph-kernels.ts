/**
 * Kernels for `loom graph` (test/cli-graph.test.ts): the tutorial's transpose-and-double as
 * the tutorial draws it, typed so that its loops are drawn, and a matrix-vector product.
 */
import { addDtypes } from '@loom/core';
import { tutorialKernels } from './golden-kernels.ts';

/** The tutorial's incorrect transpose-and-double (its dep-graph-incorrect.svg). */
export const transposeAndDbl = addDtypes(tutorialKernels.wrongTransposeAndDouble(), { a: 'float32' });

/** y = A x, a reduction: drawn as linearized (the accumulator's initialization and update). */
export function matvecKernel() {
  return addDtypes(tutorialKernels.matvec(), { A: 'float32', x: 'float32' });
}
