/**
 * Vector values (loopy's `float4` elements read whole, `dot(a, b)`): made lane-by-lane
 * scalar code when the kernel is made, so that every transformation and every target sees
 * only the scalar lanes (a vector dtype is an array's last `vec` axis here: vector-dtypes.ts).
 *
 * - A read of a vector array with one index fewer than its stored axes (`DrDsDt[n, m]` of a
 *   `float4` array of shape (Np, Np)) is a whole vector; with all of them (`DrDsDt[n, m, 1]`,
 *   `DrDsDt[n, m].y`) it is one lane, a scalar.
 * - A `<>` temporary assigned a vector value (or declared `<float4>`) is a vector temporary:
 *   its lanes become its last axis, as an argument's do (`du` is read whole, `du.x` one lane).
 * - `make_uint4(a, b, c, d)` (OpenCL's vector constructors) makes a vector of its scalars, each
 *   converted to the lanes' dtype.
 * - Arithmetic, negation, casts, conditionals, known math functions and the `sum`, `product`,
 *   `max` and `min` reductions work lane by lane (OpenCL's meaning; a scalar beside a vector
 *   is used for every lane); `dot(a, b)` is the sum of the lanes' products, a scalar.
 * - An instruction assigning a vector becomes one instruction per lane: lane 0 keeps the id,
 *   lane k is `id_sk` (OpenCL's component names), and what depended on the instruction depends
 *   on every lane.
 *
 * What has no lane-by-lane meaning (comparing vectors, a vector stored into a scalar, a vector
 * index, a vector passed to a rule or a user function, a vector instruction reading its own
 * other lanes) is a LoomError naming it. Lowering to lanes works on every target, which is why
 * no target is asked whether it has vector types.
 */
import { LoomError, unreachable } from '../errors.ts';
import { binary, call, cast, int, subscript, type Expr } from '../expr/nodes.ts';
import { MATH_FUNCTIONS } from '../expr/math-functions.ts';
import { mapChildren, printExpr, someExpr } from '../expr/index.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { vectorDType } from '../vector-dtypes.ts';

/** A variable holding vectors: `rank` indices read a whole vector of `lanes` lanes. */
interface VectorVariable {
  readonly rank: number;
  readonly lanes: number;
}

/** The reductions whose lane-by-lane meaning is OpenCL's on vectors. */
const LANEWISE_REDUCTIONS = new Set(['sum', 'product', 'max', 'min']);

/**
 * `knl` with its vector values made lanes (see the file's comment). `vectorArgs`: the
 * arguments declared with a vector dtype, by name, their lanes already their last axis.
 */
