/**
 * Workgroup arrays laid out in rows where that spares a bounds clamp per access.
 *
 * Core flattens every access to one index (`a_fetch[X + 16]`), and Dawn's robustness pass (Tint)
 * clamps every index it cannot prove in bounds: `a_fetch[min(u32(X + 16), 1023u)]`. An unrolled
 * loop reads a staged panel at the same per-work-item X with constant offsets (X, X + 16, X + 32,
 * ...), and each access gets a clamp and an add of its own, which the driver cannot fold (measured:
 * an SGEMM ran 8% faster through Dawn with robustness off). Declared as rows instead,
 *
 *   var<workgroup> a_fetch: array<array<vec4<f32>, 32>, 32>;     a_fetch[1i][X + 16i]
 *
 * the constant row needs no clamp, and the column's clamp is one expression that every access of
 * the loop shares (the compiler computes it once).
 *
 * Per program (a workgroup variable is declared once at module scope and may be shared by several
 * kernels), each fixed-length `var<workgroup>` array (not an atomic one, not one sized at launch)
 * gets the row length R, a divisor of its length L with 2 <= R <= L / 2, for which every access of
 * the program splits and the clamps cost least (`clampCost`), or stays flat where no R costs less. An index E (in the array's declared units: vectors
 * for an array held as vectors: declared-units.ts) is read as a linear form over atoms (hardware ids
 * and divisions by constants, as core's vectorize.ts reads indices); the terms whose coefficient is
 * a multiple of R, and R·⌊c/R⌋ of the constant c, make the row (divided by R), the rest, c mod R
 * included, the column. The split is taken only where the column is proven in [0, R) by interval
 * arithmetic (core's `intervalOf`), from the ranges of the work-item ids (a constant work-group
 * size) and of the enclosing loops' indices; anything else is unknown, and an unknown in the column
 * keeps the array flat.
 *
 * Why the meaning is unchanged: E = R·row + column exactly, as integers (the atoms are the same
 * sub-expressions, printed the same way). Core proves or guards every access in bounds
 * (access-guards.ts), so E is in [0, L) wherever the access runs; with the column in [0, R) the
 * row is then in [0, L / R), and `a[row][column]` is element E of the flat array. A constant row is
 * also checked in [0, L / R) (WGSL refuses a constant index out of bounds at compile time, where
 * a flat access in a dead branch would merely be clamped), and anything uncertain (an access the
 * analysis cannot read, a name declared differently by two kernels, an access from a device
 * function) keeps the array flat. The printer asks here for each access it prints, and an access
 * of an array in rows that the analysis never saw is an InternalError, never a guess.
 */
import {
  expr as E,
  intervalOf,
  InternalError,
  isAtomicFunction,
  isHardwareId,
  Linear,
  ownExpressions,
  printExpr,
  statementsOfKind,
  subStatements,
  type Expr,
  type Interval,
  type KernelFunction,
  type ProgramAst,
  type Stmt,
  type VectorLoop,
} from '@loom/core';
import { declaredIndex, vectorLanesOf } from './declared-units.ts';
import { workgroupAtomics } from './workgroup-atomics.ts';

/** Where an index of an array in rows lies: `a[row][column]`. */
export interface RowSplit {
  readonly row: Expr;
  readonly column: Expr;
}

/** An array laid out in rows: its row length, and the split of every index the program uses. */
interface RowLayout {
  readonly rowLength: number;
  /** Its length in declared units (elements or vectors). */
  readonly count: number;
  /** By the printed index (`printExpr`): a split depends on the index and the row length alone. */
  readonly splits: ReadonlyMap<string, RowSplit>;
}

/** The row layouts of a program's workgroup arrays (the module above). */
export class WorkgroupRows {
  private constructor(private readonly layouts: ReadonlyMap<string, RowLayout>) {}

  /** Chooses the rows of every workgroup array of `program`, its kernels and device functions together. */
  static of(program: ProgramAst): WorkgroupRows {
    return new WorkgroupRows(chooseRows(program));
  }

  /** The WGSL type of workgroup array `array` of `count` `element`s: rows where chosen, else flat. */
  arrayType(array: string, element: string, count: number): string {
    const layout = this.layouts.get(array);
    if (!layout) return `array<${element}, ${count}>`;
    if (layout.count !== count)
      throw new InternalError(
        `workgroup array '${array}' is declared with ${count} elements, laid out for ${layout.count}`,
      );
    return `array<array<${element}, ${layout.rowLength}>, ${count / layout.rowLength}>`;
  }

