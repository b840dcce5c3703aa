/**
 * Conservative simplification: constant folding on integers and booleans, and affine
 * normalization (`2*(i + 1) - 2` → `2*i`) of integer sub-expressions.
 *
 * It never touches float arithmetic: folding `0.1 + 0.2` or rewriting `x + 1 - 1` would
 * change results once the target rounds to float32. Integer arithmetic is exact, but a
 * variable is only known to be an integer where the IR says so: inside a subscript's
 * indices (an index is an integer, and by type promotion so are the operands of the `+`,
 * `-`, `*`, `//`, `%` that compute it) or when the caller vouches for it (`isInteger`).
 */
import { exprEquals, freeVariables } from './analysis.ts';
import { foldInteger, fromLinear, toLinear } from './affine.ts';
import { fromLinearOverAtoms, isDivisionByConstant, toLinearOverAtoms } from './linear-atoms.ts';
import { bool, int, type Expr } from './nodes.ts';
import { Linear, floorDiv } from '../linear.ts';
import { mapChildren } from './visit.ts';
import { perObjectWhile } from '../memo.ts';

/** Options of `simplify`. */
export interface SimplifyOptions {
  /** Whether `e` itself is known to be integer-valued (a shape, a stride, a bound). */
  readonly integer?: boolean;
  /**
   * Names known to hold integers (say, the kernel's inames and integer parameters): affine
   * sub-expressions over these are normalized anywhere, not only inside subscripts.
   */
  readonly isInteger?: (name: string) => boolean;
}

/** Folds constants and simplifies an expression's arithmetic, keeping its value. */
export function simplify(e: Expr, options: SimplifyOptions = {}): Expr {
  return simplifyIn(e, options.integer ?? false, options, undefined);
}

/** A node's simplified form, per whether it is known to be integer-valued. */
type Remembered = readonly [(e: Expr) => Expr, (e: Expr) => Expr];

/**
 * `simplify` with `options`, remembering each node's answer (nodes are immutable): for many
 * expressions that share sub-trees, as the copies of an unrolled loop share everything but
 * the lane. The same answers as `simplify`, each worked out once.
 */
export function simplifier(options: SimplifyOptions = {}): (e: Expr) => Expr {
  const remembered: Remembered = [
    perObjectWhile((e: Expr) => simplifyIn(e, false, options, remembered)),
    perObjectWhile((e: Expr) => simplifyIn(e, true, options, remembered)),
  ];
  return remembered[options.integer ? 1 : 0];
}

/** `integer`: whether `e` is known to be integer-valued (it computes an index). */
function simplifyIn(e: Expr, integer: boolean, options: SimplifyOptions, remembered: Remembered | undefined): Expr {
  const rebuilt = mapChildren(e, (child, index) => {
    const childInteger = childIsInteger(e, index, integer);
    return remembered ? remembered[childInteger ? 1 : 0](child) : simplifyIn(child, childInteger, options, undefined);
  });
  return normalizeAffine(divideOutMultiples(fold(rebuilt), integer, options), integer, options);
}

function childIsInteger(parent: Expr, index: number, parentIsInteger: boolean): boolean {
  switch (parent.kind) {
    case 'subscript':
      return true;
    case 'neg':
      return parentIsInteger;
    case 'binary':
      return parentIsInteger && parent.op !== '/' && parent.op !== '**';
    case 'if':
      return index > 0 && parentIsInteger; // the branches, not the condition
    default:
      return false;
  }
}