export function lowerVectorValues(knl: LoopKernel, vectorArgs: ReadonlyMap<string, number>): LoopKernel {
  const vectors = new Map<string, VectorVariable>();
  for (const [name, lanes] of vectorArgs) vectors.set(name, { rank: (knl.arg(name)?.shape?.length ?? 1) - 1, lanes });
  const temporaries = new Map(knl.temporaries);
  for (const t of knl.temporaries.values()) {
    const vector = t.dtype === undefined ? undefined : vectorDType(t.dtype);
    if (!vector) continue;
    const rank = rankAssigned(knl, t.name);
    vectors.set(t.name, { rank, lanes: vector.lanes });
    temporaries.set(t.name, { ...t, dtype: vector.dtype });
  }
  const lanes = new VectorLanes(vectors, knl);
  // a temporary assigned a vector holds vectors; what reads it may make another one so
  for (let changed = true; changed; ) {
    changed = false;
    for (const insn of knl.instructions) {
      if (insn.kind !== 'assign' || !insn.expression || insn.assignees.length !== 1) continue;
      const name = assignedName(insn.assignees[0]);
      if (vectors.has(name) || !knl.temporaries.has(name)) continue;
      const n = lanes.of(insn.expression, insn);
      if (n === undefined) continue;
      vectors.set(name, { rank: indexCount(insn.assignees[0]), lanes: n });
      changed = true;
    }
  }
  if (vectors.size === 0 && !mentionsDot(knl)) return knl;

  for (const [name, rule] of knl.substitutions) {
    if (lanes.of(rule.expression) !== undefined)
      throw new LoomError(
        `substitution rule '${name}' computes a vector value; Loom works vectors out lane by lane in instructions only: assign it to a '<>' temporary instead`,
      );
  }
  const substitutions = new Map(
    [...knl.substitutions].map(([name, rule]) => [name, { ...rule, expression: lanes.lane(rule.expression) }]),
  );

  const laneIds = new Map<string, string[]>();
  const taken = new Set(knl.instructions.map((i) => i.id));
  const instructions: Instruction[] = [];
  for (const insn of knl.instructions) {
    const n = assignedLanes(insn, vectors, lanes);
    const scalar = (e: Expr) => lanes.lane(e);
    if (n === undefined) {
      instructions.push({
        ...insn,
        ...(insn.expression ? { expression: scalar(insn.expression) } : {}),
        assignees: insn.assignees.map(scalar),
        predicates: insn.predicates.map(scalar),
      });
      continue;
    }
    const ids = Array.from({ length: n }, (_, l) =>
      l === 0 ? insn.id : freshId(`${insn.id}_s${l.toString(16)}`, taken),
    );
    laneIds.set(insn.id, ids);
    ids.forEach((id, l) =>
      instructions.push({
        ...insn,
        id,
        assignees: [lanes.lane(insn.assignees[0], l)],
        expression: lanes.lane(insn.expression!, l),
        predicates: insn.predicates.map(scalar),
      }),
    );
  }
  const everyLane = (ids: readonly string[]) => ids.flatMap((id) => laneIds.get(id) ?? [id]);
  return knl.with({
    instructions: instructions.map((insn) => ({ ...insn, dependsOn: everyLane(insn.dependsOn) })),
    temporaries,
    substitutions,
  });
}

/** How many lanes the instruction assigns (undefined: it assigns a scalar), refusing what has no lane-by-lane meaning. */
function assignedLanes(
  insn: Instruction,
  vectors: ReadonlyMap<string, VectorVariable>,
  lanes: VectorLanes,
): number | undefined {
  for (const p of insn.predicates) lanes.scalar(p, insn, 'a predicate');
  const value = insn.expression === undefined ? undefined : lanes.of(insn.expression, insn);
  const assigned = insn.assignees.map((a) => lanes.of(a, insn));
  const vectorAt = assigned.findIndex((n) => n !== undefined);
  if (vectorAt < 0) {
    if (value !== undefined)
      throw new LoomError(
        `instruction '${insn.id}' stores a vector of ${value} lanes into '${printExpr(insn.assignees[0])}', which holds scalars (store it into a vector, or take one lane: v.x)`,
        insn.span,
      );
    return undefined;
  }
  if (insn.assignees.length !== 1)
    throw new LoomError(`instruction '${insn.id}' assigns a vector among several values; assign it alone`, insn.span);
  const n = assigned[vectorAt]!;
  if (value !== undefined && value !== n)
    throw new LoomError(
      `instruction '${insn.id}' stores a vector of ${value} lanes into '${printExpr(insn.assignees[0])}', which holds ${n}`,
      insn.span,
    );
  // lane k is computed after lanes 0..k-1 are stored: a value reading other lanes of the target would see new ones
  const name = assignedName(insn.assignees[0]);
  const rank = vectors.get(name)!.rank;
  const crossLane = (e: Expr): boolean =>
    someExpr(
      e,
      (x) =>
        (x.kind === 'call' && x.fn === 'dot' && x.args.some((a) => someExpr(a, (y) => readsName(y, name)))) ||
        (readsName(x, name) && x.kind === 'subscript' && x.indices.length === rank + 1),
    );
  if (insn.expression && crossLane(insn.expression))
    throw new LoomError(
      `instruction '${insn.id}' assigns the vector '${name}' from its own lanes across (through dot() or a component); its lanes are stored one by one, so compute the value into another temporary first`,
      insn.span,
    );
  return n;
}

