/**
 * From a payload expression to what a kernel computes, once the dtypes are known.
 *
 * The payload is written once, for any dtypes; this pass makes its meaning exact for
 * one set of them:
 * - `truediv(a, b)` (JS `/`) divides exactly: integer operands become float32 first,
 *   as PyTorch's true_divide does;
 * - `fmod(a, b)` (JS `%`) on integers is the truncated remainder in integers;
 * - float functions (`sin`, `sqrt`, ...) of integers compute in float32 (PyTorch's
 *   default float), not in the float64 the core would choose;
 * - conditions and boolean outputs test `!= 0` explicitly, as a cast to bool means;
 * - complex values, which the core does not have, are pairs of real expressions, and
 *   complex arithmetic is expanded into real arithmetic on them (PyTorch's formulas:
 *   Smith's division, as c10::complex divides);
 * - non-finite constants and -0, which the instruction language cannot spell, become
 *   value arguments;
 * - conditions, `!`, `&&`, `||`, `**`, `Math.round` and `Math.hypot` mean what they
 *   mean in JavaScript (`js-semantics.ts`): NaN is false, `2 && 3` is 3;
 * - each operation whose result is a narrow integer (int8, int16, uint8, uint16) wraps into
 *   that dtype, as PyTorch computes in the promoted dtype (`wrapNarrow`).
 * Everything else is left to the core's own typing, which is PyTorch's across
 * categories and keeps literals weak.
 */
import {
  exprTypes,
  expr,
  isInteger,
  LoomError,
  mathFunctionsWhere,
  printExpr,
  type DType,
  type Expr,
} from '@loom/core';
import { componentDType, isComplex, isFloating, type ComplexDType, type TensorDType } from './dtypes.ts';
import { wrapNegativeLiterals } from './literal-range.ts';
import { jsHypot, jsLogical, jsPow, jsRound, jsTruthy, type JsContext } from './js-semantics.ts';

/**
 * A bitwise operator over truth values (bool data, a comparison): JavaScript makes them numbers
 * first (`~true` is -2, `true & false` is 0), which PyTorch's and Triton's bool `~ & | ^` are not
 * (logical not, and, or, xor); refused rather than computed one way or the other.
 */
const BOOLEAN_BITWISE = (op: string) =>
  `the bitwise operator ${op} over a truth value: JavaScript would make it a number first (~true is -2, true & false is 0); for truth values write ! (not), && (and), || (or), !== (xor)`;

const { binary, bitnot, bool, call, cast, compare, float, ifThenElse, int, logical, neg, not } = expr;
const BITWISE: ReadonlySet<string> = new Set(['&', '|', '^', '<<', '>>']);
/**
 * Integer dtypes narrower than 32 bits. Every target computes them in 32 bits (C promotes them
 * to int; WGSL has only i32; JavaScript computes in doubles), and wraps only when a value is
 * stored, whereas PyTorch computes each operation in the dtype: `(x * y) % 7` over int8
 * takes the remainder of the wrapped product.
 */
const NARROW: ReadonlySet<DType> = new Set(['int8', 'int16', 'uint8', 'uint16']);
/**
 * The operators whose integer result can leave its operands' range: `x + y`, `x * y`,
 * `x << y`, `x ** y`, and `MIN / -1`. A remainder, `&`, `|`, `^`, `>>`, min and max cannot.
 */
const MAY_OVERFLOW: ReadonlySet<string> = new Set(['+', '-', '*', '/', '//', '**', '<<']);

/** A lowered value: one real expression, or a complex number as two. */
export type Value =
  | { readonly kind: 'real'; readonly expr: Expr }
  | { readonly kind: 'complex'; readonly re: Expr; readonly im: Expr; readonly dtype: ComplexDType };

export const real = (e: Expr): Value => ({ kind: 'real', expr: e });
export const complex = (re: Expr, im: Expr, dtype: ComplexDType): Value => ({ kind: 'complex', re, im, dtype });

