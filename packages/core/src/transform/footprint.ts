/**
 * The footprint of a set of uses (array reads, substitution-rule calls): along each
 * argument, the box `[base, base + extent)` that the uses cover while the swept inames
 * run. `base` is affine in the inames that are not swept (the "fixed" ones), `extent` a
 * constant. Arguments the swept inames do not move have no extent: they are passed
 * through unchanged. footprint-store.ts stores the values over the box in a temporary.
 */
import { LoomError, StaticValueFindingError } from '../errors.ts';
import { Linear } from '../linear.ts';
import { type BasicSet, type Constraint, staticMax, staticMaxQuasiAffine, staticMinCandidates } from '../sets/index.ts';
import { add, binary, int, type Expr } from '../expr/nodes.ts';
import { fromLinear } from '../expr/index.ts';
import { domainOf } from '../kernel/domains.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';

/** One use: where it is, and its arguments (array indices or rule arguments), affine. */
export interface Use {
  readonly instruction: Instruction;
  readonly args: readonly Linear[];
  readonly reductionInames: readonly string[];
  /**
   * The points the arguments range over, when not the instruction's loops: a footprint
   * given by the caller (`a[:, j]` sweeps a whole axis through a variable of its own).
   */
  readonly points?: BasicSet;
}

export interface AxisFootprint {
  readonly base: Linear;
  /**
   * Undefined when the swept inames do not move this argument. Affine in the parameters; a
   * size that is not a constant is known only at launch (code generation asks the target).
   */
  readonly extent?: Linear;
  /**
   * Set (above 1) only for a global footprint whose size is not affine: the box's last
   * offset is then `floor((extent - 1) / divisor)`, not `extent - 1` (the per-block sums of
   * n values in blocks of 2560 take `floor((n - 1)/2560) + 1` cells). `boxSize` and
   * `lastOffsetBound` read both fields.
   */
  readonly divisor?: number;
  /** Affine bounds (in the fixed inames) that every use's argument keeps: they clip the box. */
  readonly lower?: readonly Linear[];
  readonly upper?: readonly Linear[];
}

export interface FootprintQuestion {
  readonly what: string;
  readonly base: string;
  readonly uses: readonly Use[];
  /** Inames (and a caller's own sweep variables) that run: the box covers all their values. */
  readonly sweep: readonly string[];
  /** Inames every use is fixed in, whether its arguments name them or not (fetchOuterInames). */
  readonly outer: readonly string[];
  /** Only the box: no clipping to bounds every use keeps (loopy's fetch_bounding_box). */
  readonly boundingBox?: boolean;
  /** The footprint goes to global memory: its size may depend on the parameters (the host allocates it per call). */
  readonly global?: boolean;
}

/** The fixed inames (not swept) the uses' arguments name, with the outer ones. */
export function fixedInames(knl: LoopKernel, q: FootprintQuestion): string[] {
  const inames = new Set(knl.inames);
  return [
    ...new Set([...q.uses.flatMap((u) => u.args.flatMap((l) => l.variables.filter((v) => inames.has(v)))), ...q.outer]),
  ].filter((n) => !q.sweep.includes(n));
}

/** The footprint along each argument. */
export function footprintAxes(knl: LoopKernel, q: FootprintQuestion, fixed: readonly string[]): AxisFootprint[] {
  const rank = q.uses[0].args.length;
  if (q.uses.some((u) => u.args.length !== rank))
    throw new LoomError(`${q.what}: '${q.base}' is used with different numbers of arguments`);
  return Array.from({ length: rank }, (_, d) => axisFootprint(knl, q, d, fixed));
}

/** The points a use's arguments range over, with the fixed inames as variables. */
export function pointsOf(knl: LoopKernel, use: Use, fixed: readonly string[]): BasicSet {
  if (use.points) {
    const missing = fixed.filter((n) => !use.points!.dims.includes(n) && !use.points!.params.includes(n));
    return missing.length ? use.points.intersect(domainOf(knl, missing)) : use.points;
  }
  return domainOf(knl, [...new Set([...use.instruction.withinInames, ...use.reductionInames, ...fixed])]);
}

function axisFootprint(knl: LoopKernel, q: FootprintQuestion, axis: number, fixed: readonly string[]): AxisFootprint {
  const args = q.uses.map((u) => u.args[axis]);
  const moves = args.some((l) => q.sweep.some((s) => l.dependsOn(s)));
  if (!moves && args.every((l) => l.equals(args[0]))) return { base: args[0] };
  const terms = q.uses.map((u, k) => ({ set: pointsOf(knl, u, fixed), expr: args[k] }));
  const { base, last } = smallestBox(knl, q, terms, fixed);
  // a private or local box of parametric size is declared with a length evaluated at launch
  // where the target can (a C variable-length array); code generation refuses it elsewhere
  const spread = last.expr;
  const extent = spread.add(1);
  const divided = last.divisor === 1 ? {} : { divisor: last.divisor };
  if (q.boundingBox) return { base, extent, ...divided };
  return {
    base,
    extent,
    ...divided,
    lower: commonBounds(terms, fixed, 'lower'),
    upper: commonBounds(terms, fixed, 'upper'),
  };
}

/**
 * The box's base and last offset. Where the least argument is no one affine expression (a
 * split of `f_w <= im_x` puts it at `max(8*o, f_w)`), each affine lower bound is a possible
 * base: the one whose box has the smallest constant size is taken (`8*o - f_w`, a box of
 * 8 + 2*f_w, not `0` and a box as long as the array), else staticMin's answer.
 */
