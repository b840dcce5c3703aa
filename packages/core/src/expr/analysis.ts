/**
 * Questions about expressions: which names they read, which arrays they access, whether two
 * are the same; and substitution of names by expressions.
 *
 * A reduction binds its inames: in `sum(k, a[k]*x)` the `k` is the reduction's own, not a
 * name from outside, so it is not free and a substitution for `k` does not reach inside.
 */
import { LoomError } from '../errors.ts';
import { KNOWN_FUNCTIONS, type Expr, type Subscript } from './nodes.ts';
import { children, mapChildren, walk, walkScoped } from './visit.ts';

/**
 * The names `e` reads as values (variables, including those in subscripts' indices), less
 * the inames bound by reductions around them and those in `bound`. Array names of
 * subscripts and function names are not included: see `arraysAccessed`.
 */
export function freeVariables(e: Expr, bound: readonly string[] = []): Set<string> {
  const free = new Set<string>();
  walkScoped(
    e,
    (x, b) => {
      if (x.kind === 'var' && !b.includes(x.name)) free.add(x.name);
    },
    bound,
  );
  return free;
}

/** The inames that the reductions in `e` run over (bound there, so not in `freeVariables`). */
export function reductionInamesIn(e: Expr): Set<string> {
  const out = new Set<string>();
  walk(e, (x) => {
    if (x.kind === 'reduce') for (const n of x.inames) out.add(n);
  });
  return out;
}

/** Every subscript in `e`, grouped by array name (in order of appearance). */
export function arraysAccessed(e: Expr): Map<string, Subscript[]> {
  const accesses = new Map<string, Subscript[]>();
  walk(e, (x) => {
    if (x.kind !== 'subscript') return;
    const list = accesses.get(x.array);
    if (list) list.push(x);
    else accesses.set(x.array, [x]);
  });
  return accesses;
}

/**
 * Replaces free variables by expressions. Reduction inames shadow: inside `sum(k, ...)` a
 * replacement for `k` does not apply. A replacement that would bring a name into a reduction
 * binding that same name (`x -> k` inside `sum(k, x*a[k])`) changes the meaning; there is no
 * fresh iname to rename to at this level, so that is an error.
 *
 * Only variables are replaced; array names of subscripts and function names are not.
 */
export function substitute(e: Expr, replacements: ReadonlyMap<string, Expr> | Readonly<Record<string, Expr>>): Expr {
  const map: ReadonlyMap<string, Expr> =
    replacements instanceof Map ? replacements : new Map(Object.entries(replacements as Record<string, Expr>));
  return map.size === 0 ? e : substituteIn(e, map);
}

function substituteIn(e: Expr, map: ReadonlyMap<string, Expr>): Expr {
  // one closure for the whole tree, not one per node (unrolled copies substitute thousands)
  const within = (x: Expr): Expr => {
    if (x.kind === 'var') return map.get(x.name) ?? x;
    return x.kind === 'reduce' ? substituteInReduction(x, map) : mapChildren(x, within);
  };
  return within(e);
}

function substituteInReduction(e: Extract<Expr, { kind: 'reduce' }>, map: ReadonlyMap<string, Expr>): Expr {
  const inner = new Map([...map].filter(([name]) => !e.inames.includes(name)));
  if (inner.size === 0) return e;
  const used = new Set(e.operands.flatMap((x) => [...freeVariables(x)]));
  for (const [name, value] of inner) {
    if (!used.has(name)) continue;
    const captured = e.inames.find((iname) => freeVariables(value).has(iname));
    if (captured !== undefined) {
      throw new LoomError(
        `substituting '${name}' inside ${e.op}(${e.inames.join(', ')}, ...) would capture the reduction iname '${captured}'`,
      );
    }
  }
  return mapChildren(e, (c) => substituteIn(c, inner));
}

/** Structural equality (floats compared with `Object.is`, so `-0.0` differs from `0.0`). */
export function exprEquals(a: Expr, b: Expr): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'int':
    case 'bool':
      return a.value === (b as typeof a).value;
    case 'float':
    case 'imag':
      return Object.is(a.value, (b as typeof a).value) && a.dtype === (b as typeof a).dtype;
    case 'var':
      return a.name === (b as typeof a).name;
    case 'subscript':
      if (a.array !== (b as typeof a).array || a.linear !== (b as typeof a).linear || a.tag !== (b as typeof a).tag)
        return false;
      if (!sameFieldPath(a.field?.path, (b as typeof a).field?.path)) return false;
      break;
    case 'binary':
    case 'compare':
    case 'logical':
      if (a.op !== (b as typeof a).op) return false;
      break;
    case 'call':
      if (a.fn !== (b as typeof a).fn || a.tag !== (b as typeof a).tag || a.dtype !== (b as typeof a).dtype)
        return false;
      break;
    case 'cast':
      if (a.dtype !== (b as typeof a).dtype) return false;
      break;
    case 'reduce': {
      const other = b as typeof a;
      if (a.op !== other.op || a.simultaneous !== other.simultaneous || a.inames.length !== other.inames.length)
        return false;
      if (a.inames.some((name, i) => name !== other.inames[i])) return false;
      break;
    }
    case 'neg':
    case 'bitnot':
    case 'not':
    case 'if':
      break;
  }
  const ca = children(a);
  const cb = children(b);
  return ca.length === cb.length && ca.every((c, i) => exprEquals(c, cb[i]));
}

/**
 * Whether `e`'s value is fixed: built from literals with operators, casts and known
 * functions only. Variables, array elements, reductions (their value depends on a domain)
 * and calls of other names (substitution rules, unknown functions) make it non-constant.
 */
export function isConstant(e: Expr): boolean {
  switch (e.kind) {
    case 'int':
    case 'float':
    case 'imag':
    case 'bool':
      return true;
    case 'var':
    case 'subscript':
    case 'reduce':
      return false;
    case 'call':
      return Object.hasOwn(KNOWN_FUNCTIONS, e.fn) && e.args.every(isConstant);
    default:
      return children(e).every(isConstant);
  }
}

/** Whether two subscripts reach the same field (or both the whole element). */
function sameFieldPath(
  a: readonly (string | number)[] | undefined,
  b: readonly (string | number)[] | undefined,
): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((step, k) => step === b[k]);
}

/**
 * `a + b - c` as its terms, each with the sign it is summed with (`neg` terms are kept as terms).
 * ```ts
 * additiveTerms(parseExpression('a + b - c'), '+'); // a (+), b (+), c (-)
 * ```
 */
export function additiveTerms(e: Expr, sign: '+' | '-'): { readonly term: Expr; readonly sign: '+' | '-' }[] {
  if (e.kind === 'binary' && (e.op === '+' || e.op === '-')) {
    const flipped = sign === '+' ? '-' : '+';
    return [...additiveTerms(e.left, sign), ...additiveTerms(e.right, e.op === '+' ? sign : flipped)];
  }
  return [{ term: e, sign }];
}