export interface LowerEnv {
  /** The value of each payload parameter. */
  readonly params: ReadonlyMap<string, Value>;
  /** The dtypes of the names real expressions mention (temporaries, value arguments). */
  readonly typeOf: (name: string) => DType | undefined;
  /** A name holding a non-finite constant (a value argument). */
  readonly constant: (value: number) => Expr;
  /** A temporary holding `e`, so that a value used several times is computed once. */
  readonly bind: (e: Expr) => Expr;
  /**
   * Refuses the integer literals of `e` that do not fit the dtype they meet (literal-range.ts):
   * for an operation that the lowering rewrites where the check on the kernel cannot see them.
   */
  readonly checkLiterals: (e: Expr) => void;
}

/** The dtype PyTorch gives an integer that must become a float (its default float). */
const INT_TO_FLOAT: DType = 'float32';
/**
 * Functions whose value is a float for any argument (the core computes them in float64 for
 * integers; here they get PyTorch's default float). `fmod` never reaches them: the remainder of
 * integers stays an integer (`call`).
 */
const FLOAT_FUNCTIONS: ReadonlySet<string> = mathFunctionsWhere((f) => f.result === 'float');
/** Rounding functions: the identity on integers. */
const ROUNDING: ReadonlySet<string> = mathFunctionsWhere((f) => f.rounding === true);

/**
 * The values of a payload's outputs. A node the payload uses more than once (a `const` local,
 * which the reader shares rather than copies) is lowered once, into a temporary: so the kernel
 * grows with the payload's text, not with the tree it unfolds to (`const b = a + a` on a chain
 * of forty locals is forty temporaries, not 2^40 terms).
 */
export function lowerOutputs(outputs: readonly Expr[], env: LowerEnv): Value[] {
  const lowering = new Lowering(env, sharedNodes(outputs));
  return outputs.map((o) => {
    const v = lowering.value(o);
    // what stays shared (weak values) is written out at each use by the passes that follow
    for (const part of v.kind === 'complex' ? [v.re, v.im] : [v.expr])
      expr.checkExpressionBounds(part, 'the payload, lowered,');
    return v;
  });
}

/** The nodes reachable from `roots` by more than one path (each node's children counted once). */
function sharedNodes(roots: readonly Expr[]): ReadonlySet<Expr> {
  const seen = new Set<Expr>();
  const shared = new Set<Expr>();
  const stack = [...roots];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (seen.has(e)) {
      shared.add(e);
      continue;
    }
    seen.add(e);
    stack.push(...expr.children(e));
  }
  return shared;
}

class Lowering {
  /** The value of each shared node, once lowered. */
  readonly #done = new Map<Expr, Value>();

  constructor(
    private readonly env: LowerEnv,
    private readonly shared: ReadonlySet<Expr> = new Set(),
  ) {}

  value(e: Expr): Value {
    const done = this.#done.get(e);
    if (done) return done;
    const v = this.lowered(e);
    if (!this.shared.has(e)) return v;
    const kept = this.keep(v);
    this.#done.set(e, kept);
    return kept;
  }

  /**
   * A shared value in temporaries. Weak values (literals, and conditionals between them) stay
   * as they are: a temporary would fix their dtype, where a literal takes its partner's.
   */
  private keep(v: Value): Value {
    const part = (p: Expr) => (this.typeOf(p).weak ? p : this.env.bind(p));
    return v.kind === 'complex' ? complex(part(v.re), part(v.im), v.dtype) : real(part(v.expr));
  }

