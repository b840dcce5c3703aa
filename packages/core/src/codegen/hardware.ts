/**
 * Inames tagged `l.N` / `g.N` are not loops: the hardware runs them. This module
 * finds, for each such iname, its range (a constant offset plus the work-group size
 * or the number of groups), the launch sizes per axis, and the constraints the
 * hardware guarantees (`0 <= lid(0) < 128`), so guards only check the rest.
 *
 * A work-group size, like a number of groups, may be an expression in the parameters
 * (`l.0` over `0 <= i < n`: n work-items), evaluated when the kernel is launched, as
 * loopy does; `constantLocalSize` (local-size.ts) gives the numbers where an analysis
 * needs them before that, and a LoomError otherwise.
 */
import { InternalError, LoomError, StaticValueFindingError } from '../errors.ts';
import { add, binary, call, int, type Expr } from '../expr/nodes.ts';
import { fromLinear, printExpr } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { staticMax, staticMin, type BasicSet, type Constraint } from '../sets/index.ts';
import { domainOf } from '../kernel/domains.ts';
import { tagToString, type LoopKernel } from '../kernel/model.ts';

export interface HardwareIname {
  readonly iname: string;
  readonly kind: 'local' | 'group';
  readonly axis: number;
  /** The iname's smallest value: iname = offset + id. */
  readonly offset: number;
  /**
   * Its number of values, as `floor(expr / divisor)` in the parameters: the number of
   * groups (group), or of work-items the iname needs along its axis (local).
   */
  readonly count: { readonly expr: Linear; readonly divisor: number };
}

export interface Grid {
  readonly inames: ReadonlyMap<string, HardwareIname>;
  /** Work-group size per axis (at least one axis), in the parameters: `int(128)`, or `n` known at launch. */
  readonly localSize: readonly Expr[];
  /** Number of work-groups per axis, in the parameters. */
  readonly groupCount: readonly Expr[];
  /** What the hardware guarantees about the tagged inames. */
  readonly constraints: readonly Constraint[];
}

/** The grid of the whole kernel, or of the device kernel that runs only `used` inames. */
export function findGrid(knl: LoopKernel, runs?: ReadonlySet<string>): Grid {
  const inames = new Map<string, HardwareIname>();
  for (const [iname, tag] of knl.inameTags) {
    if (tag.kind !== 'local' && tag.kind !== 'group') continue;
    if (runs && !runs.has(iname)) continue;
    if (tag.axis > 2)
      throw new LoomError(
        `'${iname}' is tagged ${tag.kind === 'local' ? 'l' : 'g'}.${tag.axis}: only axes 0, 1 and 2 exist`,
      );
    const domain = domainOf(knl, [iname]);
    const term = [{ set: domain, expr: Linear.variable(iname) }];
    const low = hardwareLowerBound(knl, iname, domain, term);
    if (!low.isConstant) {
      throw new LoomError(
        `the lower bound of '${iname}' (${low.toString()}) must be a constant to map it to a hardware axis; split it or shift its domain`,
      );
    }
    const offset = low.constant;
    const count =
      tag.kind === 'local' ? localCount(knl, iname, domain, term, offset) : parametricCount(knl, iname, domain, offset);
    inames.set(iname, { iname, kind: tag.kind, axis: tag.axis, offset, count });
  }

  const sizes: { local: Expr[][]; group: Expr[][] } = { local: [[], [], []], group: [[], [], []] };
  const constraints: Constraint[] = [];
  const limits: { kind: HardwareIname['kind']; axis: number; iname: string; constraint: Constraint }[] = [];
  for (const h of inames.values()) {
    const v = Linear.variable(h.iname);
    constraints.push({ kind: 'ge', expr: v.sub(h.offset) });
    const { expr, divisor } = h.count;
    const size = divisor === 1 ? fromLinear(expr) : binary('//', fromLinear(expr), int(divisor));
    const axisSizes = sizes[h.kind][h.axis];
    if (!axisSizes.some((c) => printExpr(c) === printExpr(size))) axisSizes.push(size);
    // iname - offset < count, times the divisor: the hardware range of the axis
    limits.push({
      kind: h.kind,
      axis: h.axis,
      iname: h.iname,
      constraint: { kind: 'ge', expr: expr.sub(v.sub(h.offset - 1).scale(divisor)) },
    });
  }
  const maxOf = (cs: readonly Expr[]): Expr => (cs.length === 0 ? int(1) : cs.reduce((a, b) => call('max', [a, b])));
  const used = Math.max(1, ...[...inames.values()].map((h) => h.axis + 1));
  // constant work-group sizes of one axis: the largest (an iname shorter than the axis keeps a guard from its domain)
  const localSize = sizes.local
    .slice(0, used)
    .map((cs) => (cs.every((c) => c.kind === 'int') ? int(Math.max(1, ...cs.map(constantValue))) : maxOf(cs)));
  for (const { kind, axis, iname, constraint } of limits) {
    const size = localSize[axis];
    if (kind === 'local' && size.kind === 'int') {
      // the hardware range of the axis, whichever iname sizes it
      const h = inames.get(iname)!;
      constraints.push({ kind: 'ge', expr: Linear.constant(h.offset + size.value - 1).sub(Linear.variable(iname)) });
    } else if (sizes[kind][axis].length === 1) {
      // `iname < count` is guaranteed only when that count alone sizes the axis (no max of several)
      constraints.push(constraint);
    }
  }
  return { inames, localSize, groupCount: sizes.group.slice(0, used).map(maxOf), constraints };
}