/** One step of folding, on a node whose children are already simplified. */
function fold(e: Expr): Expr {
  switch (e.kind) {
    case 'neg':
      if (e.operand.kind === 'int') return int(-e.operand.value);
      if (e.operand.kind === 'neg') return e.operand.operand; // exact, for floats too
      return e;
    case 'binary': {
      // `x*1` is `x` exactly, even for floats (not so `x + 0`: -0.0 + 0 is 0.0).
      if (e.op === '*' && isOne(e.right) && !isBoolean(e.left)) return e.left;
      if (e.op === '*' && isOne(e.left) && !isBoolean(e.right)) return e.right;
      if (e.left.kind !== 'int' || e.right.kind !== 'int') return e;
      const value = foldInteger(e.op, e.left.value, e.right.value);
      return value === undefined ? e : int(value);
    }
    case 'compare':
      if (e.left.kind !== 'int' || e.right.kind !== 'int') return e;
      return bool(compareNumbers(e.op, e.left.value, e.right.value));
    case 'logical': {
      if (e.left.kind === 'bool' && e.right.kind === 'bool')
        return bool(e.op === 'and' ? e.left.value && e.right.value : e.left.value || e.right.value);
      // a truth value that settles nothing goes (`c and true` is c), one that settles all stays
      // alone (`c or true` is true): the operands are pure, so dropping one changes nothing
      const settles = e.op === 'or';
      for (const [constant, other] of [
        [e.left, e.right],
        [e.right, e.left],
      ] as const) {
        if (constant.kind !== 'bool' || !isBoolean(other)) continue;
        return constant.value === settles ? constant : other;
      }
      return e;
    }
    case 'not':
      return e.operand.kind === 'bool' ? bool(!e.operand.value) : e;
    case 'if':
      return e.condition.kind === 'bool' ? (e.condition.value ? e.then : e.otherwise) : e;
    default:
      return e;
  }
}

const isOne = (e: Expr) => e.kind === 'int' && e.value === 1;

/** Syntactically a truth value: `true*1` is the int 1, so that product is no identity. */
const isBoolean = (e: Expr) => e.kind === 'bool' || e.kind === 'compare' || e.kind === 'logical' || e.kind === 'not';

function compareNumbers(op: Extract<Expr, { kind: 'compare' }>['op'], a: number, b: number): boolean {
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

/**
 * `(d*Q + r) // d` is `Q` and `(d*Q + r) % d` is `r`, exactly, for an integer Q, d > 0 and a
 * constant r in [0, d) (floor division): `(4*i + 1) // 4` is `i`, `(4*i + 1) % 4` is `1`. What
 * splitIname and splitArrayAxis leave once a lane is unrolled; Q's terms may be divisions themselves
 * (`(4*(t % 8) + 1) // 4` is `t % 8`: the parts of a joined iname). A remainder with variables
 * (`(4*i + j) // 4`) stays whole: the access guards prove that form in bounds.
 */
function divideOutMultiples(e: Expr, integer: boolean, options: SimplifyOptions): Expr {
  if (e.kind !== 'binary' || (e.op !== '//' && e.op !== '%') || e.right.kind !== 'int' || e.right.value <= 0) return e;
  const known = integer || (options.isInteger !== undefined && [...freeVariables(e.left)].every(options.isInteger));
  // Q may hold divisions of its own (joinInames' parts): each is an integer, held whole
  const form = known ? toLinearOverAtoms(e.left, isDivisionByConstant) : undefined;
  const d = e.right.value;
  const lin = form?.linear;
  if (lin === undefined || lin.variables.length === 0 || lin.variables.some((v) => lin.coeff(v) % d !== 0)) return e;
  if (e.op === '%') return int(floorMod(lin.constant, d));
  return fromLinearOverAtoms(
    Linear.of(
      lin.variables.map((v) => [v, lin.coeff(v) / d] as const),
      floorDiv(lin.constant, d),
    ),
    form!.atoms,
  );
}

const floorMod = (a: number, d: number) => a - d * floorDiv(a, d);

/** An integer sum/product/negation rewritten to its linear form's readable expression. */
function normalizeAffine(e: Expr, integer: boolean, options: SimplifyOptions): Expr {
  const arithmetic = e.kind === 'neg' || (e.kind === 'binary' && e.op !== '/' && e.op !== '**');
  if (!arithmetic) return e;
  const names = freeVariables(e);
  const known = integer || (options.isInteger !== undefined && [...names].every(options.isInteger));
  if (!known) return e;
  const linear = toLinear(e);
  if (linear === undefined) return e;
  const normal = fromLinear(linear, [...names]); // variables in order of first appearance
  return exprEquals(normal, e) ? e : normal;
}