  private lowered(e: Expr): Value {
    switch (e.kind) {
      case 'int':
      case 'bool':
        return real(e);
      case 'imag':
        return complex(float(0), float(e.value), e.dtype ?? 'complex128');
      case 'float':
        return real(Number.isFinite(e.value) && !Object.is(e.value, -0) ? e : this.env.constant(e.value));
      case 'var': {
        const v = this.env.params.get(e.name);
        if (!v) throw new LoomError(`'${e.name}' is not a parameter of the payload`);
        return v;
      }
      case 'neg': {
        const v = this.value(e.operand);
        return v.kind === 'complex' ? complex(neg(v.re), neg(v.im), v.dtype) : real(this.wrapNarrow(neg(v.expr)));
      }
      case 'bitnot': {
        const v = this.value(e.operand);
        if (v.kind === 'complex') throw new LoomError('bitwise operators take integers, not complex values');
        if (this.isTruth(v.expr)) throw new LoomError(BOOLEAN_BITWISE('~'));
        // ~x stays in a signed dtype's range (~-128 is 127), not in an unsigned one's (~5 is -6 in int)
        const inverted = this.integral(bitnot(v.expr));
        return real(this.typeOf(inverted).dtype.startsWith('u') ? this.wrapNarrow(inverted) : inverted);
      }
      case 'binary':
        return this.binary(e.op, this.value(e.left), this.value(e.right));
      case 'compare':
        return this.compare(e.op, this.value(e.left), this.value(e.right));
      case 'logical': {
        const [a, b] = [this.value(e.left), this.value(e.right)];
        // truth values combine as truth values; numbers give the deciding operand, as in JavaScript
        if (a.kind === 'complex' || b.kind === 'complex' || (isBoolean(a.expr) && isBoolean(b.expr))) {
          return real(logical(e.op, this.condition(a), this.condition(b)));
        }
        return real(jsLogical(e.op, a.expr, b.expr, this.js));
      }
      case 'not':
        return real(not(this.condition(this.value(e.operand))));
      case 'if': {
        const condition = this.condition(this.value(e.condition));
        const [a, b] = [this.value(e.then), this.value(e.otherwise)];
        if (a.kind === 'real' && b.kind === 'real') return real(ifThenElse(condition, a.expr, b.expr));
        const t = this.complexType(a, b);
        const [ca, cb] = [this.asComplex(a, t), this.asComplex(b, t)];
        return complex(ifThenElse(condition, ca.re, cb.re), ifThenElse(condition, ca.im, cb.im), t);
      }
      case 'cast': {
        const v = this.value(e.operand);
        if (isComplex(e.dtype as TensorDType)) return this.asComplex(v, e.dtype as ComplexDType);
        return real(cast(e.dtype, v.kind === 'complex' ? v.re : v.expr));
      }
      case 'call':
        return this.call(
          e.fn,
          e.args.map((a) => this.value(a)),
        );
      case 'subscript':
      case 'reduce':
        throw new LoomError(`a pointwise payload works on single elements: '${printExpr(e)}' is not allowed`);
    }
  }

  // -- real helpers ------------------------------------------------------------

  /** Types remembered per node: a chain of shared weak values (below) is a DAG, typed in linear time. */
  readonly #types = exprTypes((n) => this.env.typeOf(n));

  private typeOf(e: Expr) {
    return this.#types(e);
  }

  /** `e` as a float: integers (and bools) become float32, integer literals float literals. */
  private toFloat(e: Expr): Expr {
    if (e.kind === 'int') return float(e.value);
    const t = this.typeOf(e);
    return isFloating(t.dtype) ? e : cast(INT_TO_FLOAT, e);
  }

  private isFloat(v: Value): boolean {
    return v.kind === 'real' && isFloating(this.typeOf(v.expr).dtype);
  }

  /** What JavaScript's semantics need from the lowering (`js-semantics.ts`). */
  private readonly js: JsContext = {
    bind: (e) => this.env.bind(e),
    constant: (value) => this.env.constant(value),
    isFloat: (e) => isFloating(this.typeOf(e).dtype),
    floatBits: (e) => (this.typeOf(e).dtype === 'float64' ? 64 : 32),
  };

  /** A value as a JavaScript condition: NaN is false (`truthy`, a conversion to bool, takes it as true). */
  private condition(v: Value): Expr {
    if (v.kind === 'complex' || isBoolean(v.expr) || this.typeOf(v.expr).dtype === 'bool') return this.truthy(v);
    return jsTruthy(v.expr, this.js);
  }

