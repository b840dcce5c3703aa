/**
 * `BasicSet`: a conjunction of affine constraints over integer variables, as loop
 * domains are. Three kinds of variables:
 *  - params: symbolic constants (`n`), ordered;
 *  - dims: the set's own variables (inames), in declared order;
 *  - existentials: internal variables that are quantified away (`i mod 3 = 0` is
 *    `exists e: i = 3e`); they keep projections and strides exact.
 *
 * Immutable. Every operation returns a simplified set (existentials eliminated where
 * that is exact, constraints normalized and deduplicated). Variables of two sets are
 * matched by name. Emptiness, membership and implication are exact on the integers
 * (omega.ts); bounds come from Fourier–Motzkin (projection.ts), valid and as tight as
 * FM gives.
 */
import { type Linear, gcd } from '../linear.ts';
import {
  type Bound,
  type Constraint,
  FALSE,
  assign,
  divideFloor,
  isFalse,
  renameIn,
  variablesOf,
} from './constraint.ts';
import { simplifyExistentials } from './existentials.ts';
import { freshName } from './names.ts';
import { CanonicalKey, type PositionalConstraint, fromPositions, setCache, toPositions } from './canonical.ts';
import { hasIntegerPoint, implies } from './omega.ts';
import { parseConditions, parseSet } from './parse.ts';
import { printSet } from './print.ts';
import { parsedTextCache } from '../lru.ts';
import { eliminateApprox, removeRedundant } from './projection.ts';

export type { Bound, Constraint } from './constraint.ts';

/** A conjunction of affine constraints over dimensions and parameters (isl's basic set): a domain. */
export class BasicSet {
  private constructor(
    /** The parameters (symbolic constants), in order. */
    readonly params: readonly string[],
    /** The set variables (inames), in declared order. */
    readonly dims: readonly string[],
    /** The variables quantified away. */
    readonly existentials: readonly string[],
    /** The affine constraints, all of which hold in the set. */
    readonly constraints: readonly Constraint[],
  ) {
    Object.freeze(this);
  }

  // ---- construction ------------------------------------------------------------------

  /**
   * The set of every integer point of the space (isl's universe): no constraints. A name
   * declared twice is an error.
   */
  static universe(params: readonly string[], dims: readonly string[]): BasicSet {
    checkDistinct([...params, ...dims]);
    return new BasicSet([...params], [...dims], [], []);
  }

  /** ISL set syntax, e.g. `[n] -> { [i, j] : 0 <= i, j < n }`; throws a LoomError pointing at the problem. */
  static parse(text: string): BasicSet {
    const known = PARSED_SETS.get(text);
    if (known) return known;
    const p = parseSet(text);
    const set = BasicSet.fromConstraints(p.params, p.dims, p.constraints, p.existentials);
    // a set is immutable, so the same text may share it; one with existentials is not kept, as
    // each parse names those afresh (two domains of one kernel must not share the names)
    if (set.existentials.length === 0) PARSED_SETS.set(text, set);
    return set;
  }

  /** A bare condition such as loopy's assumptions, `n >= 1 and n mod 16 = 0`: every name is a parameter. */
  static parseConditions(text: string, params: readonly string[] = []): BasicSet {
    const key = `${params.join(',')}\u0000${text}`;
    const known = PARSED_CONDITIONS.get(key);
    if (known) return known;
    const p = parseConditions(text, params);
    const set = BasicSet.fromConstraints(p.params, [], p.constraints, p.existentials);
    if (set.existentials.length === 0) PARSED_CONDITIONS.set(key, set);
    return set;
  }

  /**
   * A set from its parts. Names used by the constraints but not declared become
   * parameters; `existentials` lists the names that are quantified away.
   */
  static fromConstraints(
    params: readonly string[],
    dims: readonly string[],
    constraints: readonly Constraint[],
    existentials: readonly string[] = [],
  ): BasicSet {
    const declared = [...params, ...dims, ...existentials];
    checkDistinct(declared);
    const extra = variablesOf(constraints).filter((n) => !declared.includes(n));
    const simple = simplifyExistentials(constraints, existentials);
    return new BasicSet([...params, ...extra], [...dims], simple.existentials, simple.constraints);
  }

