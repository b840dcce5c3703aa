/**
 * Bulk copies (core's `bulkCopies`): the copies of a local tile that a nest of loops and work-items
 * issues element by element become one request a step, which the first work-item of the group makes
 * and the hardware carries out (CUDA's tensor memory accelerator, `cp.async.bulk.tensor`).
 *
 * A request names a box of a "tensor map", a view of a global array as up to five axes, each with
 * a stride in elements (the first contiguous) and an extent, and writes the box to local memory
 * in order, first axis fastest. This module finds, for each nest of copies into one local array,
 * the box its copies fill by enumerating them (every work-item, every loop of the nest): the
 * copies' local indices must be the tile's elements 0..N-1, each once, and their global indices
 * must be the mixed-radix digits of the local index, each digit moving the global index by a
 * constant stride. A tile laid out in core matrices (8 x 8 blocks) is then a box of four axes:
 * the 8 contiguous elements of a line, the 8 lines, the blocks along the row, the blocks down.
 * What does not have that shape is a LoomError that says why, before anything runs.
 *
 * A copy's indices are the step's part (loops around the nest, the work-group: the box's start)
 * plus the tile's part (the nest's loops and the work-items: the offsets within the box); an index
 * that mixes the two is refused. The start's coordinates are proven to keep the box within each
 * axis but the outermost (where the request would read zeros past the row instead of the next
 * row's elements, as the element copies would).
 *
 * Completion: a request signals a barrier object in local memory with its bytes. The copies are
 * grouped as `asyncPlan` groups `cp.async` copies (a pipeline's step, or everything before a
 * barrier), each group on one of `slots` barrier objects in turn; a barrier waits until every
 * group but the latest `inFlight` has landed, each work-item counting the groups committed and
 * waited for (they are the same in every work-item: commits and barriers are reached by all).
 */
import {
  byteSize,
  unswizzleIndex,
  expr as E,
  LoomError,
  statementsOfKind,
  type DType,
  type Expr,
  type KernelFunction,
  type Stmt,
} from '@loom/core';
import type { AsyncPlan } from './async-copies.ts';
import type { CExpressionPrinter } from './expressions.ts';

/** A helper function: its name and definition. */
interface Helper {
  readonly name: string;
  readonly definition: string;
}

/** How a language issues bulk copies and waits for them (`CDialect.bulkCopy`). */
export interface BulkCopySpelling {
  /** The most axes a tensor map has. */
  readonly maxRank: number;
  /** The most elements of a box along one axis. */
  readonly maxBox: number;
  /** The bytes a box's contiguous run must be a multiple of, and its strides. */
  readonly strideBytes: number;
  /** The bytes a box's place in local memory must be a multiple of. */
  readonly localAlignment: number;
  /** What a local array is declared with to start at a multiple of `bytes` (`__align__(1024) `). */
  alignedLocal(bytes: number): string;
  /** The declaration of the tensor map parameter `name`, and the helper defining its type. */
  mapParameter(name: string): { readonly text: string; readonly helper: Helper };
  /** The kernel's first lines: `slots` barrier objects and the counters, set up, then a barrier. */
  prologue(slots: number): { readonly lines: readonly string[]; readonly helper: Helper };
  /**
   * The request of a box of `rank` axes of tensor map `map` at `coordinates` (printed, first axis
   * first) into local address `to`, signalling the current group's barrier object with `bytes`;
   * made by the group's first work-item only.
   */
  copy(
    rank: number,
    map: string,
    to: string,
    coordinates: readonly string[],
    bytes: number,
    slots: number,
  ): {
    readonly text: string;
    readonly helper: Helper;
  };
  /** The statement closing the current group (every work-item), and its helper. */
  commit(slots: number): { readonly text: string; readonly helper: Helper };
  /** The statement waiting until at most the latest `groups` groups are in flight, and its helper. */
  waitLeaving(groups: number, slots: number): { readonly text: string; readonly helper: Helper };
}

/** A view of a global array that bulk copies read (CUDA's `CUtensorMap`), as the device makes it at launch. */
export interface TensorMapSpec {
  /** The kernel parameter holding it (after the kernel's own). */
  readonly name: string;
  /** The position of the global array among the kernel's parameters. */
  readonly param: number;
  /** The bytes of an element. */
  readonly elementBytes: number;
  /** The swizzle the box lands in local memory with (`TemporaryVariable.swizzle`: 32, 64 or 128 bytes), or 0. */
  readonly swizzle: number;
  /**
   * Its axes, first (contiguous) first: the stride in elements, the box's elements along it, and
   * the axis's extent; undefined for the outermost, whose extent is the array's elements over its
   * stride (known at launch).
   */
  readonly axes: readonly { readonly stride: number; readonly box: number; readonly extent: number | undefined }[];
}