  /** A value as a bool: bools as they are, anything else `!= 0` (NaN is true, as in PyTorch's bool()). */
  truthy(v: Value): Expr {
    if (v.kind === 'complex') return expr.complexTruthy(v);
    // a bool variable is a truth value; bool arithmetic (true + true) is not: C computes it in int
    const isBoolVariable = v.expr.kind === 'var' && this.typeOf(v.expr).dtype === 'bool';
    return isBoolean(v.expr) || isBoolVariable ? v.expr : compare('!=', v.expr, int(0));
  }

  /** `e` converted to `dtype`, unless it already has it (or is a literal, which takes any type). */
  castTo(e: Expr, dtype: DType): Expr {
    if (dtype === 'bool') return this.truthy(real(e));
    if (e.kind === 'int' || e.kind === 'float') return isFloating(dtype) || e.kind === 'int' ? e : cast(dtype, e);
    const t = this.typeOf(e);
    return !t.weak && t.dtype === dtype ? e : cast(dtype, e);
  }

  /**
   * `e`, the result of one operation, wrapped into its dtype when that is a narrow integer
   * (`NARROW`): the targets compute it exactly in 32 bits, which `cast(int32, e)` names, and
   * the conversion to the narrow dtype wraps it (a conversion from the dtype itself would be
   * taken as nothing to do). Callers apply it only where the result can leave the range.
   */
  private wrapNarrow(e: Expr): Expr {
    const t = this.typeOf(e);
    return !t.weak && NARROW.has(t.dtype) ? cast(t.dtype, cast('int32', e)) : e;
  }

  /**
   * Bitwise `e` with its negative literals wrapped into its unsigned dtype (README: `x | -2` over
   * uint8 is `x | 254`): the targets would compute with the negative value, in int (C's
   * promotion, JavaScript's doubles), and leave a negative result to the next operation. A
   * shift count is not wrapped: a negative one beside unsigned data is refused (literal-range.ts).
   */
  private unsignedLiterals(e: Extract<Expr, { kind: 'binary' }>): Expr {
    const t = this.typeOf(e);
    if (t.weak || !t.dtype.startsWith('u')) return e;
    const shift = e.op === '<<' || e.op === '>>';
    const wrap = (x: Expr) => (this.typeOf(x).weak ? wrapNegativeLiterals(x, t.dtype) : x);
    const [left, right] = [wrap(e.left), shift ? e.right : wrap(e.right)];
    return left === e.left && right === e.right ? e : binary(e.op, left, right);
  }

  /**
   * The operands of a quotient or remainder with their negative literals wrapped into the unsigned
   * dtype they meet (`x % -1` over uint16 divides by 65535, as PyTorch does): the targets would divide
   * by the negative value, each its own way (differential seed 3532479764: JavaScript and WGSL gave 0).
   */
  private unsignedOperands(a: Expr, b: Expr): [Expr, Expr] {
    const t = this.typeOf(binary('+', a, b));
    if (t.weak || !t.dtype.startsWith('u') || !isInteger(t.dtype)) return [a, b];
    const wrap = (x: Expr) => (this.typeOf(x).weak ? wrapNegativeLiterals(x, t.dtype) : x);
    return [wrap(a), wrap(b)];
  }

  /** A bitwise operation, refused (with PyTorch) unless its operands are integers: typing it says so. */
  private integral(e: Expr): Expr {
    this.typeOf(e);
    return e;
  }

  // -- complex helpers -----------------------------------------------------------

  /** The complex dtype two operands meet in: complex128 when either needs float64 parts. */
  private complexType(a: Value, b: Value): ComplexDType {
    const wide = (v: Value) =>
      v.kind === 'complex'
        ? v.dtype === 'complex128'
        : !this.typeOf(v.expr).weak && this.typeOf(v.expr).dtype === 'float64';
    return wide(a) || wide(b) ? 'complex128' : 'complex64';
  }

