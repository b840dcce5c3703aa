/**
 * The nests of bulk copies (bulk-copies.ts) as requests: each nest of copies into one local array
 * (loops of the tile, conditions of the step) enumerated, every work-item and every loop, into
 * the local and global offsets of its elements; each index split into the step's part (the box's
 * start) and the tile's (the offsets within it); the box and its start found by tensor-boxes.ts.
 */
import {
  byteSize,
  evaluateInt,
  expr as E,
  LoomError,
  statementsOfKind,
  unswizzleIndex,
  type DType,
  type Expr,
  type KernelFunction,
  type Stmt,
} from '@loom/core';
import type { BulkCopySpelling, BulkIssue, TensorMapSpec } from './bulk-copies.ts';
import {
  boxAxes,
  chainsOf,
  GROUP,
  linearTerms,
  startCoordinates,
  sumTerms,
  type Range,
  type Term,
} from './tensor-boxes.ts';

/** The work-item id a tile's part reads (`lid(0)`). */
const WORK_ITEM = 'lid';

/** Finds the nests of a kernel's bulk copies and the request each makes (`visit`). */
export class NestFinder {
  readonly issues = new Map<Stmt, BulkIssue>();
  readonly maps: TensorMapSpec[] = [];
  readonly #steps: ReadonlySet<string>;

