/**
 * Types of expressions and temporaries, numpy-style, with literals as *weak*
 * scalars (NEP 50): `2*a` stays float32 for a float32 `a`; `2.0*k` is float64 for
 * an int32 `k`. Inames and domain parameters are int32. Integer `/` stays integer
 * (C division), as loopy does.
 */
import { complexPart, isComplex, isFloat, isInteger, promote, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { Expr } from '../expr/nodes.ts';
import { printExpr } from '../expr/index.ts';
import type { LoopKernel } from './model.ts';
import { expandSubstitutions } from './accesses.ts';
import { functionTypes } from '../functions/resolve.ts';

export interface ExprType {
  readonly dtype: DType;
  /** A literal's type, which yields to the other operand's kind-compatible type. */
  readonly weak: boolean;
}

const WEAK_INT: ExprType = { dtype: 'int32', weak: true };
const WEAK_FLOAT: ExprType = { dtype: 'float64', weak: true };
const WEAK_COMPLEX: ExprType = { dtype: 'complex128', weak: true };
const BOOL: ExprType = { dtype: 'bool', weak: false };
export const INDEX_DTYPE: DType = 'int32';

/**
 * `gid(N)` and `lid(N)`: the work-group and work-item index along axis N. Code
 * generation puts them where inames tagged `g.N` / `l.N` were; every target spells them.
 */
export function isHardwareId(e: Expr): boolean {
  return e.kind === 'call' && (e.fn === 'gid' || e.fn === 'lid') && e.args.length === 1 && e.args[0].kind === 'int';
}

/** Functions whose result is a float even for integer arguments. */
const FLOAT_FUNCTIONS = new Set([
  'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh',
  'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sqrt', 'rsqrt', 'cbrt', 'pow', 'fmod', 'erf', 'erfc',
  'fabs', 'hypot', 'copysign', 'fmax', 'fmin', 'fma',
]);

/**
 * The result dtype of a call of a user function (functions/), for its arguments' dtypes;
 * `undefined` when `fn` is no user function. A call resolved once types are known carries
 * its dtype itself (`Call.dtype`), so only type inference needs this.
 */
export type FunctionTypes = (fn: string, args: readonly DType[], e: Expr) => DType | undefined;

export function combineTypes(a: ExprType, b: ExprType): ExprType {
  if (a.weak && b.weak) {
    if (isComplex(a.dtype) || isComplex(b.dtype)) return WEAK_COMPLEX;
    return isFloat(a.dtype) || isFloat(b.dtype) ? WEAK_FLOAT : WEAK_INT;
  }
  if (a.weak || b.weak) {
    const strong = a.weak ? b : a;
    const weak = a.weak ? a : b;
    if (isComplex(weak.dtype) && !isComplex(strong.dtype)) {
      // a complex literal keeps a float's width (float32 data and 1j stay complex64); integers meet it in complex128
      return { dtype: isFloat(strong.dtype) && strong.dtype !== 'float64' ? 'complex64' : 'complex128', weak: false };
    }
    if (isFloat(weak.dtype) && !isFloat(strong.dtype) && !isComplex(strong.dtype)) return { dtype: 'float64', weak: false };
    if (strong.dtype === 'bool') return { dtype: weak.dtype, weak: false };
    return strong;
  }
  return { dtype: promote(a.dtype, b.dtype), weak: false };
}

/** Functions whose value is a truth value. */
const PREDICATES = new Set(['isnan', 'isinf', 'isfinite']);
/** Functions of complex values whose value is real: a complex's parts and its modulus. */
const REAL_OF_COMPLEX = new Set(['real', 'imag', 'abs']);

/** The type of a bitwise operation on `t`: integers only. */
function bitwiseType(t: ExprType, e: Expr): ExprType {
  if (!isInteger(t.dtype)) {
    const what = t.dtype === 'bool' ? "truth values (use 'and', 'or', 'not')" : `${t.dtype} values`;
    throw new LoomError(`bitwise operators take integers, not ${what}: ${printExpr(e)}`);
  }
  return t;
}

export type NameTypes = (name: string) => DType | undefined;

export function exprType(e: Expr, typeOf: NameTypes, functions?: FunctionTypes): ExprType {
  const rec = (x: Expr): ExprType => exprType(x, typeOf, functions);
  switch (e.kind) {
    case 'int': return WEAK_INT;
    case 'float': return e.dtype === undefined ? WEAK_FLOAT : { dtype: e.dtype, weak: false };
    case 'imag': return e.dtype === undefined ? WEAK_COMPLEX : { dtype: e.dtype, weak: false };
    case 'bool': return BOOL;
    case 'var':
    case 'subscript': {
      const name = e.kind === 'var' ? e.name : e.array;
      const t = typeOf(name);
      if (t === undefined) throw new LoomError(`the type of '${name}' is not known yet (pass data for it, or use addDtypes)`);
      return { dtype: t, weak: false };
    }
    case 'neg': return rec(e.operand);
    case 'bitnot': return bitwiseType(rec(e.operand), e);
    case 'binary': {
      const t = combineTypes(rec(e.left), rec(e.right));
      return ['&', '|', '^', '<<', '>>'].includes(e.op) ? bitwiseType(t, e) : t;
    }
    case 'compare':
    case 'logical':
    case 'not':
      return BOOL;
    case 'if': return combineTypes(rec(e.then), rec(e.otherwise));
    case 'cast': return { dtype: e.dtype as DType, weak: false };
    case 'reduce': return rec(e.body);
    case 'call': {
      if (isHardwareId(e)) return { dtype: INDEX_DTYPE, weak: false };
      if (e.dtype === undefined && e.args.length === 0) throw new LoomError(`function '${e.fn}' called without arguments: ${printExpr(e)}`);
      if (e.dtype !== undefined) return { dtype: e.dtype as DType, weak: false };
      const args = e.args.map(rec);
      const user = functions?.(e.fn, args.map((a) => a.dtype), e);
      if (user !== undefined) return { dtype: user, weak: false };
      const joined = args.reduce(combineTypes);
      if (PREDICATES.has(e.fn)) return BOOL;
      if (isComplex(joined.dtype)) {
        if (REAL_OF_COMPLEX.has(e.fn)) return { dtype: complexPart(joined.dtype), weak: joined.weak };
        return joined;
      }
      if (e.fn === 'real' || e.fn === 'imag' || e.fn === 'conj') return joined;
      if (FLOAT_FUNCTIONS.has(e.fn) && !isFloat(joined.dtype)) return { dtype: 'float64', weak: joined.weak };
      return joined;
    }
  }
}

/** Resolves a possibly weak type to a concrete dtype. */
export function concrete(t: ExprType): DType {
  return t.dtype;
}

/**
 * Fills in the dtypes of temporaries, and of arguments nobody typed that the kernel
 * writes, from the expressions assigned to them (loopy's type inference: typing `a`
 * as float32 makes `out = 2*a` float32). Names that stay unknown are left for the
 * caller to report.
 */
export function inferTypes(knl: LoopKernel): LoopKernel {
  const temps = new Map(knl.temporaries);
  const argTypes = new Map(knl.args.map((a) => [a.name, a.dtype]));
  const inames = new Set(knl.inames);
  const typeOf: NameTypes = (name) => (inames.has(name) ? INDEX_DTYPE : argTypes.has(name) ? argTypes.get(name) : temps.get(name)?.dtype);
  const functions = functionTypes(knl);
  // only what nobody declared is inferred; it may widen as more writers become typeable
  const inferred = [
    ...[...temps.values()].filter((t) => t.dtype === undefined).map((t) => t.name),
    ...knl.args.filter((a) => a.dtype === undefined).map((a) => a.name),
  ];
  const writersOf = new Map(inferred.map((name) => [name, knl.instructions.filter((insn) => {
    const target = insn.assignee;
    return insn.expression && target && (target.kind === 'var' ? target.name === name : target.kind === 'subscript' && target.array === name);
  })]));
  for (let round = 0, changed = true; changed && round < 4 * inferred.length + 4; round++) {
    changed = false;
    for (const name of inferred) {
      // writers that cannot be typed yet (they read something untyped, or the variable
      // itself: out = 2*out) contribute once the others have given types
      let found: ExprType | undefined;
      for (const insn of writersOf.get(name)!) {
        try {
          const ty = exprType(expandSubstitutions(insn.expression!, knl.substitutions), typeOf, functions);
          found = found ? combineTypes(found, ty) : ty;
        } catch {
          // not typeable yet
        }
      }
      if (!found || found.dtype === typeOf(name)) continue;
      const dtype = typeOf(name) === undefined ? found.dtype : combineTypes({ dtype: typeOf(name)!, weak: false }, found).dtype;
      if (dtype === typeOf(name)) continue;
      if (temps.has(name)) temps.set(name, { ...temps.get(name)!, dtype });
      else argTypes.set(name, dtype);
      changed = true;
    }
  }
  for (const t of temps.values()) {
    if (t.dtype === undefined) {
      throw new LoomError(`could not infer the type of temporary '${t.name}' (it depends on itself or on untyped data); declare it as <float32> ${t.name} = ...`);
    }
  }
  const args = knl.args.map((a) => (a.dtype === undefined && argTypes.get(a.name) !== undefined ? { ...a, dtype: argTypes.get(a.name) } : a));
  return knl.with({ temporaries: temps, args });
}
