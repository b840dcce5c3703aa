/**
 * The affine view of an expression with some of its sub-expressions held whole: in
 * `32*(lid(1) % 2) + 4*(lid(0) % 8) + 1` the remainders are not affine, but each is an integer, and
 * as atoms (variables standing for them) the index is the linear form `32·A + 4·B + 1`, whose
 * quotient by 4 (`8*(lid(1) % 2) + lid(0) % 8`) and remainder (1) are exact. joinInames leaves such
 * indices (a joined iname's parts are its `//` and `%`), and so do hardware ids in printed code.
 */
import { fromLinear, toLinear } from './affine.ts';
import { substitute } from './analysis.ts';
import { variable, type Expr } from './nodes.ts';
import { mapChildren } from './visit.ts';
import type { Linear } from '../linear.ts';

/** A linear form over variables and atoms (`atoms`: each atom's variable name and its expression). */
export interface LinearOverAtoms {
  readonly linear: Linear;
  readonly atoms: ReadonlyMap<string, Expr>;
}

/**
 * `e` as a linear form in which each outermost sub-expression `isAtom` picks is one variable
 * (the atoms must be integer-valued for quotients of the form to mean anything), or undefined
 * when what is left is not affine.
 */
export function toLinearOverAtoms(e: Expr, isAtom: (x: Expr) => boolean): LinearOverAtoms | undefined {
  const atoms = new Map<string, Expr>();
  const open = (x: Expr): Expr => {
    if (!isAtom(x)) return mapChildren(x, open);
    const name = `\u0000atom${atoms.size}`;
    atoms.set(name, x);
    return variable(name);
  };
  const linear = toLinear(open(e));
  return linear && { linear, atoms };
}

/** The expression of a linear form over `atoms` (the atoms' own expressions in their place). */
export function fromLinearOverAtoms(linear: Linear, atoms: ReadonlyMap<string, Expr>): Expr {
  return substitute(fromLinear(linear), atoms);
}

/** `x // d` or `x % d` for a constant d > 0 and a non-constant x: an integer in an index. */
export function isDivisionByConstant(x: Expr): boolean {
  return (
    x.kind === 'binary' &&
    (x.op === '//' || x.op === '%') &&
    x.right.kind === 'int' &&
    x.right.value > 0 &&
    x.left.kind !== 'int'
  );
}