  /** The row and column of `index` (in declared units) of `array`; undefined where the array is flat. */
  split(array: string, index: Expr): RowSplit | undefined {
    const layout = this.layouts.get(array);
    if (!layout) return undefined;
    const split = layout.splits.get(printExpr(index));
    if (!split)
      throw new InternalError(
        `workgroup array '${array}' is laid out in rows of ${layout.rowLength}, but its index ${printExpr(index)} was not analysed`,
      );
    return split;
  }
}

/** What the analysis knows where an access is: the ranges of names (loop indices, work-item ids). */
interface Scope {
  readonly ranges: ReadonlyMap<string, Interval>;
  /** Tells scopes apart, in the whole program: one access under two scopes is checked under each. */
  readonly id: number;
}

/** One access of a candidate array, in declared units, and where it is. */
interface Access {
  readonly index: Expr;
  readonly key: string;
  readonly scope: Scope;
}

/** A fixed-length workgroup array that may be laid out in rows: its length in declared units, its lanes. */
interface Candidate {
  readonly count: number;
  readonly lanes: number | undefined;
}

/** The name standing for a work-item id along `axis` in ranges (no Loom name starts with NUL). */
const localIdName = (axis: number) => `\u0000lid${axis}`;

function chooseRows(program: ProgramAst): Map<string, RowLayout> {
  const candidates = new Map<string, Candidate>();
  const refused = new Set<string>();
  for (const k of program.kernels) {
    const atomics = workgroupAtomics(k);
    for (const d of statementsOfKind(k.body, 'declare')) {
      if (d.addressSpace !== 'local') continue;
      if (typeof d.length !== 'number' || atomics.has(d.name) || d.forAtomic) {
        refused.add(d.name);
        continue;
      }
      const lanes = vectorLanesOf(d, atomics);
      const count = lanes ? d.length / lanes : d.length;
      const known = candidates.get(d.name);
      // declared differently by two kernels: left as it is
      if (known && (known.count !== count || known.lanes !== lanes)) refused.add(d.name);
      candidates.set(d.name, { count, lanes });
    }
    // a name that is also an argument somewhere is not touched
    for (const p of k.params) refused.add(p.name);
    for (const l of k.localArguments ?? []) refused.add(l.name);
  }
  for (const name of refused) candidates.delete(name);
  if (candidates.size === 0) return new Map();

  const accesses = new Map<string, Map<string, Access>>();
  let scopes = 0;
  const scopeId = () => scopes++;
  // a device function declares no local array (core keeps a call that shares one inlined): any access
  // one made would keep its array flat
  for (const k of [
    ...program.kernels,
    ...(program.deviceFunctions ?? []).map((f) => ({ body: f.body, localSize: [] })),
  ])
    collectAccesses(k, candidates, accesses, refused, scopeId);

  const layouts = new Map<string, RowLayout>();
  for (const [name, { count }] of candidates) {
    const found = accesses.get(name);
    if (refused.has(name) || !found || found.size === 0) continue;
    const all = [...found.values()];
    let best: RowLayout | undefined;
    let bestCost = clampCost(all.map((a) => ['flat', a.index] as const));
    for (let rowLength = 2; rowLength <= count / 2; rowLength++) {
      if (count % rowLength !== 0) continue;
      const splits = splitAll(all, rowLength, count / rowLength);
      if (!splits) continue;
      const cost = clampCost(
        [...splits.values()].flatMap((x) => [['row', x.row] as const, ['column', x.column] as const]),
      );
      if (cost < bestCost) [best, bestCost] = [{ rowLength, count, splits }, cost];
    }
    if (best) layouts.set(name, best);
  }
  return layouts;
}

/** What a clamp costs where its index stays the same through every loop, against one that a loop changes. */
const INVARIANT_CLAMP = 0.01;

/**
 * What the robustness clamps of a layout cost, to choose between layouts: each distinct index
 * expression of each kind (flat, row, column; a constant needs no clamp) counts 1 where it names
 * a loop index or another variable (the clamp runs every iteration) and INVARIANT_CLAMP where it
 * reads only work-item ids and constants (computed once, but each distinct one holds a register).
 * Rows are taken only where they cost less than the flat array: in an unrolled loop, one column
 * for many constant rows; in a loop that is not, a row that changes with the loop and columns that
 * do not (`b_fetch[k][X + 16]` rather than `b_fetch[4k + 1][X]`, which clamps as often as flat).
 */