function smallestBox(
  knl: LoopKernel,
  q: FootprintQuestion,
  terms: readonly { set: BasicSet; expr: Linear }[],
  fixed: readonly string[],
): { base: Linear; last: { expr: Linear; divisor: number } } {
  const lastOffset = (base: Linear) => {
    const offsets = terms.map((t) => ({ set: t.set, expr: t.expr.sub(base) }));
    // global memory is allocated per call: its size may be any expression of the parameters
    return q.global
      ? staticMaxQuasiAffine(offsets, knl.assumptions)
      : { expr: staticMax(offsets, knl.assumptions), divisor: 1 };
  };
  const [first, ...others] = staticMinCandidates(terms, knl.assumptions, fixed);
  let chosen = { base: first, last: lastOffset(first) };
  // a base that moves with a local iname would be a different box per work-item (checkSharedBox)
  const local = (n: string) => knl.inameTags.get(n)?.kind === 'local';
  for (const base of others.filter((b) => !b.variables.some(local))) {
    let last: { expr: Linear; divisor: number };
    try {
      last = lastOffset(base);
    } catch (e) {
      if (e instanceof StaticValueFindingError) continue;
      throw e;
    }
    const smaller =
      last.expr.isConstant &&
      last.divisor === 1 &&
      (!chosen.last.expr.isConstant || last.expr.constant < chosen.last.expr.constant);
    if (smaller) chosen = { base, last };
  }
  return chosen;
}

/** The number of cells a stored axis takes: `extent`, or `floor((extent - 1)/divisor) + 1`. */
export function boxSize(a: AxisFootprint & { readonly extent: Linear }): Expr {
  if (!a.divisor) return fromLinear(a.extent);
  return add(binary('//', fromLinear(a.extent.sub(1)), int(a.divisor)), int(1));
}

/** `offset <= the box's last offset`, as a constraint (`divisor*offset <= extent - 1` for a divided one). */
export function lastOffsetBound(a: AxisFootprint & { readonly extent: Linear }, offset: Linear): Constraint {
  return { kind: 'ge', expr: a.extent.sub(1).sub(offset.scale(a.divisor ?? 1)) };
}

/**
 * Bounds of the argument, from any use, that hold for every use: the stored box is
 * cut down to them, so nothing is computed where no use will look (at the end of
 * the data, the last group's box would otherwise run past the array).
 */
function commonBounds(
  terms: readonly { set: BasicSet; expr: Linear }[],
  outer: readonly string[],
  side: 'lower' | 'upper',
): Linear[] {
  const v = '__footprint_value';
  const candidates: Linear[] = [];
  for (const t of terms) {
    const withV = t.set.addDims([v]).addConstraints([{ kind: 'eq', expr: Linear.variable(v).sub(t.expr) }]);
    for (const b of side === 'upper' ? withV.upperBounds(v, outer) : withV.lowerBounds(v, outer)) {
      if (b.divisor === 1 && !candidates.some((c) => c.equals(b.expr))) candidates.push(b.expr);
    }
  }
  return candidates.filter((c) =>
    terms.every((t) => t.set.implies({ kind: 'ge', expr: side === 'upper' ? c.sub(t.expr) : t.expr.sub(c) })),
  );
}

/**
 * Whether a use stays inside the box on every point it runs over (a footprint the caller
 * gave may not cover every use; those keep reading the original).
 */
export function insideBox(
  knl: LoopKernel,
  use: Use,
  axes: readonly AxisFootprint[],
  fixed: readonly string[],
): boolean {
  const set = pointsOf(knl, use, fixed);
  return axes.every((a, d) => {
    const offset = use.args[d].sub(a.base);
    if (a.extent === undefined) return offset.isConstant && offset.constant === 0;
    return (
      set.implies({ kind: 'ge', expr: offset }) && set.implies(lastOffsetBound({ ...a, extent: a.extent }, offset))
    );
  });
}

/**
 * Local memory is shared by the work-items of a group: a box that moves with a local
 * iname the store runs in (not swept) would be a different box for each work-item,
 * all written into the same cells at once.
 */
export function checkSharedBox(
  knl: LoopKernel,
  q: FootprintQuestion,
  axes: readonly AxisFootprint[],
  fixed: readonly string[],
): void {
  const local = fixed.filter((n) => knl.inameTags.get(n)?.kind === 'local');
  const moving = local.filter((n) => axes.some((a) => a.base.dependsOn(n)));
  if (moving.length === 0) return;
  throw new LoomError(
    `${q.what}: the local temporary for '${q.base}' would hold a different part for each work-item along the local iname(s) '${moving.join("', '")}', ` +
      `all written into the same cells; sweep '${moving.join("', '")}' too (the storage then covers them) or leave the temporary private`,
  );
}

/**
 * A use reads the stored box at its own argument minus the box's base, so the base must be
 * known where the use is: affine in inames the use runs in. Uses in different loop nests
 * (a rule's precomputation inside 'f_dim_0' and an instruction outside it) would otherwise
 * give a base in an iname that the other use has no value of.
 */
export function checkBaseInScope(
  q: FootprintQuestion,
  uses: readonly Use[],
  axes: readonly AxisFootprint[],
  inames: ReadonlySet<string>,
): void {
  for (const use of uses) {
    const inScope = new Set([...use.instruction.withinInames, ...use.reductionInames]);
    const outside = [
      ...new Set(
        axes
          .filter((a) => a.extent !== undefined)
          .flatMap((f) => f.base.variables.filter((v) => inames.has(v) && !inScope.has(v))),
      ),
    ];
    if (outside.length === 0) continue;
    throw new LoomError(
      `${q.what}: the footprint of '${q.base}' starts at a place that depends on '${outside.join("', '")}', which instruction '${use.instruction.id}' is not inside; ` +
        `store the uses in each loop nest separately (option within) or sweep '${outside.join("', '")}' too`,
      use.instruction.span,
    );
  }
}