/** The lanes of expressions, and their lane-by-lane forms. */
class VectorLanes {
  constructor(
    private readonly vectors: ReadonlyMap<string, VectorVariable>,
    private readonly knl: LoopKernel,
  ) {}

  /** The lanes of `e`'s value; undefined for a scalar. Refuses what has no lane-by-lane meaning. */
  of(e: Expr, insn?: Instruction): number | undefined {
    const fail = (why: string): never => {
      throw new LoomError(`${insn ? `instruction '${insn.id}': ` : ''}${why}`, insn?.span);
    };
    const combine = (parts: readonly Expr[], what: string): number | undefined => {
      const found = [...new Set(parts.map((p) => this.of(p, insn)).filter((n) => n !== undefined))];
      if (found.length > 1) fail(`${what} combines vectors of ${found.join(' and ')} lanes in '${printExpr(e)}'`);
      return found[0];
    };
    const scalarOnly = (parts: readonly Expr[], what: string): undefined => {
      for (const p of parts) this.scalar(p, insn, what);
      return undefined;
    };
    switch (e.kind) {
      case 'int':
      case 'float':
      case 'imag':
      case 'bool':
        return undefined;
      case 'var': {
        const v = this.vectors.get(e.name);
        return v?.rank === 0 ? v.lanes : undefined;
      }
      case 'subscript': {
        scalarOnly(e.indices, `an index of '${e.array}'`);
        const v = this.vectors.get(e.array);
        return v && !e.linear && e.indices.length === v.rank ? v.lanes : undefined;
      }
      case 'neg':
      case 'bitnot':
      case 'cast':
        return this.of(e.operand, insn);
      case 'binary':
        return combine([e.left, e.right], `'${e.op}'`);
      case 'compare':
      case 'logical':
        return scalarOnly([e.left, e.right], `'${e.op}' (vectors are not compared here: compare their lanes)`);
      case 'not':
        return scalarOnly([e.operand], `'not' (of a vector: take its lanes)`);
      case 'if':
        this.scalar(e.condition, insn, 'the condition of if()');
        return combine([e.then, e.otherwise], 'if()');
      case 'call': {
        const made = vectorConstructor(e.fn);
        if (made) {
          if (e.args.length !== made.lanes)
            fail(`${e.fn}() takes ${made.lanes} scalars, one per lane, got ${e.args.length} in '${printExpr(e)}'`);
          scalarOnly(e.args, `an argument of ${e.fn}() (one lane each)`);
          return made.lanes;
        }
        if (e.fn === 'dot') {
          if (e.args.length !== 2) fail(`dot() takes two vectors, got ${e.args.length} arguments`);
          const [a, b] = e.args.map((x) => this.of(x, insn));
          if (a !== b)
            fail(
              `dot() takes two vectors of as many lanes, got ${a ?? 'a scalar'} and ${b ?? 'a scalar'} in '${printExpr(e)}'`,
            );
          return undefined;
        }
        if (Object.hasOwn(MATH_FUNCTIONS, e.fn) && !this.knl.substitutions.has(e.fn))
          return combine(e.args, `${e.fn}()`);
        return scalarOnly(e.args, `an argument of ${e.fn}() (a rule or user function takes scalars)`);
      }
      case 'reduce': {
        const n = combine(e.operands, `${e.op}()`);
        if (n !== undefined && !LANEWISE_REDUCTIONS.has(e.op))
          fail(
            `a ${e.op} reduction of vectors has no lane-by-lane meaning (only ${[...LANEWISE_REDUCTIONS].join(', ')})`,
          );
        return n;
      }
      default:
        return unreachable(e, 'expression node');
    }
  }