/** One nest of copies as one request. */
interface BulkIssue {
  /** The sibling statements the nest is (one, or a run of a block's). */
  readonly length: number;
  readonly map: TensorMapSpec;
  /** The local array and the flat index of the box's first element. */
  readonly local: string;
  readonly localOffset: Expr;
  /** The box's coordinates along each axis of the map. */
  readonly coordinates: readonly Expr[];
  /** Conditions of the step (none of the tile's) the copies are under. */
  readonly conditions: readonly Expr[];
  readonly bytes: number;
}

/** A kernel's bulk copies: each nest's request, the tensor maps, and the barrier objects. */
export interface BulkPlan {
  readonly issues: ReadonlyMap<Stmt, BulkIssue>;
  readonly maps: readonly TensorMapSpec[];
  /** Barrier objects, one per group that may be in flight, and the one waited for. */
  readonly slots: number;
  /** Groups committed after statements (a pipeline's steps); none: every barrier closes one. */
  readonly commitsAtBarriers: boolean;
}

/** Whether `body` holds bulk copies. */
export function hasBulkCopies(body: Stmt): boolean {
  return statementsOfKind(body, 'assign').some((s) => s.bulk);
}

/** The bulk copies of kernel `k` as requests (see the file's comment); a LoomError where a nest is no box. */
export function bulkPlan(
  k: KernelFunction,
  spelling: BulkCopySpelling | undefined,
  groups: AsyncPlan,
): BulkPlan | undefined {
  // a language without them prints each copy as its asynchronous copies (core lets bulk copies through
  // to such a language only where work-items run one after another, each copy complete at once)
  if (!spelling || !hasBulkCopies(k.body)) return undefined;
  const constants = k.localSize.map((e) => (e.kind === 'int' ? e.value : undefined));
  if (constants.some((c) => c === undefined))
    throw new LoomError(
      `kernel '${k.name}': bulk copies need a work-group size known before launch, to find the tile its work-items copy`,
    );
  const finder = new NestFinder(k, spelling, constants as number[]);
  finder.visit(k.body, new Map());
  return {
    issues: finder.issues,
    maps: finder.maps,
    slots: groups.inFlight + 1,
    commitsAtBarriers: groups.commitAfter.size === 0,
  };
}

/** An integer's range, where known. */
type Range = readonly [number, number] | undefined;

/** A term of an index: `coeff * atom` (a variable, a division, a work-item id...). */
interface Term {
  readonly coeff: number;
  readonly atom: Expr;
}

const WORK_ITEM = 'lid';
const GROUP = 'gid';

class NestFinder {
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
            return evaluate(b, env);
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
  const terms: Term[] = [];
  let constant = 0;
  const collect = (x: Expr, scale: number): void => {
    if (x.kind === 'int') constant += scale * x.value;
    else if (x.kind === 'neg') collect(x.operand, -scale);
    else if (x.kind === 'binary' && (x.op === '+' || x.op === '-')) {
      collect(x.left, scale);
      collect(x.right, x.op === '+' ? scale : -scale);
    } else if (x.kind === 'binary' && x.op === '*' && x.left.kind === 'int') collect(x.right, scale * x.left.value);
    else if (x.kind === 'binary' && x.op === '*' && x.right.kind === 'int') collect(x.left, scale * x.right.value);
    else terms.push({ coeff: scale, atom: x });
  };
  collect(e, 1);
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
    if (inTile) tile.push(t);
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
  return terms.reduce((sum, t) => sum + t.coeff * evaluate(t.atom, env), 0);
}

/** An integer expression of the nest's inames and work-item ids, evaluated. */
function evaluate(e: Expr, env: ReadonlyMap<string, number>): number {
  switch (e.kind) {
    case 'int':
      return e.value;
    case 'var': {
      const v = env.get(e.name);
      if (v === undefined) throw new LoomError(`a bulk copy's tile index reads '${e.name}', which is not the tile's`);
      return v;
    }
    case 'neg':
      return -evaluate(e.operand, env);
    case 'call': {
      const axis = e.args[0]?.kind === 'int' ? e.args[0].value : -1;
      const v = env.get(`${e.fn}(${axis})`);
      if (v === undefined) throw new LoomError(`a bulk copy's tile index reads ${E.printExpr(e)}`);
      return v;
    }
    case 'binary': {
      const [a, b] = [evaluate(e.left, env), evaluate(e.right, env)];
      switch (e.op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '//':
          return Math.floor(a / b);
        case '%':
          return a - b * Math.floor(a / b);
        default:
          break;
      }
      break;
    }
    default:
      break;
  }
  throw new LoomError(`a bulk copy's tile index holds ${E.printExpr(e)}, which is not integer arithmetic`);
}