  constructor(
    private readonly k: KernelFunction,
    private readonly spelling: BulkCopySpelling,
    private readonly localSize: readonly number[],
  ) {
    this.#steps = new Set(
      statementsOfKind(k.body, 'assign').flatMap((s) => (s.bulk && s.ahead ? s.ahead.stepLoops : [])),
    );
  }

  /** Finds the nests under `s`; `ranges`: the loops around it with constant bounds. */
  visit(s: Stmt, ranges: ReadonlyMap<string, Range>): void {
    switch (s.kind) {
      case 'block': {
        for (let i = 0; i < s.body.length; ) {
          const array = this.#nestArray(s.body[i]);
          if (array === undefined) {
            this.visit(s.body[i], ranges);
            i++;
            continue;
          }
          let end = i + 1;
          while (end < s.body.length && this.#nestArray(s.body[end]) === array) end++;
          this.#issue(s.body.slice(i, end), array, ranges);
          i = end;
        }
        return;
      }
      case 'for': {
        const array = this.#nestArray(s.body);
        const inner = new Map(ranges).set(s.iname, constantRange(s.lower, s.upper));
        if (array !== undefined) this.#issue([s.body], array, inner);
        else this.visit(s.body, inner);
        return;
      }
      case 'if': {
        const array = this.#nestArray(s.then);
        const inner = refine(ranges, s.condition);
        if (array !== undefined) this.#issue([s.then], array, inner);
        else this.visit(s.then, inner);
        return;
      }
      case 'assign':
        if (s.bulk) this.#issue([s], s.target.kind === 'subscript' ? s.target.array : '', ranges);
        return;
      default:
        return;
    }
  }

  /** The local array `s` holds only bulk copies into, through loops of the tile and conditions; undefined otherwise. */
  #nestArray(s: Stmt): string | undefined {
    switch (s.kind) {
      case 'assign':
        return s.bulk && s.target.kind === 'subscript' ? s.target.array : undefined;
      case 'for':
        return this.#steps.has(s.iname) ? undefined : this.#nestArray(s.body);
      case 'if':
        return this.#nestArray(s.then);
      case 'block': {
        const arrays = new Set(s.body.map((x) => this.#nestArray(x)));
        return s.body.length > 0 && arrays.size === 1 ? [...arrays][0] : undefined;
      }
      default:
        return undefined;
    }
  }

  /** The request the copies of `nest` (into `array`) make together. */
  #issue(nest: readonly Stmt[], array: string, around: ReadonlyMap<string, Range>): void {
    let ranges = around;
    const where = `the bulk copies into '${array}'`;
    const copies: { local: number; global: number }[] = [];
    let shape: { local: Split; global: Split; source: string; dtype: DType; insn: string } | undefined;
    let conditions: string | undefined;
    let guards: readonly Expr[] = [];
    let swizzle = 0;
    const nestInames = new Set<string>();
    for (const s of nest) collectLoops(s, nestInames);
    const isTile = (atom: Expr) => mentions(atom, nestInames, true);
    const isStep = (atom: Expr) => mentions(atom, nestInames, false);
    const walk = (s: Stmt, env: Map<string, number>, conds: readonly Expr[]): void => {
      switch (s.kind) {
        case 'block':
          for (const x of s.body) walk(x, env, conds);
          return;
        case 'for': {
          const [lo, hi] = [s.lower, s.upper].map((b) => {
            if (E.freeVariables(b).size > 0)
              throw new LoomError(
                `${where}: the loop '${s.iname}' of the tile has bounds that change (${E.printExpr(s.lower)} to ${E.printExpr(s.upper)}); a bulk copy moves a whole box`,
              );
            return evaluateInt(b, tileValue(env), `the bounds of '${s.iname}'`);
          });
          for (let v = lo; v <= hi; v++) walk(s.body, new Map(env).set(s.iname, v), conds);
          return;
        }
        case 'if':
          if (isTile(s.condition))
            throw new LoomError(
              `${where}: the condition ${E.printExpr(s.condition)} leaves out part of the tile; a bulk copy moves a whole box`,
            );
          walk(s.then, env, [...conds, s.condition]);
          return;
        case 'assign': {
          if (s.target.kind !== 'subscript' || s.value.kind !== 'subscript')
            throw new LoomError(`${where}: instruction '${s.insnId}' is not a copy of one element`);
          // a vec loop's statement copies its lanes at once: enumerated as one element it would hide them
          if (s.vector)
            throw new LoomError(
              `${where}: instruction '${s.insnId}' is a vector statement (a vec loop); leave its loop unrolled, the request moves the lanes anyway`,
            );
          const key = conds.map((c) => E.printExpr(c)).join(' && ');
          if (conditions !== undefined && key !== conditions)
            throw new LoomError(
              `${where}: its copies are under different conditions (${conditions || 'none'}; ${key || 'none'}); a bulk copy moves a whole box`,
            );
          conditions = key;
          guards = conds;
          // a swizzled array's copies land where the request's own swizzle puts them: the tile is its plain layout
          const stored = unswizzleIndex(s.target.indices[0], byteSize(s.dtype));
          swizzle = stored?.span ?? 0;
          const local = split(stored?.index ?? s.target.indices[0], isTile, isStep, where);
          const global = split(s.value.indices[0], isTile, isStep, where);
          if (!shape) shape = { local, global, source: s.value.array, dtype: s.dtype, insn: s.insnId };
          else if (
            s.value.array !== shape.source ||
            !E.isExpressionEqual(local.step, shape.local.step) ||
            !E.isExpressionEqual(global.step, shape.global.step)
          )
            throw new LoomError(
              `${where}: instructions '${shape.insn}' and '${s.insnId}' copy from different places at a step; a bulk copy moves one box`,
            );
          forEachWorkItem(this.localSize, env, (ids) => {
            copies.push({ local: evaluateTerms(local.tile, ids), global: evaluateTerms(global.tile, ids) });
          });
          return;
        }
        default:
          throw new LoomError(`${where}: the nest holds a ${s.kind} statement`);
      }
    };
    for (const s of nest) walk(s, new Map(), []);
    if (!shape) return;
    // the step's loops as far as the copies' conditions let them go
    ranges = guards.reduce(refine, ranges);
    const param = this.k.params.findIndex((p) => p.name === shape!.source);
    if (param < 0 || this.k.params[param].kind !== 'global')
      throw new LoomError(`${where}: '${shape.source}' is not a global parameter of kernel '${this.k.name}'`);
    const elementBytes = byteSize(shape.dtype);
    const { axes, localFirst, globalFirst } = boxAxes(copies, elementBytes, this.spelling, where);
    if (swizzle && axes[0].box * elementBytes !== swizzle)
      throw new LoomError(
        `${where}: '${array}' is swizzled over ${swizzle} bytes, so the box's contiguous runs must be lines of ${swizzle} bytes (they are ${axes[0].box * elementBytes})`,
      );
    const chains = chainsOf(axes, where);
    const globalStart = plus(shape.global.step, globalFirst);
    const start = startCoordinates(globalStart, chains, axes, ranges, this.k, where);
    // a swizzled box starts where the hardware's swizzle repeats: 8 lines
    const alignment = Math.max(this.spelling.localAlignment, 8 * swizzle);
    const offsetAligned = alignment / elementBytes;
    const localOffset = plus(shape.local.step, localFirst);
    const localStart = linearTerms(localOffset);
    if (!localStart || [localStart.constant, ...localStart.terms.map((t) => t.coeff)].some((c) => c % offsetAligned))
      throw new LoomError(
        `${where}: the tile starts at element ${E.printExpr(localOffset)} of '${array}', which must be a multiple of ${offsetAligned} (${alignment} bytes) for a bulk copy`,
      );
    const spec: TensorMapSpec = {
      name: '',
      param,
      elementBytes,
      swizzle,
      axes: axes.map((a, i) => ({ stride: a.stride, box: a.box, extent: chains.extents[i] })),
    };
    const key = JSON.stringify({ ...spec, name: undefined });
    let map = this.maps.find((m) => JSON.stringify({ ...m, name: undefined }) === key);
    if (!map) {
      map = { ...spec, name: `loom_map_${this.maps.length}` };
      this.maps.push(map);
    }
    const issue: BulkIssue = {
      length: nest.length,
      map,
      local: array,
      localOffset,
      coordinates: start,
      conditions: guards,
      bytes: copies.length * elementBytes,
    };
    this.issues.set(nest[0], issue);
  }
}

/** An index as the step's part (an expression, without constant) and the tile's terms (with the constant). */
interface Split {
  readonly step: Expr;
  readonly tile: readonly Term[];
}