  asComplex(v: Value, dtype: ComplexDType): Extract<Value, { kind: 'complex' }> {
    const part = componentDType(dtype);
    if (v.kind === 'complex') {
      return v.dtype === dtype
        ? v
        : { kind: 'complex', re: this.castTo(v.re, part), im: this.castTo(v.im, part), dtype };
    }
    return { kind: 'complex', re: this.castTo(v.expr, part), im: float(0), dtype };
  }

  /** Whether `e` is a truth value: a comparison or logical expression, or bool data. */
  private isTruth(e: Expr): boolean {
    return isBoolean(e) || this.typeOf(e).dtype === 'bool';
  }

  // -- operators -----------------------------------------------------------------

  private binary(op: Extract<Expr, { kind: 'binary' }>['op'], a: Value, b: Value): Value {
    if (BITWISE.has(op)) {
      if (a.kind === 'complex' || b.kind === 'complex')
        throw new LoomError('bitwise operators take integers, not complex values');
      if (this.isTruth(a.expr) || this.isTruth(b.expr)) throw new LoomError(BOOLEAN_BITWISE(op));
      const e = this.unsignedLiterals(this.integral(binary(op, a.expr, b.expr)) as Extract<Expr, { kind: 'binary' }>);
      return real(MAY_OVERFLOW.has(op) ? this.wrapNarrow(e) : e);
    }
    if (a.kind === 'real' && b.kind === 'real') {
      const [x, y] = op === '//' ? this.unsignedOperands(a.expr, b.expr) : [a.expr, b.expr];
      const e = binary(op, x, y);
      return real(MAY_OVERFLOW.has(op) ? this.wrapNarrow(e) : e);
    }
    const t = this.complexType(a, b);
    const [x, y] = [this.asComplex(a, t), this.asComplex(b, t)];
    const parts = (p: expr.ComplexParts) => complex(p.re, p.im, t);
    switch (op) {
      case '+':
      case '-':
        return parts(expr.complexAdd(x, y, op));
      case '*':
        return parts(expr.complexMultiply(x, y, (e) => e));
      case '/':
        return parts(expr.complexDivide(x, y, this.env.bind));
      default:
        throw new LoomError(`the operator ${op} is not defined for complex values here`);
    }
  }

  private compare(op: Extract<Expr, { kind: 'compare' }>['op'], a: Value, b: Value): Value {
    if (a.kind === 'real' && b.kind === 'real') return real(compare(op, a.expr, b.expr));
    if (op !== '==' && op !== '!=') throw new LoomError(`complex values cannot be ordered (${op})`);
    const t = this.complexType(a, b);
    const equal = expr.complexEquals(this.asComplex(a, t), this.asComplex(b, t));
    return real(op === '==' ? equal : not(equal));
  }

