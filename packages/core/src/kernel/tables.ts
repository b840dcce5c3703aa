/** Constant tables: read-only temporaries with an initializer (`temporaryVariable`'s). */
import type { Expr } from '../expr/nodes.ts';
import type { LoopKernel } from './model.ts';

/**
 * The shape of a constant table (a read-only temporary with an initializer, whose shape is
 * constant), or undefined for any other name: its accesses are checked before a launch as
 * arguments' are (runtime/bounds-check.ts), so that `tab[i + 2]` past its end is a LoomError
 * there, not a 0 read on some devices.
 */
export function tableShape(knl: LoopKernel, name: string): readonly number[] | undefined {
  const t = knl.temporaries.get(name);
  if (!t?.initializer || t.shape.some((d) => d.kind !== 'int')) return undefined;
  return t.shape.map((d) => (d as Extract<Expr, { kind: 'int' }>).value);
}
