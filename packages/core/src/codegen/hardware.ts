/**
 * Inames tagged `l.N` / `g.N` are not loops: the hardware runs them. This module
 * finds, for each such iname, its range (a constant offset plus the work-group size
 * or the number of groups), the launch sizes per axis, and the constraints the
 * hardware guarantees (`0 <= lid(0) < 128`), so guards only check the rest.
 */
import { LoomError, StaticValueFindingError } from '../errors.ts';
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
  /** Local: the work-group size along the axis. */
  readonly size?: number;
  /** Group: the number of groups, as `floor(expr / divisor)` in the parameters. */
  readonly count?: { readonly expr: Linear; readonly divisor: number };
}

export interface Grid {
  readonly inames: ReadonlyMap<string, HardwareIname>;
  /** Work-group size per axis (at least one axis). */
  readonly localSize: readonly number[];
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
    if (tag.kind === 'local') {
      const high = staticMaxOrUndefined(term, knl.assumptions);
      if (!high?.isConstant) {
        throw new LoomError(
          `'${iname}' is tagged l.${tag.axis}, but its length (${high ? high.sub(offset - 1).toString() : 'a piecewise expression of the parameters'}) is not a constant: work-group sizes are fixed when the code is generated (split '${iname}' and tag the inner part)`,
        );
      }
      inames.set(iname, { iname, kind: 'local', axis: tag.axis, offset, size: high.constant - offset + 1 });
    } else {
      const ups = domain.upperBounds(iname, []);
      if (ups.length === 0) throw new LoomError(`'${iname}' is tagged g.${tag.axis} but has no upper bound`);
      // any upper bound is a valid count; prefer one without a division
      const up = ups.find((b) => b.divisor === 1) ?? ups[0];
      const fromData = up.expr.variables.filter((v) => knl.temporaries.has(v));
      if (fromData.length) {
        throw new LoomError(
          `'${iname}' is tagged g.${tag.axis}, but its bound reads the temporary '${fromData.join("', '")}': the number of work-groups must be known before the kernel runs (pass it as a value argument, or leave '${iname}' a loop)`,
        );
      }
      // count = floor(up/d) - offset + 1 = floor((up + d*(1 - offset)) / d)
      inames.set(iname, {
        iname,
        kind: 'group',
        axis: tag.axis,
        offset,
        count: { expr: up.expr.add(up.divisor * (1 - offset)), divisor: up.divisor },
      });
    }
  }

  const localSize = [1, 1, 1];
  for (const h of inames.values()) if (h.kind === 'local') localSize[h.axis] = Math.max(localSize[h.axis], h.size!);
  const counts: Expr[][] = [[], [], []];
  const constraints: Constraint[] = [];
  const groupLimits: { axis: number; constraint: Constraint }[] = [];
  for (const h of inames.values()) {
    const v = Linear.variable(h.iname);
    constraints.push({ kind: 'ge', expr: v.sub(h.offset) });
    if (h.kind === 'local') {
      // the hardware range of the axis; an iname shorter than the axis keeps a guard from its domain
      constraints.push({ kind: 'ge', expr: Linear.constant(h.offset + localSize[h.axis] - 1).sub(v) });
    } else {
      const { expr, divisor } = h.count!;
      const count = divisor === 1 ? fromLinear(expr) : binary('//', fromLinear(expr), int(divisor));
      if (!counts[h.axis].some((c) => printExpr(c) === printExpr(count))) counts[h.axis].push(count);
      groupLimits.push({
        axis: h.axis,
        constraint: { kind: 'ge', expr: expr.sub(v.sub(h.offset - 1).scale(divisor)) },
      });
    }
  }
  // `iname < count` is guaranteed only when that count alone sizes the axis (no max of several)
  for (const { axis, constraint } of groupLimits) if (counts[axis].length === 1) constraints.push(constraint);
  const used = Math.max(1, ...[...inames.values()].map((h) => h.axis + 1));
  const groupCount = counts
    .slice(0, used)
    .map((cs) => (cs.length === 0 ? int(1) : cs.reduce((a, b) => call('max', [a, b]))));
  return { inames, localSize: localSize.slice(0, used), groupCount, constraints };
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
