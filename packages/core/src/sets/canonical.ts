/**
 * Constraint systems up to the names of their variables, so that the set algorithms'
 * answers can be remembered across kernels.
 *
 * Code generation asks the same questions many times: the loop bounds of `i_inner` in one
 * kernel are the bounds of `j_inner` in the next, and a fresh helper variable (`v~12`,
 * then `v~40`) makes each question look new. The algorithms (omega.ts, projection.ts)
 * never compare names, only follow the order in which variables appear, so a system
 * answers exactly as any renaming of it does. The canonical form names each variable by
 * the position of its first appearance and keeps everything else (constraint order, term
 * order, coefficients): two systems with the same key get the same answer, renamed.
 *
 * The caches below are bounded (`AnswerCache`): their keys are made from data without end.
 */
import { InternalError } from '../errors.ts';
import { Linear } from '../linear.ts';
import { type Constraint, FALSE } from './constraint.ts';

/** A system's key, and its variables in order of first appearance (the canonical names' meanings). */
export interface CanonicalForm {
  readonly key: string;
  /** Variable name → its position in `names`. */
  readonly index: ReadonlyMap<string, number>;
  readonly names: readonly string[];
}

export function canonicalForm(cs: readonly Constraint[]): CanonicalForm {
  const index = new Map<string, number>();
  const names: string[] = [];
  let key = '';
  for (const c of cs) {
    key += c.kind === 'eq' ? '=' : '>';
    for (const [name, coeff] of c.expr.coeffs) {
      let i = index.get(name);
      if (i === undefined) {
        i = names.length;
        index.set(name, i);
        names.push(name);
      }
      key += `${i}:${coeff},`;
    }
    key += `${c.expr.constant};`;
  }
  return { key, index, names };
}

/**
 * A system in positions instead of names (each term a position and a coefficient), how a
 * cache stores an answer that mentions variables; `fromPositions` reads it back in any
 * naming of the same system.
 */
export interface PositionalConstraint {
  readonly kind: Constraint['kind'];
  readonly terms: readonly (readonly [number, number])[];
  readonly constant: number;
}

/** FALSE is recognized by identity (`isFalse`), so it is stored as itself and read back as itself. */
const FALSE_AT: PositionalConstraint = Object.freeze({ kind: 'ge', terms: [], constant: -1 });

export function toPositions(cs: readonly Constraint[], index: ReadonlyMap<string, number>): PositionalConstraint[] {
  return cs.map((c) =>
    c === FALSE
      ? FALSE_AT
      : {
          kind: c.kind,
          terms: [...c.expr.coeffs].map(([name, coeff]) => [position(index, name), coeff] as const),
          constant: c.expr.constant,
        },
  );
}

export function fromPositions(cs: readonly PositionalConstraint[], names: readonly string[]): Constraint[] {
  return cs.map((c) =>
    c === FALSE_AT
      ? FALSE
      : {
          kind: c.kind,
          expr: Linear.of(
            c.terms.map(([i, coeff]) => [names[i]!, coeff] as const),
            c.constant,
          ),
        },
  );
}

function position(index: ReadonlyMap<string, number>, name: string): number {
  const i = index.get(name);
  // the algorithms cached this way only ever return variables of their input
  if (i === undefined) throw new InternalError(`canonical form: '${name}' is not a variable of the system`);
  return i;
}

/**
 * The key of a question about several systems and names at once (a static value's terms and
 * context): every part appended in order, variables numbered across all of them, so that two
 * questions share a key exactly when one is a renaming of the other.
 */
export class CanonicalKey {
  key = '';
  readonly index = new Map<string, number>();
  readonly names: string[] = [];

  /** A part that is no variable (a flag, a separator). */
  text(part: string): this {
    this.key += `${part};`;
    return this;
  }

  /** A list of variables (their order kept). */
  variables(list: readonly string[]): this {
    this.key += '[';
    for (const name of list) this.key += `${this.position(name)},`;
    this.key += ']';
    return this;
  }

  linear(expr: Linear): this {
    for (const [name, coeff] of expr.coeffs) this.key += `${this.position(name)}:${coeff},`;
    this.key += `${expr.constant};`;
    return this;
  }

  constraints(cs: readonly Constraint[]): this {
    this.key += '{';
    for (const c of cs) {
      this.key += c.kind === 'eq' ? '=' : '>';
      this.linear(c.expr);
    }
    this.key += '}';
    return this;
  }

  private position(name: string): number {
    let i = this.index.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.index.set(name, i);
      this.names.push(name);
    }
    return i;
  }
}

/** A linear form in positions, or undefined when it uses a variable the key does not know. */
export function linearToPositions(expr: Linear, index: ReadonlyMap<string, number>): PositionalConstraint | undefined {
  const terms: (readonly [number, number])[] = [];
  for (const [name, coeff] of expr.coeffs) {
    const i = index.get(name);
    if (i === undefined) return undefined;
    terms.push([i, coeff]);
  }
  return { kind: 'ge', terms, constant: expr.constant };
}

export function linearFromPositions(p: PositionalConstraint, names: readonly string[]): Linear {
  return Linear.of(
    p.terms.map(([i, coeff]) => [names[i]!, coeff] as const),
    p.constant,
  );
}

/** How many answers each set algorithm remembers: the distinct systems of a few large kernels. */
export const SET_CACHE_SIZE = 4096;

/** A table of answers under canonical keys (`AnswerCache`), of SET_CACHE_SIZE entries at most. */
export function setCache<V>(): AnswerCache<V> {
  return new AnswerCache<V>(SET_CACHE_SIZE);
}

/**
 * Answers under canonical keys, kept in two generations: the recent entries, and the ones
 * before them. A hit among the older ones copies the entry to the recent ones; when the recent
 * ones reach half the capacity they become the older ones, and the older ones are dropped. So
 * the last half-capacity to capacity keys asked for stay, as in an LRU (lru.ts), without the
 * LRU's reordering on every hit: these tables are asked thousands of times per kernel, mostly
 * hits. (The answers are pure functions of their keys: which ones stay changes no result.)
 */
export class AnswerCache<V> {
  #recent = new Map<string, V>();
  #older = new Map<string, V>();
  readonly #half: number;

  constructor(capacity: number) {
    this.#half = Math.max(1, Math.floor(capacity / 2));
  }

  get(key: string): V | undefined {
    const recent = this.#recent.get(key);
    if (recent !== undefined) return recent;
    const older = this.#older.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: string, value: V): void {
    this.#recent.set(key, value);
    if (this.#recent.size >= this.#half) {
      this.#older = this.#recent;
      this.#recent = new Map();
    }
  }

  /** The answer for `key`, computed by `compute` and kept when absent. */
  memo(key: string, compute: (key: string) => V): V {
    let value = this.get(key);
    if (value === undefined) this.set(key, (value = compute(key)));
    return value;
  }
}