  /**
   * The set `compute` makes, remembered under `key` up to renaming (canonical.ts): the same
   * question asked again in other names gets the same set in its own names, without the work.
   * A set that mentions a name the key does not know (a fresh one) is not remembered.
   */
  static remembered(key: CanonicalKey, compute: () => BasicSet): BasicSet {
    const known = rememberedSets.get(key.key);
    if (known) {
      const names = (list: readonly number[]) => list.map((i) => key.names[i]!);
      return new BasicSet(
        names(known.params),
        names(known.dims),
        names(known.existentials),
        fromPositions(known.constraints, key.names),
      );
    }
    const set = compute();
    const positions = (list: readonly string[]) => list.map((n) => key.index.get(n));
    const [params, dims, existentials] = [positions(set.params), positions(set.dims), positions(set.existentials)];
    const all = [...set.params, ...set.dims, ...set.existentials];
    if (
      [...params, ...dims, ...existentials].every((i) => i !== undefined) &&
      variablesOf(set.constraints).every((n) => all.includes(n))
    ) {
      rememberedSets.set(key.key, {
        params: params as number[],
        dims: dims as number[],
        existentials: existentials as number[],
        constraints: toPositions(set.constraints, key.index),
      });
    }
    return set;
  }

  // ---- changing the space ------------------------------------------------------------

  /**
   * The set with the constraints `cs` added (an intersection), simplified; names the space does
   * not have become parameters.
   */
  addConstraints(cs: readonly Constraint[]): BasicSet {
    return BasicSet.fromConstraints(this.params, this.dims, [...this.constraints, ...cs], this.existentials);
  }

  // New variables that no constraint mentions leave a simplified set as simplified as it was:
  // no need to simplify it again (code generation adds a loop's iname to a set at every level).

  /**
   * The set with new set variables, unconstrained, after the existing ones. An existential of
   * the same name (an iname projected out, then added back as a loop's) is renamed apart.
   */
  addDims(names: readonly string[]): BasicSet {
    checkDistinct([...this.params, ...this.dims, ...names]);
    const apart = this.existentialsApartFrom(names);
    return new BasicSet(this.params, [...this.dims, ...names], apart.existentials, apart.constraints);
  }

  /** The set with new parameters, unconstrained, after the existing ones (existentials of their names renamed apart). */
  addParams(names: readonly string[]): BasicSet {
    checkDistinct([...this.params, ...names, ...this.dims]);
    const apart = this.existentialsApartFrom(names);
    return new BasicSet([...this.params, ...names], this.dims, apart.existentials, apart.constraints);
  }

  /** Makes set variables parameters (a later loop domain sees an outer iname as a parameter). */
  moveDimsToParams(names: readonly string[]): BasicSet {
    for (const n of names) this.require(n, this.dims, 'a set variable');
    const dims = this.dims.filter((d) => !names.includes(d));
    return new BasicSet([...this.params, ...names], dims, this.existentials, this.constraints);
  }

  /**
   * Makes parameters set variables, appended after the existing ones (the inverse of
   * `moveDimsToParams`).
   */
  moveParamsToDims(names: readonly string[]): BasicSet {
    for (const n of names) this.require(n, this.params, 'a parameter');
    const params = this.params.filter((p) => !names.includes(p));
    return new BasicSet(params, [...this.dims, ...names], this.existentials, this.constraints);
  }

  /**
   * A parameter or set variable renamed; `to` must be a new name. Returns the set itself when
   * the names are the same.
   */
  renameVariable(from: string, to: string): BasicSet {
    if (from === to) return this;
    this.require(from, [...this.params, ...this.dims], 'a parameter or set variable');
    if (this.has(to)) throw new Error(`BasicSet.renameVariable: '${to}' already exists in ${this.toString()}`);
    const swap = (names: readonly string[]) => names.map((n) => (n === from ? to : n));
    const renaming = new Map([[from, to]]);
    const constraints = this.constraints.map((c) => ({ kind: c.kind, expr: renameIn(c.expr, renaming) }));
    return new BasicSet(swap(this.params), swap(this.dims), this.existentials, constraints);
  }