  private call(fn: string, args: Value[]): Value {
    switch (fn) {
      case 'truediv': {
        const [a, b] = args;
        if (a.kind === 'complex' || b.kind === 'complex') return this.binary('/', a, b);
        // exact division: at least one side must be a float
        if (this.isFloat(a) || this.isFloat(b)) return real(binary('/', a.expr, b.expr));
        return real(binary('/', this.toFloat(a.expr), this.toFloat(b.expr)));
      }
      case 'fmod': {
        const [a, b] = args;
        if (a.kind === 'complex' || b.kind === 'complex')
          throw new LoomError('the remainder (%) is not defined for complex values');
        if (this.isFloat(a) || this.isFloat(b)) return real(call('fmod', [a.expr, b.expr]));
        // a constant zero divisor is PyTorch's ZeroDivisionError (JavaScript's NaN has no integer)
        if (constantInt(b.expr) === 0)
          throw new LoomError(
            'integer remainder (%) by the constant 0: JavaScript gives NaN, which no integer holds; make an operand a float',
          );
        // integers: JS's remainder takes the dividend's sign, as C's division truncates; x % 0 gives 0
        const [x, y] = this.unsignedOperands(this.env.bind(a.expr), this.env.bind(b.expr));
        return real(ifThenElse(compare('==', y, int(0)), int(0), binary('-', x, binary('*', y, binary('/', x, y)))));
      }
      case 'jspow': {
        const [a, b] = args;
        if (a.kind === 'complex' || b.kind === 'complex')
          throw new LoomError('** is not defined for complex values here');
        if (this.isFloat(a) || this.isFloat(b)) return real(jsPow(a.expr, b.expr, this.js));
        // integers compute an integer power (PyTorch's rule: 2 ** -1 is 0 from a tensor of exponents);
        // a constant negative exponent can only mean JavaScript's fraction, which PyTorch refuses too
        const exponent = constantInt(b.expr);
        if (exponent !== undefined && exponent < 0) {
          throw new LoomError(
            `integers to negative integer powers are not allowed (** ${exponent} on an integer base; JavaScript would give a fraction): make the base a float, e.g. declare its dtype float32`,
          );
        }
        return real(this.wrapNarrow(binary('**', a.expr, b.expr)));
      }
      case 'jsround': {
        const [x] = args;
        if (x.kind === 'complex') throw new LoomError('Math.round is not defined for complex values');
        return real(this.isFloat(x) ? jsRound(x.expr, this.js) : x.expr);
      }
      case 'jshypot': {
        if (args.some((a) => a.kind === 'complex')) throw new LoomError('Math.hypot is not defined for complex values');
        return real(
          jsHypot(
            args.map((a) => this.toFloat((a as Extract<Value, { kind: 'real' }>).expr)),
            this.js,
          ),
        );
      }
      case 'jsstricteq':
      case 'jsstrictne': {
        const [a, b] = args;
        const equal = fn === 'jsstricteq';
        if (a.kind === 'complex' || b.kind === 'complex') return this.compare(equal ? '==' : '!=', a, b);
        return real(this.strictEquality(equal, a.expr, b.expr));
      }
      case 'real': {
        const [z] = args;
        return real(z.kind === 'complex' ? z.re : z.expr);
      }
      case 'imag': {
        const [z] = args;
        return real(z.kind === 'complex' ? z.im : int(0));
      }
      case 'conj': {
        const [z] = args;
        return z.kind === 'complex' ? complex(z.re, neg(z.im), z.dtype) : z;
      }
      case 'complex': {
        const [re, im] = args;
        if (re.kind === 'complex' || im.kind === 'complex')
          throw new LoomError('complex(re, im) takes two real values');
        const t = this.complexType(re, im);
        const part = componentDType(t);
        return complex(this.castTo(this.toFloat(re.expr), part), this.castTo(this.toFloat(im.expr), part), t);
      }
      case 'complex64':
      case 'complex128':
        return this.asComplex(args[0], fn);
      default:
        if (args.some((a) => a.kind === 'complex')) return this.complexFunction(fn, args);
        return real(
          this.realFunction(
            fn,
            args.map((a) => (a as Extract<Value, { kind: 'real' }>).expr),
          ),
        );
    }
  }

  /**
   * `a === b` (`equal`) or `a !== b`: JavaScript never finds a boolean strictly equal to a
   * number, so operands of one kind compare as `==` does, and a boolean beside a number is
   * decided (false for ===). A value that is a boolean on some elements and a number on
   * others (`c ? true : 1`) is a conditional: the comparison goes into its branches.
   */
  private strictEquality(equal: boolean, a: Expr, b: Expr): Expr {
    const [ka, kb] = [this.jsKind(a), this.jsKind(b)];
    if (ka === 'mixed' || kb === 'mixed') {
      const [split, other] =
        ka === 'mixed'
          ? [a as Extract<Expr, { kind: 'if' }>, this.env.bind(b)]
          : [b as Extract<Expr, { kind: 'if' }>, this.env.bind(a)];
      const branch = (x: Expr) =>
        ka === 'mixed' ? this.strictEquality(equal, x, other) : this.strictEquality(equal, other, x);
      return ifThenElse(split.condition, branch(split.then), branch(split.otherwise));
    }
    if (ka !== kb) return bool(!equal);
    return compare(equal ? '==' : '!=', a, b);
  }

