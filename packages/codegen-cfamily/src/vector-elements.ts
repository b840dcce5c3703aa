/**
 * Arrays with a `vec` axis in the C printer: how they are held, and how one element of one is
 * read (a lane of a vector where the index says which, else through a pointer to elements).
 */
import { expr as E, isHardwareId, Linear, type DType, type Expr } from '@loom/core';
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
  // the hardware ids (`gid(1)`, `lid(0)`) are atoms of the affine index: named for toLinear,
  // put back after. Without them a work-item's lanes would be read through a scalar pointer,
  // which NVRTC does not merge into one vector load (0.89x of OpenCL's elementwise add)
  const ids = new Map<string, Expr>();
  const named = E.mapExpr(index, (x) => {
    if (!isHardwareId(x)) return x;
    const name = `\u0000${E.printExpr(x)}`;
    ids.set(name, x);
    return E.variable(name);
  });
  const lin = E.toLinear(named);
  const lane = lin ? ((lin.constant % lanes) + lanes) % lanes : -1;
  if (lin && [...lin.coeffs.values()].every((c) => c % lanes === 0)) {
    const vectorIndex = E.substitute(
      E.fromLinear(
        Linear.of(
          [...lin.coeffs].map(([n, c]) => [n, c / lanes] as const),
          (lin.constant - lane) / lanes,
        ),
      ),
      ids,
    );
    return {
      text: `${array}[${printer.print(vectorIndex, 'int32')}]${printer.dialect.vectors.element(lane)}`,
      precedence: PRECEDENCE.postfix,
    };
  }
  const pointer = `${printer.dialect.addressSpace(space)}${printer.dialect.type(t)} *`;
  return { text: `((${pointer}) ${array})[${printer.print(index, 'int32')}]`, precedence: PRECEDENCE.postfix };
}