  /**
   * Both sets' constraints. Variables are matched by name; a name that is a set variable
   * in either set is one in the result (an outer iname used as a parameter meets its loop).
   */
  intersect(other: BasicSet): BasicSet {
    const dims = [...this.dims, ...other.dims.filter((d) => !this.dims.includes(d))];
    const params = [...this.params, ...other.params.filter((p) => !this.params.includes(p))].filter(
      (p) => !dims.includes(p),
    );
    // Existentials are local to each set: rename the other's apart if a name is shared.
    const renaming = new Map(other.existentials.filter((e) => this.has(e)).map((e) => [e, freshName('e')] as const));
    const theirs = other.constraints.map((c) => ({ kind: c.kind, expr: renameIn(c.expr, renaming) }));
    const existentials = [...this.existentials, ...other.existentials.map((e) => renaming.get(e) ?? e)];
    return BasicSet.fromConstraints(params, dims, [...this.constraints, ...theirs], existentials);
  }

  /** Exact projection: the named params/dims become existentials (and vanish where that is exact). */
  project(names: readonly string[]): BasicSet {
    for (const n of names) this.require(n, [...this.params, ...this.dims], 'a parameter or set variable');
    const keep = (list: readonly string[]) => list.filter((n) => !names.includes(n));
    return BasicSet.fromConstraints(keep(this.params), keep(this.dims), this.constraints, [
      ...this.existentials,
      ...names,
    ]);
  }

  // ---- questions ---------------------------------------------------------------------

  /** v >= max(ceil(expr/divisor)) over the returned bounds, in terms of `keep` and the params. */
  lowerBounds(v: string, keep: readonly string[]): Bound[] {
    return this.bounds(v, keep, 1);
  }

  /** v <= min(floor(expr/divisor)) over the returned bounds, in terms of `keep` and the params. */
  upperBounds(v: string, keep: readonly string[]): Bound[] {
    return this.bounds(v, keep, -1);
  }

  /** Whether no integer values of the parameters and variables satisfy the constraints (exact: the Omega test). */
  isEmpty(): boolean {
    return isFalse(this.constraints) || !hasIntegerPoint(this.constraints);
  }

  /** `point` gives every parameter and set variable; existentials are searched for. */
  contains(point: Readonly<Record<string, number>>): boolean {
    const values = new Map<string, number>();
    for (const n of [...this.params, ...this.dims]) {
      const v = point[n];
      if (v === undefined) throw new Error(`BasicSet.contains: no value for '${n}' in ${this.toString()}`);
      values.set(n, v);
    }
    return hasIntegerPoint(this.constraints.map((c) => ({ kind: c.kind, expr: assign(c.expr, values) })));
  }

  /** Every integer point of the set satisfies `c` (over its params and dims). */
  implies(c: Constraint): boolean {
    return implies(this.constraints, c);
  }

  /**
   * Like isl's gist: drops each constraint that the context together with the remaining
   * constraints implies, so the result has the same points as this set within `context`
   * (loop guards implied by the assumptions disappear). Variables are matched by name.
   */
  gist(context: BasicSet): BasicSet {
    const ctx = context.constraintsApartFrom(this);
    // which constraints stay does not depend on the names (canonical.ts): remembered
    const key = new CanonicalKey().constraints(ctx).text('gist').constraints(this.constraints).key;
    const keep = gists.memo(key, () => gistMask(ctx, this.constraints));
    if (keep === 'empty') return this.emptied();
    return BasicSet.fromConstraints(
      this.params,
      this.dims,
      this.constraints.filter((_, i) => keep[i]),
      this.existentials,
    );
  }

  /** ISL's notation, e.g. `[n] -> { [i] : 0 <= i < n }`. */
  toString(): string {
    return printSet(this);
  }

  // ---- helpers -----------------------------------------------------------------------