function clampCost(indices: readonly (readonly [kind: string, index: Expr])[]): number {
  const distinct = new Map<string, Expr>();
  for (const [kind, index] of indices) if (index.kind !== 'int') distinct.set(`${kind} ${printExpr(index)}`, index);
  let cost = 0;
  for (const index of distinct.values()) cost += E.someExpr(index, (x) => x.kind === 'var') ? 1 : INVARIANT_CLAMP;
  return cost;
}

/** The splits of every access for rows of `rowLength`, or undefined when one does not split. */
function splitAll(accesses: readonly Access[], rowLength: number, rows: number): Map<string, RowSplit> | undefined {
  const splits = new Map<string, RowSplit>();
  for (const a of accesses) {
    const split = splitIndex(a.index, a.scope, rowLength, rows);
    if (!split) return undefined;
    splits.set(a.key, split);
  }
  return splits;
}

/**
 * `index` as `rowLength·row + column` with the column proven in [0, rowLength) under `scope`;
 * undefined where that cannot be shown.
 */
function splitIndex(index: Expr, scope: Scope, rowLength: number, rows: number): RowSplit | undefined {
  const form = E.toLinearOverAtoms(index, (x) => isHardwareId(x) || E.isDivisionByConstant(x));
  if (!form) return undefined;
  const { linear, atoms } = form;
  const rowTerms: [string, number][] = [];
  const columnTerms: [string, number][] = [];
  for (const name of linear.variables) {
    const c = linear.coeff(name);
    if (c % rowLength === 0) rowTerms.push([name, c / rowLength]);
    else columnTerms.push([name, c]);
  }
  const columnConstant = ((linear.constant % rowLength) + rowLength) % rowLength;
  const row = Linear.of(rowTerms, (linear.constant - columnConstant) / rowLength);
  const column = Linear.of(columnTerms, columnConstant);
  const atomRanges = new Map<string, Interval | undefined>();
  const rangeOf = (name: string): Interval | undefined => {
    const atom = atoms.get(name);
    if (atom === undefined) return scope.ranges.get(name);
    if (!atomRanges.has(name)) atomRanges.set(name, rangeIn(atom, scope));
    return atomRanges.get(name);
  };
  const range = intervalOf(E.fromLinear(column), rangeOf);
  if (!range || range.low < 0 || range.high >= rowLength) return undefined;
  if (row.isConstant && (row.constant < 0 || row.constant >= rows)) return undefined;
  return { row: E.fromLinearOverAtoms(row, atoms), column: E.fromLinearOverAtoms(column, atoms) };
}

/** The range of integer expression `e` under `scope` (its work-item ids by their ranges), or undefined. */
function rangeIn(e: Expr, scope: Scope): Interval | undefined {
  const opened = E.mapExpr(e, (x) =>
    isHardwareId(x) && x.kind === 'call' && x.fn === 'lid'
      ? E.variable(localIdName((x.args[0] as { value: number }).value))
      : x,
  );
  return intervalOf(opened, (name) => scope.ranges.get(name));
}

/**
 * What is known of the bounds of `e` under `scope`: its interval, or through `min` and `max` (a
 * loop's bounds cut at the end of a tile, `min(n - 16*k - 1, 15)`) one side where the other
 * depends on what is unknown.
 */
function boundsIn(e: Expr, scope: Scope): { readonly low?: number; readonly high?: number } {
  if (e.kind === 'call' && (e.fn === 'min' || e.fn === 'max') && e.args.length >= 1 && e.dtype === undefined) {
    const args = e.args.map((a) => boundsIn(a, scope));
    const lows = args.map((a) => a.low);
    const highs = args.map((a) => a.high);
    const known = (xs: (number | undefined)[]) => xs.filter((x): x is number => x !== undefined);
    const all = (xs: (number | undefined)[]) => (xs.every((x) => x !== undefined) ? (xs as number[]) : []);
    // min(a, b) <= each of them, and >= the least of them; max the other way round
    const pick = (xs: number[], f: (...v: number[]) => number) => (xs.length ? f(...xs) : undefined);
    return e.fn === 'min'
      ? { low: pick(all(lows), Math.min), high: pick(known(highs), Math.min) }
      : { low: pick(known(lows), Math.max), high: pick(all(highs), Math.max) };
  }
  const range = rangeIn(e, scope);
  return range ? { low: range.low, high: range.high } : {};
}

