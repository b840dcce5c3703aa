/**
 * `registerReduction`: a reduction of one's own, usable in every kernel as `name(i, e)` or
 * `reduce(name, i, e)` and on every target (its parts are Loom expressions).
 *
 *   registerReduction({ name: 'absmax', neutral: ['0'], combine: ['max(abs(a), abs(b))'] });
 *   makeKernel('{ [i]: 0<=i<n }', 'out = absmax(i, x[i])')
 */
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { float, int, type Expr } from '../expr/nodes.ts';
import { freeVariables, parseExpression, substitute } from '../expr/index.ts';
import { NAME_PATTERN } from '../names.ts';
import { addReductionOperation } from './operations.ts';

/** An expression as a definition may give it: a node, a text, or a number. */
type ExprLike = Expr | string | number;

export interface ReductionDefinition {
  /** How kernels call it: `name(i, e)`, or `reduce(name, i, e)`. A name, not a function's or a dtype's. */
  readonly name: string;
  /** Values per point, and results (2 for an argmax-like pair). Default 1. */
  readonly arity?: number;
  /**
   * Whether partial results may be combined in any order (default true). Parallel (local)
   * reductions combine them in a tree, in no fixed order; an operation that is only
   * associative (say `false`) reduces sequentially, in the order of the iname.
   */
  readonly commutative?: boolean;
  /** The results' dtypes from the operands' (default: the same). */
  readonly resultDtypes?: (operands: readonly DType[]) => readonly DType[];
  /**
   * The neutral element, one per result: `x ⊕ neutral = x`, and what a reduction over an empty
   * domain yields. Texts or numbers (`['0']`, `[-Infinity]`), or a function of the results' dtypes.
   */
  readonly neutral: readonly ExprLike[] | ((dtypes: readonly DType[]) => readonly ExprLike[]);
  /**
   * `a ⊕ b`, one expression per result. Texts name the two operands `a` and `b` (arity 1) or
   * `a0, a1, ...` and `b0, b1, ...`; a function gets them as expressions, with the results' dtypes.
   * It must be associative: parallel reductions combine partial results in a tree.
   */
  readonly combine: readonly string[] | ((a: readonly Expr[], b: readonly Expr[], dtypes: readonly DType[]) => readonly ExprLike[]);
}

const DEFINITION_KEYS = ['name', 'arity', 'commutative', 'resultDtypes', 'neutral', 'combine'];

export function registerReduction(definition: ReductionDefinition): void {
  for (const key of Object.keys(definition)) {
    if (!DEFINITION_KEYS.includes(key)) throw new LoomError(`registerReduction: unknown field '${key}' (known: ${DEFINITION_KEYS.join(', ')})`);
  }
  const { name } = definition;
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) throw new LoomError(`registerReduction: the name must be a name (letters, digits, '_'), got ${JSON.stringify(name)}`);
  const arity = definition.arity ?? 1;
  const where = `reduction '${name}'`;
  const neutral = definition.neutral;
  const combine = typeof definition.combine === 'function' ? definition.combine : combineFromTexts(definition.combine, arity, where);
  addReductionOperation({
    name,
    arity,
    commutative: definition.commutative ?? true,
    resultDtypes: (operands) => {
      const dtypes = definition.resultDtypes ? definition.resultDtypes(operands) : operands;
      if (dtypes.length !== arity) throw new LoomError(`${where}: resultDtypes gave ${dtypes.length} dtypes for ${arity} results`);
      return dtypes;
    },
    neutral: (dtypes) => results(typeof neutral === 'function' ? neutral(dtypes) : neutral, arity, `${where}: neutral`),
    combine: (a, b, dtypes) => results(combine(a, b, dtypes), arity, `${where}: combine`),
  });
}

/** `['max(a, b)']` as a function of the operands: the names `a`, `b` (or `a0`, `b0`, ...) replaced. */
function combineFromTexts(texts: readonly string[], arity: number, where: string) {
  if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) throw new LoomError(`${where}: combine must be texts or a function`);
  const names = (side: 'a' | 'b') => (arity === 1 ? [side] : Array.from({ length: arity }, (_, k) => `${side}${k}`));
  const allowed = new Set([...names('a'), ...names('b')]);
  const templates = texts.map((text) => {
    const e = parseExpression(text);
    const unknown = [...freeVariables(e)].filter((n) => !allowed.has(n));
    if (unknown.length) throw new LoomError(`${where}: combine '${text}' names ${unknown.map((n) => `'${n}'`).join(', ')}; it may only name ${[...allowed].join(', ')}`);
    return e;
  });
  if (templates.length !== arity) throw new LoomError(`${where}: combine gives ${templates.length} expressions for ${arity} results`);
  return (a: readonly Expr[], b: readonly Expr[]): Expr[] => {
    const values = new Map([...names('a').map((n, k) => [n, a[k]] as const), ...names('b').map((n, k) => [n, b[k]] as const)]);
    return templates.map((t) => substitute(t, values));
  };
}

function results(values: readonly ExprLike[], arity: number, where: string): Expr[] {
  if (!Array.isArray(values) || values.length !== arity) throw new LoomError(`${where} must give ${arity} expression${arity === 1 ? '' : 's'}`);
  return values.map((v) => toExpr(v, where));
}

function toExpr(v: ExprLike, where: string): Expr {
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return int(v);
    return float(v);
  }
  if (typeof v === 'string') return parseExpression(v);
  if (v && typeof v === 'object' && typeof (v as Expr).kind === 'string') return v;
  throw new LoomError(`${where}: ${String(v)} is not an expression (give a text, a number or an expression node)`);
}
