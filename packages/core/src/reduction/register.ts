/**
 * `registerReduction`: a reduction of one's own, usable in every kernel as `name(i, e)` or
 * `reduce(name, i, e)` and on every target (its parts are Loom expressions).
 *
 *   registerReduction({ name: 'absmax', neutral: ['0'], combine: ['max(abs(a), abs(b))'] });
 *   makeKernel('{ [i]: 0<=i<n }', 'out = absmax(i, x[i])')
 */
import { isDType, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { float, int, type Expr } from '../expr/nodes.ts';
import { checkExpressionNode, freeVariables, parseExpression, substitute } from '../expr/index.ts';
import { globalFunction } from '../functions/user-functions.ts';
import { NAME_PATTERN } from '../names.ts';
import { addReductionOperation } from './operations.ts';

/** An expression as a definition may give it: a node, a text, or a number. */
type ExprLike = Expr | string | number;

/** A reduction operation for `registerReduction`: its neutral element and how to combine two values. */
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
  readonly combine:
    | readonly string[]
    | ((a: readonly Expr[], b: readonly Expr[], dtypes: readonly DType[]) => readonly ExprLike[]);
}

const DEFINITION_KEYS = ['name', 'arity', 'commutative', 'resultDtypes', 'neutral', 'combine'];

/**
 * Adds a reduction every kernel can use. Everything in `definition` is checked here, or, for
 * what its functions return, where they are called: a LoomError names the reduction and the
 * part that is wrong (a field, a dtype, an expression node built by hand).
 */
export function registerReduction(definition: ReductionDefinition): void {
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
    throw new LoomError(
      `registerReduction: expected { name, neutral, combine, arity?, commutative?, resultDtypes? }, got ${describe(definition)}`,
    );
  }
  for (const key of Object.keys(definition)) {
    if (!DEFINITION_KEYS.includes(key))
      throw new LoomError(`registerReduction: unknown field '${key}' (known: ${DEFINITION_KEYS.join(', ')})`);
  }
  const { name } = definition;
  if (typeof name !== 'string' || !NAME_PATTERN.test(name))
    throw new LoomError(
      `registerReduction: the name must be a name (letters, digits, '_'), got ${JSON.stringify(name)}`,
    );
  const where = `reduction '${name}'`;
  const fn = globalFunction(name);
  if (fn)
    throw new LoomError(
      `${where}: the function '${fn.name}' (registerFunction) has that name already; a reduction cannot shadow it: choose another name`,
    );
  const arity = definition.arity ?? 1;
  if (!Number.isInteger(arity) || arity < 1 || arity > 8)
    throw new LoomError(`${where}: arity must be an integer from 1 to 8, got ${describe(definition.arity)}`);
  const { commutative = true, resultDtypes, neutral } = definition;
  if (typeof commutative !== 'boolean')
    throw new LoomError(`${where}: commutative must be true or false, got ${describe(commutative)}`);
  if (resultDtypes !== undefined && typeof resultDtypes !== 'function') {
    throw new LoomError(
      `${where}: resultDtypes must be a function from the operands' dtypes to the results', got ${describe(resultDtypes)}`,
    );
  }
  if (typeof neutral !== 'function' && !Array.isArray(neutral)) {
    throw new LoomError(
      `${where}: neutral must be a list of expressions (texts, numbers or nodes) or a function of the results' dtypes, got ${describe(neutral)}`,
    );
  }
  if (typeof definition.combine !== 'function' && !Array.isArray(definition.combine)) {
    throw new LoomError(`${where}: combine must be a list of texts or a function, got ${describe(definition.combine)}`);
  }
  // a fixed neutral element is checked now, not at the first kernel that uses it
  const fixedNeutral = typeof neutral === 'function' ? undefined : results(neutral, arity, `${where}: neutral`);
  const combine =
    typeof definition.combine === 'function' ? definition.combine : combineFromTexts(definition.combine, arity, where);
  addReductionOperation({
    name,
    arity,
    commutative,
    resultDtypes: (operands) => {
      const dtypes: unknown = resultDtypes ? resultDtypes(operands) : operands;
      if (!Array.isArray(dtypes) || dtypes.length !== arity) {
        throw new LoomError(
          `${where}: resultDtypes(${operands.join(', ')}) must give a list of ${arity} dtype${arity === 1 ? '' : 's'}, got ${describe(dtypes)}`,
        );
      }
      for (const t of dtypes) {
        if (typeof t !== 'string' || !isDType(t))
          throw new LoomError(
            `${where}: resultDtypes(${operands.join(', ')}) gave ${describe(t)}, which is not a dtype`,
          );
      }
      return dtypes as readonly DType[];
    },
    neutral: (dtypes) =>
      fixedNeutral ??
      results(
        (neutral as (dtypes: readonly DType[]) => readonly ExprLike[])(dtypes),
        arity,
        `${where}: neutral(${dtypes.join(', ')})`,
      ),
    combine: (a, b, dtypes) => results(combine(a, b, dtypes), arity, `${where}: combine`),
  });
}