  /** Refuses a vector where a scalar belongs. */
  scalar(e: Expr, insn: Instruction | undefined, what: string): void {
    const n = this.of(e, insn);
    if (n !== undefined)
      throw new LoomError(
        `${insn ? `instruction '${insn.id}': ` : ''}${what} must be a scalar, not the vector '${printExpr(e)}' of ${n} lanes`,
        insn?.span,
      );
  }

  /** Lane `l` of `e` (a scalar is the same in every lane; `l` undefined: `e` is a scalar), `dot` written out. */
  lane(e: Expr, l?: number): Expr {
    const made = e.kind === 'call' ? vectorConstructor(e.fn) : undefined;
    if (made && e.kind === 'call') {
      if (l === undefined) throw new LoomError(`the vector '${printExpr(e)}' stands where a scalar belongs`);
      return cast(made.dtype, this.lane(e.args[l]));
    }
    if (e.kind === 'call' && e.fn === 'dot' && e.args.length === 2) {
      const n = this.of(e.args[0]);
      if (n === undefined) return binary('*', this.lane(e.args[0]), this.lane(e.args[1]));
      const products = Array.from({ length: n }, (_, k) =>
        binary('*', this.lane(e.args[0], k), this.lane(e.args[1], k)),
      );
      return products.reduce((sum, p) => binary('+', sum, p));
    }
    if (e.kind === 'var' || e.kind === 'subscript') {
      const name = e.kind === 'var' ? e.name : e.array;
      const v = this.vectors.get(name);
      const indices = e.kind === 'var' ? [] : e.indices.map((ix) => this.lane(ix));
      if (v && !(e.kind === 'subscript' && e.linear) && indices.length === v.rank) {
        if (l === undefined) throw new LoomError(`the vector '${printExpr(e)}' stands where a scalar belongs`);
        return subscript(name, [...indices, int(l)], false, e.kind === 'subscript' ? e.tag : undefined);
      }
      return e.kind === 'var' ? e : subscript(e.array, indices, e.linear, e.tag, e.field);
    }
    if (e.kind === 'call' && !(Object.hasOwn(MATH_FUNCTIONS, e.fn) && !this.knl.substitutions.has(e.fn)))
      return call(
        e.fn,
        e.args.map((a) => this.lane(a)),
        e.tag,
        e.dtype,
      );
    return mapChildren(e, (child) => this.lane(child, l));
  }
}

/** OpenCL's `make_uint4(a, b, c, d)` (pyopencl's `cltypes`): the vector type it makes, or undefined. */
function vectorConstructor(fn: string) {
  return fn.startsWith('make_') ? vectorDType(fn.slice(5)) : undefined;
}

function readsName(e: Expr, name: string): boolean {
  return (e.kind === 'var' && e.name === name) || (e.kind === 'subscript' && e.array === name);
}

function assignedName(a: Expr): string {
  return a.kind === 'subscript' ? a.array : a.kind === 'var' ? a.name : '';
}

function indexCount(a: Expr): number {
  return a.kind === 'subscript' ? a.indices.length : 0;
}

/** The number of indices the instructions write a `<float4>` temporary with: that many read a whole vector. */
function rankAssigned(knl: LoopKernel, name: string): number {
  const ranks = new Set(
    knl.instructions.flatMap((i) => i.assignees.filter((a) => assignedName(a) === name).map(indexCount)),
  );
  if (ranks.size > 1)
    throw new LoomError(`the vector temporary '${name}' is written with ${[...ranks].join(' and ')} indices`);
  return [...ranks][0] ?? 0;
}

function mentionsDot(knl: LoopKernel): boolean {
  const isDot = (e: Expr) => e.kind === 'call' && e.fn === 'dot';
  return (
    knl.instructions.some((i) => i.expression !== undefined && someExpr(i.expression, isDot)) ||
    [...knl.substitutions.values()].some((r) => someExpr(r.expression, isDot))
  );
}

function freshId(base: string, taken: Set<string>): string {
  let id = base;
  for (let k = 0; taken.has(id); k++) id = `${base}_${k}`;
  taken.add(id);
  return id;
}