/** A box axis: its stride in the global array's elements and its elements. */
interface BoxAxis {
  readonly stride: number;
  readonly box: number;
}

/**
 * The axes of the box the copies fill: their local indices must be 0..N-1, each once, and the
 * global index of local index L the sum of L's mixed-radix digits times the axes' strides.
 */
function boxAxes(
  copies: readonly { local: number; global: number }[],
  elementBytes: number,
  spelling: BulkCopySpelling,
  where: string,
): { axes: BoxAxis[]; localFirst: number; globalFirst: number } {
  const n = copies.length;
  const first = Math.min(...copies.map((c) => c.local));
  const global = new Array<number | undefined>(n).fill(undefined);
  for (const c of copies) {
    const l = c.local - first;
    if (l >= n)
      throw new LoomError(
        `${where}: the copies of a step leave holes in the tile (they fill ${n} elements up to ${c.local}, from ${first}); a bulk copy fills a whole tile, each element once`,
      );
    if (global[l] !== undefined)
      throw new LoomError(`${where}: element ${c.local} of the tile is copied twice at a step`);
    global[l] = c.global;
  }
  const g = global as number[];
  const base = g[0];
  const axes: BoxAxis[] = [];
  for (let run = 1; run < n; ) {
    const stride = g[run] - base;
    let size = 2;
    while (size * run < n && g[size * run] - base === size * stride) size++;
    if (n % (size * run) !== 0)
      throw new LoomError(`${where}: the tile's ${n} elements do not split into a box (a run of ${size * run})`);
    axes.push({ stride, box: size });
    run *= size;
  }
  if (n === 1) axes.push({ stride: 1, box: 1 });
  // every element where its digits put it
  for (let l = 0; l < n; l++) {
    let rest = l;
    let at = base;
    for (const a of axes) {
      at += (rest % a.box) * a.stride;
      rest = Math.floor(rest / a.box);
    }
    if (g[l] !== at)
      throw new LoomError(
        `${where}: element ${l} of the tile is copied from ${g[l] - base} elements past the box's start, where a box laid out as the tile is would hold element ${at - base}; lay the tile out as the box it copies`,
      );
  }
  // neighbouring axes that continue each other are one
  const merged: BoxAxis[] = [];
  for (const a of axes) {
    const last = merged[merged.length - 1];
    if (last && a.stride === last.stride * last.box)
      merged[merged.length - 1] = { stride: last.stride, box: last.box * a.box };
    else merged.push(a);
  }
  const refuse = (why: string): never => {
    throw new LoomError(
      `${where}: the tile is a box of ${merged.map((a) => `${a.box} elements ${a.stride} apart`).join(', ')}, but ${why}`,
    );
  };
  if (merged[0].stride !== 1) refuse('its first axis is not contiguous in the global array');
  if (merged.length > spelling.maxRank) refuse(`a tensor map has at most ${spelling.maxRank} axes`);
  if (merged.some((a) => a.box > spelling.maxBox))
    refuse(`a box has at most ${spelling.maxBox} elements along an axis`);
  if ((merged[0].box * elementBytes) % spelling.strideBytes !== 0)
    refuse(`its contiguous runs must be multiples of ${spelling.strideBytes} bytes`);
  if (merged.some((a, i) => i > 0 && ((a.stride * elementBytes) % spelling.strideBytes !== 0 || a.stride <= 0)))
    refuse(`its strides must be positive multiples of ${spelling.strideBytes} bytes`);
  return { axes: merged, localFirst: first, globalFirst: base };
}

/**
 * The box's axes as chains along the global array: an axis that another continues (its stride
 * times its elements is the other's stride) is a digit of that axis, its whole extent in the box;
 * the top of a chain spans up to the next chain's first stride; the last chain's top, the array.
 */
interface Chains {
  /** Each axis's extent in the tensor map (undefined: the array's rest, at launch). */
  readonly extents: readonly (number | undefined)[];
  /** The chains, lowest stride first: their axes (lowest first) and the next chain's first stride. */
  readonly list: readonly { readonly axes: readonly number[]; readonly next: number | undefined }[];
}