/** `['max(a, b)']` as a function of the operands: the names `a`, `b` (or `a0`, `b0`, ...) replaced. */
function combineFromTexts(texts: readonly string[], arity: number, where: string) {
  if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string'))
    throw new LoomError(`${where}: combine must be texts or a function`);
  const names = (side: 'a' | 'b') => (arity === 1 ? [side] : Array.from({ length: arity }, (_, k) => `${side}${k}`));
  const allowed = new Set([...names('a'), ...names('b')]);
  const templates = texts.map((text) => {
    const e = parse(text, `${where}: combine`);
    const unknown = [...freeVariables(e)].filter((n) => !allowed.has(n));
    if (unknown.length)
      throw new LoomError(
        `${where}: combine '${text}' names ${unknown.map((n) => `'${n}'`).join(', ')}; it may only name ${[...allowed].join(', ')}`,
      );
    return e;
  });
  if (templates.length !== arity)
    throw new LoomError(`${where}: combine gives ${templates.length} expressions for ${arity} results`);
  return (a: readonly Expr[], b: readonly Expr[]): Expr[] => {
    const values = new Map([
      ...names('a').map((n, k) => [n, a[k]] as const),
      ...names('b').map((n, k) => [n, b[k]] as const),
    ]);
    return templates.map((t) => substitute(t, values));
  };
}

function results(values: readonly ExprLike[], arity: number, where: string): Expr[] {
  if (!Array.isArray(values) || values.length !== arity)
    throw new LoomError(`${where} must give ${arity} expression${arity === 1 ? '' : 's'}, got ${describe(values)}`);
  return values.map((v, k) => toExpr(v, arity === 1 ? where : `${where}, result ${k}`));
}

function toExpr(v: ExprLike, where: string): Expr {
  if (typeof v === 'number') {
    // an integer beyond 2**53 is no exact int literal: kept as the float it is
    return Number.isSafeInteger(v) ? int(v) : float(v);
  }
  if (typeof v === 'string') return parse(v, where);
  if (typeof v === 'object' && v !== null) return checkExpressionNode(v, where);
  throw new LoomError(`${where}: ${describe(v)} is not an expression (give a text, a number or an expression node)`);
}

/** `text` parsed, its errors prefixed with which reduction and part it is. */
function parse(text: string, where: string): Expr {
  try {
    return parseExpression(text);
  } catch (e) {
    if (e instanceof LoomError) throw new LoomError(`${where}: ${e.message}`);
    throw e;
  }
}

function describe(v: unknown): string {
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v))
    return `[${v.map((x) => (typeof x === 'object' && x !== null ? '{...}' : describe(x))).join(', ')}]`;
  if (typeof v === 'object' && v !== null) return 'an object';
  return String(v);
}
