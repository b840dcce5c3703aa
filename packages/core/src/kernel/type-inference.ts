/**
 * Types of expressions, numpy-style, with literals as *weak* scalars (NEP 50): `2*a`
 * stays float32 for a float32 `a`. A float literal is sized as loopy sizes it: float32 when
 * float32 holds its value exactly (`1.0`, `0.5`), else float64 (`0.1`), so `b + c + 1.0` is
 * float32 for int32 `b`, `c` (loopy's int32-meets-float32 rule) and `0.1*k` float64. Inames and domain
 * parameters are int32. Integer `/` stays integer (C division), as loopy does. The pass
 * that types temporaries and outputs from these rules is ../preprocess/infer-types.ts.
 */
import { mathFunctionsWhere } from '../expr/math-functions.ts';
import { isSubgroupFunction, subgroupFunction, type SubgroupFunctionName } from '../expr/subgroup-functions.ts';
import { isAtomicFunction } from '../expr/atomic-functions.ts';
import { complexPart, isComplex, isFloat, isInteger, promote, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { Expr, Reduce } from '../expr/nodes.ts';
import { printExpr } from '../expr/index.ts';
import { reductionOperation } from '../reduction/registry.ts';
import { perObjectWhile } from '../memo.ts';

/** The type inference finds for an expression: its dtype, and whether it is a weak literal type. */
export interface ExprType {
  /** The expression's dtype. */
  readonly dtype: DType;
  /** A literal's type, which yields to the other operand's kind-compatible type. */
  readonly weak: boolean;
}

const WEAK_INT: ExprType = { dtype: 'int32', weak: true };
const WEAK_FLOAT32: ExprType = { dtype: 'float32', weak: true };
const WEAK_FLOAT64: ExprType = { dtype: 'float64', weak: true };
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
const FLOAT_FUNCTIONS: ReadonlySet<string> = mathFunctionsWhere((f) => f.result === 'float');

/**
 * The result dtype of a call of a user function (functions/), for its arguments' dtypes;
 * `undefined` when `fn` is no user function. A call resolved once types are known carries
 * its dtype itself (`Call.dtype`), so only type inference needs this.
 */
export type FunctionTypes = (fn: string, args: readonly DType[], e: Expr) => DType | undefined;

/** The type of an arithmetic operation on operands of types `a` and `b` (numpy's promotion). */
export function combineTypes(a: ExprType, b: ExprType): ExprType {
  if (a.weak && b.weak) {
    if (isComplex(a.dtype) || isComplex(b.dtype)) return WEAK_COMPLEX;
    if (isFloat(a.dtype) && isFloat(b.dtype))
      return a.dtype === 'float64' || b.dtype === 'float64' ? WEAK_FLOAT64 : WEAK_FLOAT32;
    return isFloat(a.dtype) ? a : isFloat(b.dtype) ? b : WEAK_INT;
  }
  if (a.weak || b.weak) {
    const strong = a.weak ? b : a;
    const weak = a.weak ? a : b;
    if (isComplex(weak.dtype) && !isComplex(strong.dtype)) {
      // a complex literal keeps a float's width (float32 data and 1j stay complex64); integers meet it in complex128
      return { dtype: isFloat(strong.dtype) && strong.dtype !== 'float64' ? 'complex64' : 'complex128', weak: false };
    }
    if (isFloat(weak.dtype) && isInteger(strong.dtype))
      return { dtype: literalMeetsInteger(strong.dtype, weak.dtype), weak: false };
    if (strong.dtype === 'bool') return { dtype: weak.dtype, weak: false };
    return strong;
  }
  return { dtype: promote(a.dtype, b.dtype), weak: false };
}

/**
 * The dtype of an integer `int` and a float literal of `literal`'s size: numpy's promotion,
 * except that int32 with float32 stays float32 (loopy's one exception: `i + 1.0` for an
 * int32 iname is float32, not double). Integers float32 cannot hold exactly (int64,
 * uint32 and wider) meet it in float64, as numpy has them.
 */
function literalMeetsInteger(int: DType, literal: DType): DType {
  if (literal !== 'float32') return 'float64';
  return int === 'int8' || int === 'uint8' || int === 'int16' || int === 'uint16' || int === 'int32'
    ? 'float32'
    : 'float64';
}

/**
 * The size loopy gives a float literal of no stated dtype: float32 when float32 holds its
 * value exactly (`1.0`, `0.25`, infinity), else float64 (`0.1`, `1e300`). NaN is float64, as
 * in loopy, whose test `np.float32(x) == np.float64(x)` no NaN passes.
 */
export function floatLiteralType(value: number): ExprType {
  return Math.fround(value) === value ? WEAK_FLOAT32 : WEAK_FLOAT64;
}

/** Functions whose value is a truth value. */
const PREDICATES: ReadonlySet<string> = mathFunctionsWhere((f) => f.result === 'truth');
/** Functions of complex values whose value is real: a complex's parts and its modulus. */
const REAL_OF_COMPLEX: ReadonlySet<string> = mathFunctionsWhere((f) => f.realOfComplex === true);
/** Functions on the bits of 32- and 64-bit integers. */
const INTEGER_BITS: ReadonlySet<string> = mathFunctionsWhere((f) => f.integerBits === true);
const WORDS: ReadonlySet<DType> = new Set<DType>(['int32', 'uint32', 'int64', 'uint64']);

/** The type of a bitwise operation on `t`: integers only. */
function bitwiseType(t: ExprType, e: Expr): ExprType {
  if (!isInteger(t.dtype)) {
    const what = t.dtype === 'bool' ? "truth values (use 'and', 'or', 'not')" : `${t.dtype} values`;
    throw new LoomError(`bitwise operators take integers, not ${what}: ${printExpr(e)}`);
  }
  return t;
}

/** The dtype of a name, where known. */
export type NameTypes = (name: string) => DType | undefined;

const BITWISE: ReadonlySet<string> = new Set(['&', '|', '^', '<<', '>>']);

/** The type of an expression, given the dtypes of the names in it. */
export function exprType(e: Expr, typeOf: NameTypes, functions?: FunctionTypes): ExprType {
  return nodeType(e, typeOf, functions, undefined);
}

/**
 * `exprType` remembered per expression node (nodes are immutable), the sub-expressions' too:
 * a printer asks for the type of every node it prints, and of its operands again and again.
 * Valid while `typeOf` and `functions` answer the same; it keeps every node it saw, so hold it for one printing.
 */
export function exprTypes(typeOf: NameTypes, functions?: FunctionTypes): (e: Expr) => ExprType {
  const memo = perObjectWhile((e: Expr): ExprType => nodeType(e, typeOf, functions, memo));
  return memo;
}

/** A sub-expression's type: through the memo when there is one. (No closure per call: this is hot.) */
function childType(
  x: Expr,
  typeOf: NameTypes,
  functions: FunctionTypes | undefined,
  memo: ((e: Expr) => ExprType) | undefined,
): ExprType {
  return memo ? memo(x) : nodeType(x, typeOf, functions, undefined);
}

function nodeType(
  e: Expr,
  typeOf: NameTypes,
  functions: FunctionTypes | undefined,
  memo: ((e: Expr) => ExprType) | undefined,
): ExprType {
  switch (e.kind) {
    case 'int':
      return WEAK_INT;
    case 'float':
      return e.dtype === undefined ? floatLiteralType(e.value) : { dtype: e.dtype, weak: false };
    case 'imag':
      return e.dtype === undefined ? WEAK_COMPLEX : { dtype: e.dtype, weak: false };
    case 'bool':
      return BOOL;
    case 'var':
    case 'subscript': {
      // a field of a struct element: its own dtype, resolved by the front end (frontend/struct-fields.ts)
      if (e.kind === 'subscript' && e.field?.dtype !== undefined) return { dtype: e.field.dtype, weak: false };
      const name = e.kind === 'var' ? e.name : e.array;
      const t = typeOf(name);
      if (t === undefined)
        throw new LoomError(`the type of '${name}' is not known yet (pass data for it, or use addDtypes)`);
      return { dtype: t, weak: false };
    }
    case 'neg':
      return childType(e.operand, typeOf, functions, memo);
    case 'bitnot':
      return bitwiseType(childType(e.operand, typeOf, functions, memo), e);
    case 'binary': {
      const t = combineTypes(childType(e.left, typeOf, functions, memo), childType(e.right, typeOf, functions, memo));
      return BITWISE.has(e.op) ? bitwiseType(t, e) : t;
    }
    case 'compare':
    case 'logical':
    case 'not':
      return BOOL;
    case 'if':
      return combineTypes(childType(e.then, typeOf, functions, memo), childType(e.otherwise, typeOf, functions, memo));
    case 'cast':
      return { dtype: e.dtype as DType, weak: false };
    case 'reduce': {
      const results = reductionResultTypes(e, typeOf);
      if (results.length !== 1) {
        throw new LoomError(
          `${e.op}() yields ${results.length} results, not one value: assign them with 'v, k = ${e.op}(...)' (${printExpr(e)})`,
        );
      }
      return results[0];
    }
    case 'call': {
      if (isHardwareId(e)) return { dtype: INDEX_DTYPE, weak: false };
      if (e.dtype === 'void')
        throw new LoomError(
          `function '${e.fn}' returns nothing (its signature's result is void): ${printExpr(e)} has no value to use`,
        );
      if (e.dtype !== undefined) return { dtype: e.dtype as DType, weak: false };
      // loopy's indexof and indexof_vec: an element's flat index, an int32 (preprocess/lower-indexof.ts)
      if (e.fn === 'indexof' || e.fn === 'indexof_vec') return { dtype: INDEX_DTYPE, weak: false };
      const args = e.args.map((x) => childType(x, typeOf, functions, memo));
      if (isSubgroupFunction(e.fn)) return subgroupCallType(e, args);
      // an atomic fetch returns the element's old value: the element's dtype (its operands are converted to it)
      if (isAtomicFunction(e.fn)) return { dtype: args[0].dtype, weak: false };
      const user = functions?.(
        e.fn,
        args.map((a) => a.dtype),
        e,
      );
      if (user !== undefined) return { dtype: user, weak: false };
      // a user function's signature may take no arguments; a built-in's type comes from its arguments
      if (args.length === 0) throw new LoomError(`function '${e.fn}' called without arguments: ${printExpr(e)}`);
      const joined = args.reduce(combineTypes);
      if (PREDICATES.has(e.fn)) return BOOL;
      if (INTEGER_BITS.has(e.fn)) {
        // a weak literal alone is an int32 here, as it is stored
        const t = joined.weak && isInteger(joined.dtype) ? { dtype: INDEX_DTYPE, weak: false } : joined;
        if (!WORDS.has(t.dtype))
          throw new LoomError(
            `${e.fn} works on the bits of 32- and 64-bit integers, not ${t.dtype} values: ${printExpr(e)}`,
          );
        return t;
      }
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

/** The dtypes a subgroup function's value may have (a target may take fewer: its `subgroups` fact). */
const SUBGROUP_DTYPES: ReadonlySet<DType> = new Set<DType>([
  'int32',
  'uint32',
  'float32',
  'int64',
  'uint64',
  'float64',
]);

/** A subgroup function's result: an int32 id, or its value's dtype (a weak literal as it is stored). */
function subgroupCallType(e: Expr & { kind: 'call' }, args: readonly ExprType[]): ExprType {
  const f = subgroupFunction(e.fn as SubgroupFunctionName);
  if (f.kind === 'id') return { dtype: INDEX_DTYPE, weak: false };
  const [value, lane] = args;
  if (lane !== undefined && !isInteger(lane.dtype))
    throw new LoomError(
      `${e.fn}: its second argument is a lane, an integer, not a ${lane.dtype} value: ${printExpr(e)}`,
    );
  const dtype = value.weak && isInteger(value.dtype) ? INDEX_DTYPE : value.dtype;
  if (!SUBGROUP_DTYPES.has(dtype))
    throw new LoomError(
      `${e.fn} works on 32- and 64-bit integers and floats, not ${dtype} values (cast the value): ${printExpr(e)}`,
    );
  return { dtype, weak: false };
}

/**
 * The types of what a reduction yields, one per result, from its operation's dtype rule. A
 * result of the operand's own dtype stays as weak as the operand (`sum(i, 2)` is a weak int).
 */
export function reductionResultTypes(e: Reduce, typeOf: NameTypes, functions?: FunctionTypes): ExprType[] {
  // a nest of one operation (splitReductionInward on argmax): the inner results are the values
  const [only] = e.operands;
  const nested =
    e.operands.length === 1 && only.kind === 'reduce' && only.op === e.op && reductionOperation(e.op).arity > 1;
  const operands = nested
    ? reductionResultTypes(only, typeOf, functions)
    : e.operands.map((x) => exprType(x, typeOf, functions));
  if (e.inames.length === 0) return operands;
  const dtypes = reductionOperation(e.op).resultDtypes(operands.map((t) => t.dtype));
  return dtypes.map((dtype, k) => ({
    dtype,
    weak: operands[k] !== undefined && operands[k].weak && operands[k].dtype === dtype,
  }));
}

/** The types of what an instruction's right-hand side yields: one, or one per target of a multiple assignment. */
export function resultTypes(e: Expr, typeOf: NameTypes, functions?: FunctionTypes): ExprType[] {
  return e.kind === 'reduce' ? reductionResultTypes(e, typeOf, functions) : [exprType(e, typeOf, functions)];
}

/** Resolves a possibly weak type to a concrete dtype. */
export function concrete(t: ExprType): DType {
  return t.dtype;
}