  private bounds(v: string, keep: readonly string[], direction: 1 | -1): Bound[] {
    this.require(v, [...this.params, ...this.dims], 'a parameter or set variable');
    const kept = new Set([...this.params, ...keep, v]);
    const eliminate = [...this.dims, ...this.existentials].filter((n) => !kept.has(n));
    const projected = eliminateApprox(this.constraints, eliminate);
    if (isFalse(projected)) return [];
    // Constraints on v are tested for redundancy first, so the bounds come out minimal.
    const onV = projected.filter((c) => c.expr.dependsOn(v));
    const others = projected.filter((c) => !c.expr.dependsOn(v));
    const tight = removeRedundant([...onV, ...others]).filter((c) => c.expr.dependsOn(v));
    const out: Bound[] = [];
    for (const c of tight) {
      const a = c.expr.coeff(v);
      // a·v + R >= 0: a lower bound -R/a when a > 0, an upper bound R/|a| when a < 0;
      // an equality is both.
      if (c.kind === 'ge' && Math.sign(a) !== direction) continue;
      const rest = c.expr.without([v]);
      out.push(boundOf(a > 0 ? rest.negate() : rest, Math.abs(a)));
    }
    return out;
  }

  /** The context's constraints, its existentials renamed apart from this set's. */
  private constraintsApartFrom(other: BasicSet): Constraint[] {
    const renaming = new Map(this.existentials.filter((e) => other.has(e)).map((e) => [e, freshName('e')] as const));
    return this.constraints.map((c) => ({ kind: c.kind, expr: renameIn(c.expr, renaming) }));
  }

  /** This set's existentials and constraints, an existential named like one of `names` renamed to a fresh name. */
  private existentialsApartFrom(names: readonly string[]): Pick<BasicSet, 'existentials' | 'constraints'> {
    const clash = this.existentials.filter((e) => names.includes(e));
    if (clash.length === 0) return this;
    const renaming = new Map(clash.map((e) => [e, freshName('e')] as const));
    return {
      existentials: this.existentials.map((e) => renaming.get(e) ?? e),
      constraints: this.constraints.map((c) => ({ kind: c.kind, expr: renameIn(c.expr, renaming) })),
    };
  }

  private emptied(): BasicSet {
    return new BasicSet(this.params, this.dims, [], [FALSE]);
  }

  private has(name: string): boolean {
    return this.params.includes(name) || this.dims.includes(name) || this.existentials.includes(name);
  }

  private require(name: string, among: readonly string[], what: string): void {
    if (!among.includes(name)) throw new Error(`BasicSet: '${name}' is not ${what} of ${this.toString()}`);
  }
}

interface PositionalSet {
  readonly params: readonly number[];
  readonly dims: readonly number[];
  readonly existentials: readonly number[];
  readonly constraints: readonly PositionalConstraint[];
}

const rememberedSets = setCache<PositionalSet>();

const gists = setCache<readonly boolean[] | 'empty'>();

/** Which of `cs` the context and the remaining ones do not imply (tested in order), or 'empty'. */
function gistMask(ctx: readonly Constraint[], cs: readonly Constraint[]): readonly boolean[] | 'empty' {
  if (!hasIntegerPoint([...ctx, ...cs])) return 'empty';
  const keep = cs.map(() => true);
  for (let i = 0; i < cs.length; i++) {
    const others = [...ctx, ...cs.filter((_, j) => j !== i && keep[j])];
    if (implies(others, cs[i]!)) keep[i] = false;
  }
  return keep;
}

/** Throws when a name is declared twice (a set's variables are told apart by name). */
function checkDistinct(declared: readonly string[]): void {
  if (new Set(declared).size === declared.length) return;
  const duplicate = declared.find((n, k) => declared.indexOf(n) !== k);
  throw new Error(`BasicSet: variable '${duplicate}' is declared twice`);
}

/** A bound with common factors of expression and divisor cancelled. */
function boundOf(expr: Linear, divisor: number): Bound {
  const g = gcdAll(expr, divisor);
  return Object.freeze({ expr: g > 1 ? divideFloor(expr, g) : expr, divisor: divisor / g });
}

function gcdAll(expr: Linear, divisor: number): number {
  return gcd(gcd(expr.coefficientGcd(), expr.constant), divisor);
}

/** Sets parsed from text (`BasicSet.parse`), and conditions (`BasicSet.parseConditions`) under their parameters. */
const PARSED_SETS = parsedTextCache<BasicSet>(256);
const PARSED_CONDITIONS = parsedTextCache<BasicSet>(256);