/** `e` as the sum of a step's part and a tile's terms; a LoomError where a term mixes them. */
function split(e: Expr, isTile: (x: Expr) => boolean, isStep: (x: Expr) => boolean, where: string): Split {
  const { constant, terms } = sumTerms(e);
  // a constant is the tile's (an unrolled copy's offset within it): the step's part is the same for every copy
  const tile: Term[] = constant === 0 ? [] : [{ coeff: constant, atom: E.int(1) }];
  let step: Expr | undefined;
  for (const t of terms) {
    if (t.coeff === 0) continue;
    const [inTile, inStep] = [isTile(t.atom), isStep(t.atom)];
    if (inTile && inStep)
      throw new LoomError(
        `${where}: the index ${E.printExpr(e)} mixes the tile's indices and the step's in ${E.printExpr(t.atom)}; a bulk copy's box starts at the step's and spans the tile's`,
      );
    const term = t.coeff === 1 ? t.atom : E.mul(E.int(t.coeff), t.atom);
    if (inTile) tile.push(idsAsNames(t));
    else step = step ? E.add(step, term) : term;
  }
  return { step: step ?? E.int(0), tile };
}

/** `e + constant`, without a zero on either side. */
function plus(e: Expr, constant: number): Expr {
  if (constant === 0) return e;
  return e.kind === 'int' && e.value === 0 ? E.int(constant) : E.add(e, E.int(constant));
}

/** Whether `e` mentions the tile (`tile`: the nest's inames or a work-item id) or, with `tile` false, the step. */
function mentions(e: Expr, nestInames: ReadonlySet<string>, tile: boolean): boolean {
  return E.someExpr(e, (x) => {
    if (x.kind === 'var') return nestInames.has(x.name) === tile;
    if (x.kind === 'call' && (x.fn === WORK_ITEM || x.fn === GROUP)) return (x.fn === WORK_ITEM) === tile;
    return false;
  });
}

function collectLoops(s: Stmt, out: Set<string>): void {
  if (s.kind === 'for') out.add(s.iname), collectLoops(s.body, out);
  else if (s.kind === 'if') collectLoops(s.then, out);
  else if (s.kind === 'block') for (const x of s.body) collectLoops(x, out);
}

/** Calls `f` with the environment of every work-item of the group (`lid(0)`...). */
function forEachWorkItem(
  size: readonly number[],
  env: ReadonlyMap<string, number>,
  f: (e: Map<string, number>) => void,
) {
  const [x, y, z] = [size[0] ?? 1, size[1] ?? 1, size[2] ?? 1];
  for (let c = 0; c < z; c++)
    for (let b = 0; b < y; b++)
      for (let a = 0; a < x; a++) f(new Map(env).set('lid(0)', a).set('lid(1)', b).set('lid(2)', c));
}

function evaluateTerms(terms: readonly Term[], env: ReadonlyMap<string, number>): number {
  return terms.reduce((sum, t) => sum + t.coeff * evaluateInt(t.atom, tileValue(env), "a bulk copy's tile index"), 0);
}

/** The values of a tile's names: the nest's loops, and the work-item ids (`lid(0)`, named as `idName` makes them). */
const tileValue =
  (env: ReadonlyMap<string, number>) =>
  (name: string): number => {
    const v = env.get(name);
    if (v === undefined) throw new LoomError(`a bulk copy's tile index reads '${name}', which is not the tile's`);
    return v;
  };

/** A tile's term with its work-item ids (`lid(0)`) as variables of those names, which `evaluateInt` reads. */
function idsAsNames(t: Term): Term {
  const atom = E.mapExpr(t.atom, (x) =>
    x.kind === 'call' && x.fn === WORK_ITEM && x.args[0]?.kind === 'int' ? E.variable(`lid(${x.args[0].value})`) : x,
  );
  return { coeff: t.coeff, atom };
}

/** `ranges` narrowed by what `condition` says of a loop (`k <= 30`, conjunctions of such). */
function refine(ranges: ReadonlyMap<string, Range>, condition: Expr): ReadonlyMap<string, Range> {
  if (condition.kind === 'logical' && condition.op === 'and')
    return refine(refine(ranges, condition.left), condition.right);
  if (condition.kind !== 'compare') return ranges;
  const flip = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' } as const;
  const [name, op, bound] =
    condition.left.kind === 'var' && condition.right.kind === 'int'
      ? [condition.left.name, condition.op, condition.right.value]
      : condition.right.kind === 'var' && condition.left.kind === 'int'
        ? [condition.right.name, flip[condition.op], condition.left.value]
        : [undefined, condition.op, 0];
  const range = name === undefined ? undefined : ranges.get(name);
  if (!range) return ranges;
  let [lo, hi] = range;
  if (op === '<=') hi = Math.min(hi, bound);
  else if (op === '<') hi = Math.min(hi, bound - 1);
  else if (op === '>=') lo = Math.max(lo, bound);
  else if (op === '>') lo = Math.max(lo, bound + 1);
  else if (op === '==') [lo, hi] = [Math.max(lo, bound), Math.min(hi, bound)];
  return new Map(ranges).set(name!, [lo, hi]);
}

function constantRange(lower: Expr, upper: Expr): Range {
  return lower.kind === 'int' && upper.kind === 'int' ? [lower.value, upper.value] : undefined;
}