function chainsOf(axes: readonly BoxAxis[], where: string): Chains {
  const continues = (i: number) => axes.findIndex((b) => b.stride === axes[i].stride * axes[i].box);
  const starts = axes.map((_, i) => i).filter((i) => !axes.some((b) => b.stride * b.box === axes[i].stride));
  const list = starts
    .map((first) => {
      const chain = [first];
      for (let j = continues(first); j >= 0; j = continues(j)) chain.push(j);
      return chain;
    })
    .sort((x, y) => axes[x[0]].stride - axes[y[0]].stride)
    .map((chain, i, all) => ({ axes: chain, next: i + 1 < all.length ? axes[all[i + 1][0]].stride : undefined }));
  const extents = axes.map((a, i): number | undefined => {
    if (continues(i) >= 0) return a.box;
    const chain = list.find((c) => c.axes.includes(i))!;
    if (chain.next === undefined) return undefined;
    if (chain.next % a.stride !== 0 || chain.next / a.stride < a.box)
      throw new LoomError(
        `${where}: the tile's axis of ${a.box} elements ${a.stride} apart runs into the next (${chain.next} apart), which no tensor map can view`,
      );
    return chain.next / a.stride;
  });
  return { extents, list };
}

/** The coefficients and constant of a sum of terms whose atoms are the step's. */
function linearTerms(e: Expr): { constant: number; terms: Term[] } | undefined {
  const terms: Term[] = [];
  let constant = 0;
  let ok = true;
  const collect = (x: Expr, scale: number): void => {
    if (x.kind === 'int') constant += scale * x.value;
    else if (x.kind === 'neg') collect(x.operand, -scale);
    else if (x.kind === 'binary' && (x.op === '+' || x.op === '-')) {
      collect(x.left, scale);
      collect(x.right, x.op === '+' ? scale : -scale);
    } else if (x.kind === 'binary' && x.op === '*' && x.left.kind === 'int') collect(x.right, scale * x.left.value);
    else if (x.kind === 'binary' && x.op === '*' && x.right.kind === 'int') collect(x.left, scale * x.right.value);
    else if (x.kind === 'var' || x.kind === 'call') terms.push({ coeff: scale, atom: x });
    else ok = false;
  };
  collect(e, 1);
  return ok ? { constant, terms } : undefined;
}

/**
 * The box's start along each axis of the map, from the step's part of the global index: each
 * chain's digits below its top start at 0, its top at the step's part of that chain over the top's
 * stride, proven to leave the box within the chain's extent (but for the outermost chain's).
 */
function startCoordinates(
  start: Expr,
  chains: Chains,
  axes: readonly BoxAxis[],
  ranges: ReadonlyMap<string, Range>,
  k: KernelFunction,
  where: string,
): Expr[] {
  const linear = linearTerms(start);
  const tops = chains.list.map((c) => c.axes[c.axes.length - 1]);
  // the step's part, chain by chain: a term belongs to the highest chain whose first stride divides it
  const parts = chains.list.map(() => ({ low: 0, high: 0, known: true }));
  const chainOf = (coeff: number) => {
    let c = 0;
    for (let i = 0; i < chains.list.length; i++) if (coeff % axes[chains.list[i].axes[0]].stride === 0) c = i;
    return c;
  };
  const refuse = (why: string): never => {
    throw new LoomError(`${where}: the box starts at global element ${E.printExpr(start)}, ${why}`);
  };
  if (!linear) refuse('which is not a sum of multiples of the loops and work-group ids');
  let rest = linear!.constant;
  for (let c = chains.list.length - 1; c >= 0; c--) {
    const first = axes[chains.list[c].axes[0]].stride;
    const part = rest - (((rest % first) + first) % first);
    parts[c].low += part;
    parts[c].high += part;
    rest -= part;
  }
  for (const t of linear!.terms) {
    const c = chainOf(t.coeff);
    const top = axes[tops[c]].stride;
    if (t.coeff % top !== 0)
      refuse(
        `whose term ${E.printExpr(E.mul(E.int(t.coeff), t.atom))} does not move by whole steps of the box's axis of stride ${top}`,
      );
    const range = rangeOf(t.atom, ranges, k);
    if (!range) parts[c].known = false;
    else {
      const [lo, hi] = [t.coeff * range[0], t.coeff * range[1]].sort((x, y) => x - y);
      parts[c].low += lo;
      parts[c].high += hi;
    }
  }
  for (let c = 0; c < chains.list.length; c++) {
    const top = axes[tops[c]];
    if (parts[c].low % top.stride !== 0) refuse(`which is no whole step of the box's axis of stride ${top.stride}`);
    const next = chains.list[c].next;
    if (next === undefined) continue;
    if (!parts[c].known)
      refuse(`which moves along an axis of stride ${top.stride} by an amount not known before launch`);
    if (parts[c].low < 0 || parts[c].high + top.box * top.stride > next)
      refuse(
        `which puts the box's axis of stride ${top.stride} at ${parts[c].low / top.stride} to ${parts[c].high / top.stride} of ${next / top.stride}: the box would cross into the next line`,
      );
  }
  return axes.map((a, i) => {
    const c = tops.indexOf(i);
    if (c < 0) return E.int(0);
    const next = chains.list[c].next;
    const within = next === undefined ? start : E.binary('%', start, E.int(next));
    return a.stride === 1 ? within : E.binary('//', within, E.int(a.stride));
  });
}