/**
 * Every access of a candidate array in kernel or device function `k`, in declared units, as the
 * printer will print it (statements.ts): a vector statement both whole and lane by lane (the printer
 * falls back to its lanes where it cannot spell the whole), under the ranges of the loops around it.
 * An access of an array `k` does not declare in local memory keeps the array flat.
 */
function collectAccesses(
  k: Pick<KernelFunction, 'body' | 'localSize'>,
  candidates: ReadonlyMap<string, Candidate>,
  accesses: Map<string, Map<string, Access>>,
  refused: Set<string>,
  scopeId: () => number,
): void {
  const declared = new Set(
    statementsOfKind(k.body, 'declare')
      .filter((d) => d.addressSpace === 'local')
      .map((d) => d.name),
  );
  const ranges = new Map<string, Interval>();
  k.localSize.forEach((s, axis) => {
    if (s.kind === 'int' && s.value >= 1) ranges.set(localIdName(axis), { low: 0, high: s.value - 1 });
  });
  // the indices in declared units of a flat index, in a vector statement whole and lane by lane: by the
  // flat index's text, of which an unrolled loop has few
  const forms = new Map<string, readonly { readonly index: Expr; readonly key: string }[]>();
  const declaredForms = (index: Expr, lanes: number | undefined, vector: VectorLoop | undefined) => {
    const memo = `${lanes}\u0000${vector?.iname}\u0000${vector?.lanes}\u0000${printExpr(index)}`;
    let known = forms.get(memo);
    if (!known) {
      const indices = !vector
        ? [declaredIndex(index, lanes, undefined).index]
        : [
            declaredIndex(index, lanes, vector).index,
            ...Array.from(
              { length: vector.lanes },
              (_, lane) =>
                declaredIndex(E.substitute(index, new Map([[vector.iname, E.int(lane)]])), lanes, undefined).index,
            ),
          ];
      known = indices.map((i) => ({ index: i, key: printExpr(i) }));
      forms.set(memo, known);
    }
    return known;
  };
  // the accesses of `e`; in a vector statement (`vector`) both as the whole statement prints them and
  // as each lane does (the statement with the lane's number put for the vec iname, as the printer puts it)
  const record = (e: Expr, scope: Scope, vector: VectorLoop | undefined) =>
    E.walk(e, (x) => {
      if (x.kind !== 'subscript' || !candidates.has(x.array)) return;
      const { lanes } = candidates.get(x.array)!;
      if (!declared.has(x.array) || x.indices.length !== 1 || x.field) {
        refused.add(x.array);
        return;
      }
      const index = x.indices[0];
      // an index without the vec iname is read the same whole or lane by lane
      const lanesOf = vector && E.freeVariables(index).has(vector.iname) ? vector : undefined;
      let found = accesses.get(x.array);
      if (!found) accesses.set(x.array, (found = new Map()));
      for (const { index: declared, key } of declaredForms(index, lanes, lanesOf))
        found.set(`${scope.id}\u0000${key}`, { index: declared, key, scope });
    });
  const visit = (s: Stmt, scope: Scope): void => {
    if (s.kind === 'for') {
      for (const e of ownExpressions(s)) record(e, scope, undefined);
      const low = boundsIn(s.lower, scope).low;
      const high = boundsIn(s.upper, scope).high;
      const inner = new Map(scope.ranges);
      if (low !== undefined && high !== undefined && low <= high) inner.set(s.iname, { low, high });
      else inner.delete(s.iname);
      visit(s.body, { ranges: inner, id: scopeId() });
      return;
    }
    if (s.kind === 'assign') {
      const fetch = s.value.kind === 'call' && isAtomicFunction(s.value.fn);
      // the old value of an atomic fetch is stored by an index of its own spelling: such an array stays flat
      if (fetch && s.target.kind === 'subscript' && candidates.has(s.target.array)) refused.add(s.target.array);
      if (s.vector && !fetch) {
        for (const e of [s.target, s.value]) record(e, scope, s.vector);
        return;
      }
    }
    for (const e of ownExpressions(s)) record(e, scope, undefined);
    for (const inner of subStatements(s)) visit(inner, scope);
  };
  visit(k.body, { ranges, id: scopeId() });
}
