/**
 * Forward differentiation of one expression, for `diffKernel` (diff.ts): the chain rule over
 * every node kind, with the known functions' derivatives from expr/math-derivatives.ts. What
 * a variable or an array element's derivative is, the caller says (`leaf`). A derivative that
 * is zero is `null`, so that terms which cannot contribute are never written (the second
 * partial of `pow(x, 2)` would read `log(x)`, NaN for a negative x, times 0).
 */
import { LoomError, unreachable } from '../errors.ts';
import { MATH_DERIVATIVES } from '../expr/math-derivatives.ts';
import { isMathFunction } from '../expr/math-functions.ts';
import {
  add,
  binary,
  type BinaryOp,
  call,
  cast,
  type Expr,
  float,
  ifThenElse,
  int,
  mul,
  neg,
  reduce,
  sub,
  type Subscript,
  type Var,
} from '../expr/nodes.ts';
import { isHardwareId } from '../kernel/type-inference.ts';

/** A derivative; `null` where it is zero. */
export type Derivative = Expr | null;

const isOne = (e: Expr) => (e.kind === 'int' || e.kind === 'float') && e.value === 1 && !('dtype' in e && e.dtype);

const plus = (a: Derivative, b: Derivative): Derivative => (a === null ? b : b === null ? a : add(a, b));
const minus = (a: Derivative, b: Derivative): Derivative => (b === null ? a : a === null ? neg(b) : sub(a, b));
/** `factor * d`, where `d` may be zero. */
const times = (factor: Expr, d: Derivative): Derivative =>
  d === null ? null : isOne(d) ? factor : isOne(factor) ? d : mul(factor, d);

/** `b - 1` for an exponent, a literal where `b` is one. */
function lessOne(b: Expr): Expr {
  if (b.kind === 'int') return int(b.value - 1);
  if (b.kind === 'float') return float(b.value - 1, b.dtype);
  return sub(b, int(1));
}

/**
 * The derivative of `e`. `leaf` gives a variable's or an array element's (null: it does not
 * depend on what is differentiated by); substitution rules must be expanded already.
 */
export function differentiate(e: Expr, leaf: (e: Var | Subscript) => Derivative): Derivative {
  const d = (x: Expr) => differentiate(x, leaf);
  switch (e.kind) {
    case 'int':
    case 'float':
    case 'imag':
    case 'bool':
    case 'compare':
    case 'logical':
    case 'not':
    case 'bitnot':
      return null;
    case 'var':
    case 'subscript':
      return leaf(e);
    case 'neg': {
      const x = d(e.operand);
      return x === null ? null : neg(x);
    }
    case 'binary':
      return binaryDerivative(e.op, e.left, e.right, d(e.left), d(e.right));
    case 'if': {
      const t = d(e.then);
      const o = d(e.otherwise);
      return t === null && o === null ? null : ifThenElse(e.condition, t ?? float(0), o ?? float(0));
    }
    case 'cast': {
      const x = d(e.operand);
      // a conversion to an integer is piecewise constant
      return x === null || !/^(float|complex)/.test(e.dtype) ? null : cast(e.dtype, x);
    }
    case 'call':
      return callDerivative(e.fn, e.args, d);
    case 'reduce': {
      const parts = e.operands.map(d);
      if (parts.every((p) => p === null)) return null;
      if (e.op !== 'sum' || parts.length !== 1)
        throw new LoomError(
          `diffKernel: the derivative of a '${e.op}' reduction is not known (only sums are differentiated)`,
        );
      return reduce('sum', e.inames, parts[0]!, e.simultaneous);
    }
    default:
      return unreachable(e);
  }
}

function binaryDerivative(op: BinaryOp, a: Expr, b: Expr, da: Derivative, db: Derivative): Derivative {
  if (da === null && db === null) return null;
  switch (op) {
    case '+':
      return plus(da, db);
    case '-':
      return minus(da, db);
    case '*':
      return plus(da === null ? null : times(b, da), times(a, db));
    case '/':
      return minus(da === null ? null : binary('/', da, b), db === null ? null : binary('/', times(a, db)!, mul(b, b)));
    case '**': {
      const down = lessOne(b);
      const power = (down.kind === 'int' || down.kind === 'float') && down.value === 1 ? a : binary('**', a, down);
      const base = da === null ? null : times(mul(b, power), da);
      const exponent = db === null ? null : times(mul(binary('**', a, b), call('log', [a])), db);
      return plus(base, exponent);
    }
    case '%':
      // a - floor(a/b)*b, Python's remainder
      return minus(da, db === null ? null : times(call('floor', [binary('/', a, b)]), db));
    case '//':
      return null;
    // bitwise operators take integers only, whose derivative is 0
    case '&':
    case '|':
    case '^':
    case '<<':
    case '>>':
      return null;
    default:
      return unreachable(op, 'operator');
  }
}

function callDerivative(fn: string, args: readonly Expr[], d: (x: Expr) => Derivative): Derivative {
  if (isHardwareId(call(fn, args))) return null;
  if (!isMathFunction(fn))
    throw new LoomError(
      `diffKernel: no derivative is known for '${fn}': only the known math functions are differentiated (README, table of functions)`,
    );
  const ds = args.map(d);
  if (ds.every((x) => x === null)) return null;
  const rule = MATH_DERIVATIVES[fn];
  switch (rule.kind) {
    case 'constant':
      return null;
    case 'linear':
      return call(
        fn,
        ds.map((x) => x ?? float(0)),
      );
    case 'partials': {
      const partials = rule.partials(args);
      return ds.reduce<Derivative>((sum, x, k) => plus(sum, times(partials[k], x)), null);
    }
    default:
      return unreachable(rule);
  }
}