/** The range of a step's atom: a loop with constant bounds, or a work-group id of a constant grid. */
function rangeOf(atom: Expr, ranges: ReadonlyMap<string, Range>, k: KernelFunction): Range {
  if (atom.kind === 'var') return ranges.get(atom.name);
  if (atom.kind === 'call' && atom.fn === GROUP && atom.args[0]?.kind === 'int') {
    const count = k.groupCount[atom.args[0].value];
    return count?.kind === 'int' ? [0, count.value - 1] : undefined;
  }
  return undefined;
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

/** The request of nest `issue` (printed where its copies were), under the step's conditions. */
export function printBulkIssue(issue: BulkIssue, printer: CExpressionPrinter): string {
  const spelling = printer.dialect.bulkCopy!;
  const plan = printer.bulkPlan!;
  const to = `${issue.local} + (${printer.print(issue.localOffset, 'int32')})`;
  const coordinates = issue.coordinates.map((c) => printer.print(c, 'int32'));
  const call = spelling.copy(issue.coordinates.length, issue.map.name, to, coordinates, issue.bytes, plan.slots);
  printer.useHelper(call.helper);
  if (issue.conditions.length === 0) return call.text;
  const condition = issue.conditions.reduce((all, c) => E.logical('and', all, c));
  return `if (${printer.print(condition)}) ${call.text}`;
}

/** The statements before a barrier of a kernel with bulk copies: the group closed (where barriers close them), then the wait. */
export function bulkWait(printer: CExpressionPrinter): string[] {
  const plan = printer.bulkPlan;
  if (!plan) return [];
  const spelling = printer.dialect.bulkCopy!;
  const lines: string[] = [];
  if (plan.commitsAtBarriers) lines.push(bulkCommit(printer)!);
  const wait = spelling.waitLeaving(plan.commitsAtBarriers ? 0 : printer.asyncPlan.inFlight, plan.slots);
  printer.useHelper(wait.helper);
  return [...lines, wait.text];
}

/** The statement closing a group of bulk copies; undefined in a kernel without them. */
export function bulkCommit(printer: CExpressionPrinter): string | undefined {
  const plan = printer.bulkPlan;
  if (!plan) return undefined;
  const commit = printer.dialect.bulkCopy!.commit(plan.slots);
  printer.useHelper(commit.helper);
  return commit.text;
}

/** A kernel's first lines (its barrier objects set up) and last (every group waited for), for its bulk copies. */
export function bulkFrame(printer: CExpressionPrinter): { first: readonly string[]; last: readonly string[] } {
  const plan = printer.bulkPlan;
  if (!plan) return { first: [], last: [] };
  const spelling = printer.dialect.bulkCopy!;
  const prologue = spelling.prologue(plan.slots);
  printer.useHelper(prologue.helper);
  // a block may not leave while its copies still write its local memory
  const last = plan.commitsAtBarriers ? [bulkCommit(printer)!] : [];
  const wait = spelling.waitLeaving(0, plan.slots);
  printer.useHelper(wait.helper);
  return { first: prologue.lines, last: [...last, wait.text] };
}

/** The tensor map parameters a kernel takes after its own, for its bulk copies. */
export function bulkParameters(printer: CExpressionPrinter): string[] {
  const plan = printer.bulkPlan;
  if (!plan) return [];
  return plan.maps.map((m) => {
    const p = printer.dialect.bulkCopy!.mapParameter(m.name);
    printer.useHelper(p.helper);
    return p.text;
  });
}