  /** Whether `e` is a JavaScript boolean, a number, or either depending on the element (a conditional). */
  private jsKind(e: Expr): 'boolean' | 'number' | 'mixed' {
    if (e.kind === 'if') {
      const [t, o] = [this.jsKind(e.then), this.jsKind(e.otherwise)];
      return t === o ? t : 'mixed';
    }
    return isBoolean(e) || this.typeOf(e).dtype === 'bool' ? 'boolean' : 'number';
  }

  private realFunction(fn: string, args: Expr[]): Expr {
    if (FLOAT_FUNCTIONS.has(fn) && !args.some((a) => isFloating(this.typeOf(a).dtype)))
      return call(
        fn,
        args.map((a) => this.toFloat(a)),
      );
    if (ROUNDING.has(fn) && !isFloating(this.typeOf(args[0]).dtype)) return args[0];
    // |MIN| is one past the maximum: PyTorch's abs of int8 -128 is -128
    if (fn === 'abs') return this.wrapNarrow(call(fn, args));
    const t = (fn === 'min' || fn === 'max') && this.typeOf(call(fn, args));
    if (t && !t.weak && NARROW.has(t.dtype)) return this.narrowMinMax(fn, args, t.dtype);
    return call(fn, args);
  }

  /**
   * min/max whose result is narrow integer `dtype`: each operand converted to `dtype` first (a
   * literal wraps by the README's rule: ~1 beside uint8 is 254, so max(~1, x) is 254), then
   * compared in int32, where every operand is already in range: OpenCL C finds min(uchar, int)
   * (a wrapped value beside one C computed in int, or beside a literal) ambiguous.
   */
  private narrowMinMax(fn: string, args: Expr[], dtype: DType): Expr {
    // the conversions hide the literals from the range check (literal-range.ts): it sees them
    // here beside a stand-in of the joined dtype (the strong operands join to `dtype`)
    this.env.checkLiterals(
      call(
        fn,
        args.map((a) => (this.typeOf(a).weak ? a : cast(dtype, int(0)))),
      ),
    );
    const inRange = (a: Expr) => cast('int32', this.typeOf(a).weak ? cast(dtype, a) : a);
    return cast(dtype, call(fn, args.map(inRange)));
  }

  private complexFunction(fn: string, args: Value[]): Value {
    if (args.length !== 1 || args[0].kind !== 'complex')
      throw new LoomError(`${fn} is not defined for complex values here`);
    const z = args[0];
    const result = expr.complexFunction(fn, z, this.env.bind);
    return 'real' in result ? real(result.real) : complex(result.complex.re, result.complex.im, z.dtype);
  }
}

/** Whether `e` is a truth value by construction (a comparison, a connective, a bool literal or cast). */
function isBoolean(e: Expr): boolean {
  switch (e.kind) {
    case 'compare':
    case 'logical':
    case 'not':
    case 'bool':
      return true;
    case 'cast':
      return e.dtype === 'bool';
    case 'if':
      return isBoolean(e.then) && isBoolean(e.otherwise);
    default:
      return false;
  }
}

/** What an output of `dtype` stores for a lowered value: one expression, or a complex's two. */
export function storedParts(v: Value, dtype: TensorDType, env: LowerEnv): Expr[] {
  const lowering = new Lowering(env);
  if (isComplex(dtype)) {
    const c = lowering.asComplex(v, dtype);
    return [c.re, c.im];
  }
  // a complex stored into a real output keeps its real part (PyTorch discards the imaginary one)
  const e = v.kind === 'complex' ? v.re : v.expr;
  return [lowering.castTo(e, dtype)];
}

/** The value of an integer literal (negated or not), or undefined for anything else. */
function constantInt(e: Expr): number | undefined {
  if (e.kind === 'int') return Number(e.value);
  if (e.kind === 'neg' && e.operand.kind === 'int') return -Number(e.operand.value);
  return undefined;
}
