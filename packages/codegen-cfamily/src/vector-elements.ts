/**
 * Arrays with a `vec` axis in the C printer: how they are held, and how one element of one is
 * read (a lane of a vector where the index says which, else through a pointer to elements).
 */
import { laneOf, type DType, type Expr } from '@loom/core';
import type { CAddressSpace } from './dialect.ts';
import type { CExpressionPrinter } from './expressions.ts';
import { PRECEDENCE, type Printed } from './precedence.ts';

/** An array with a `vec` axis: its lanes, its address space, and whether it is held packed (3 lanes). */
export interface VectorArray {
  /** Its lanes per vector. */
  readonly lanes: number;
  /** Where it lives (a pointer cast to its elements needs it). */
  readonly space: CAddressSpace;
  /** Held as packed elements, not as vectors (`VectorSpelling.packed`). */
  readonly packed: boolean;
}

/**
 * An element of a vector array: `a[4*i + 2]` → `a[i].s2` when the lane is known;
 * otherwise the vectors are read as a plain array of elements.
 */
export function vectorElement(
  printer: CExpressionPrinter,
  array: string,
  index: Expr,
  { lanes, space }: VectorArray,
  t: DType,
): Printed {
  // a work-item's lanes read through a scalar pointer are not merged into one vector load by
  // NVRTC (0.89x of OpenCL's elementwise add), so the vector index is worked out whenever the
  // index is a sum of multiples of the lanes and a constant, whatever the multiplied terms are
  // (`2048 * (gid(0) * 2 + lid(0) % 2) + 2 * (lid(0) / 2) + 1`: vector `1024 * (...) + lid(0) / 2`, lane 1)
  const split = laneOf(index, lanes);
  if (split)
    return {
      text: `${array}[${printer.print(split.vector, 'int32')}]${printer.dialect.vectors.element(split.lane)}`,
      precedence: PRECEDENCE.postfix,
    };
  return elementThroughPointer(printer, array, index, { space }, t);
}

/** An element of a vector array through a pointer to its elements: `((__global float *) a)[4*i + 2]`. */
export function elementThroughPointer(
  printer: CExpressionPrinter,
  array: string,
  index: Expr,
  { space }: Pick<VectorArray, 'space'>,
  t: DType,
): Printed {
  const pointer = `${printer.dialect.addressSpace(space)}${printer.dialect.type(t)} *`;
  return { text: `((${pointer}) ${array})[${printer.print(index, 'int32')}]`, precedence: PRECEDENCE.postfix };
}