function constantValue(e: Expr): number {
  if (e.kind !== 'int') throw new InternalError('a constant work-group size is an integer literal');
  return e.value;
}

/**
 * The work-items a local iname needs: its length where that is a constant, else the number
 * of values up to an upper bound in the parameters (`n`, or `floor((n + 2)/3)` for a chunk
 * of a third), which the launch evaluates, as loopy sets the work-group size at launch.
 */
function localCount(
  knl: LoopKernel,
  iname: string,
  domain: BasicSet,
  term: Parameters<typeof staticMax>[0],
  offset: number,
): HardwareIname['count'] {
  const high = staticMaxOrUndefined(term, knl.assumptions);
  if (high?.isConstant) return { expr: Linear.constant(high.constant - offset + 1), divisor: 1 };
  return parametricCount(knl, iname, domain, offset);
}

/**
 * `floor(up / d) - offset + 1` for an upper bound `up / d` of the iname in the parameters (the
 * number of groups of a `g.N` iname, the work-items of a parametric `l.N` one): any upper bound
 * is a valid size, since the domain's other bounds stay guards, so one without a division is
 * preferred. A bound that reads a temporary is known only while the kernel runs: too late to
 * size the launch.
 */
function parametricCount(knl: LoopKernel, iname: string, domain: BasicSet, offset: number): HardwareIname['count'] {
  const tag = tagToString(knl.inameTags.get(iname));
  const ups = domain.upperBounds(iname, []);
  if (ups.length === 0) throw new LoomError(`'${iname}' is tagged ${tag} but has no upper bound`);
  const up = ups.find((b) => b.divisor === 1) ?? ups[0];
  const fromData = up.expr.variables.filter((v) => knl.temporaries.has(v));
  if (fromData.length) {
    const what = knl.inameTags.get(iname)?.kind === 'local' ? 'the work-group size' : 'the number of work-groups';
    throw new LoomError(
      `'${iname}' is tagged ${tag}, but its bound reads the temporary '${fromData.join("', '")}': ${what} must be known before the kernel runs (pass it as a value argument, or leave '${iname}' a loop)`,
    );
  }
  // count = floor(up/d) - offset + 1 = floor((up + d*(1 - offset)) / d)
  return { expr: up.expr.add(up.divisor * (1 - offset)), divisor: up.divisor };
}

/**
 * The least value of a hardware iname over its domain. Where there is none that the
 * parameters alone give (`s_outer` of `start <= 2*s_outer + s_inner < stop`, with `start`
 * a temporary an enclosing loop reads from memory), a LoomError says which temporaries
 * the bounds read, not only that a static minimum was not found.
 */
function hardwareLowerBound(
  knl: LoopKernel,
  iname: string,
  domain: BasicSet,
  term: Parameters<typeof staticMin>[0],
): Linear {
  try {
    return staticMin(term, knl.assumptions);
  } catch (e) {
    if (!(e instanceof StaticValueFindingError)) throw e;
    const fromData = domain.params.filter((p) => knl.temporaries.has(p));
    const why = fromData.length
      ? `its bounds read the temporar${fromData.length > 1 ? 'ies' : 'y'} '${fromData.join("', '")}', known only while the kernel runs`
      : 'it has no least value that the parameters give';
    throw new LoomError(
      `'${iname}' is tagged ${tagToString(knl.inameTags.get(iname))}, but ${why}: a hardware axis's range must be known before the kernel runs (leave '${iname}' a loop, or split it and tag only the inner part)`,
    );
  }
}

/** The static maximum, or undefined where none is affine (the length `floor((n + 2)/3)` of a chunk). */
function staticMaxOrUndefined(terms: Parameters<typeof staticMax>[0], context: BasicSet): Linear | undefined {
  try {
    return staticMax(terms, context);
  } catch (e) {
    if (e instanceof StaticValueFindingError) return undefined;
    throw e;
  }
}

/** What replaces a hardware iname in the generated code: `gid(0)`, `lid(1) + 2`. */
export function hardwareExpr(h: HardwareIname): Expr {
  const id = call(h.kind === 'local' ? 'lid' : 'gid', [int(h.axis)]);
  return h.offset === 0 ? id : add(id, int(h.offset));
}

export function hardwareContext(grid: Grid, base: BasicSet): BasicSet {
  const dims = [...grid.inames.keys()].filter((n) => !base.dims.includes(n));
  return base.addDims(dims).addConstraints(grid.constraints);
}
