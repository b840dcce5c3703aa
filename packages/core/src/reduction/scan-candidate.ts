/**
 * Whether a reduction is a scan (loopy's `_try_infer_scan_candidate_from_expr` and
 * `_check_reduction_is_triangular`): `out[i] = sum(j, e)` over the triangle
 *
 *   lo_i <= i <= hi_i   and   lo_j <= j <= lo_j + stride * (i - lo_i)
 *
 * takes, at each value of the sweep iname `i`, the values of the scan iname `j` of the
 * previous one and `stride` more. Its results are then running sums: an accumulator carried
 * from one `i` to the next gives them all in O(n) (scan-sequential.ts, scan-local.ts) where
 * a reduction per output costs O(n²).
 *
 * The sweep iname is the one other iname the constraints on `j` mention (or the one the
 * user names); the bounds are read off the domain, and the triangle is checked exactly: the
 * domain of `i` and `j` (over the parameters and the inames around the reduction) must be the
 * set above, no point more or less.
 */
import { LoomError } from '../errors.ts';
import type { Reduce } from '../expr/nodes.ts';
import { Linear } from '../linear.ts';
import { BasicSet, type Constraint } from '../sets/index.ts';
import { allInames, domainOf } from '../kernel/domains.ts';
import type { LoopKernel } from '../kernel/model.ts';

/** Loopy's ReductionIsNotTriangularError: a scan was asked for, but the reduction's domain is no triangle. */
export class ReductionIsNotTriangularError extends LoomError {}

/** A triangular reduction: its sweep and scan inames and the triangle's shape. */
export interface ScanParameters {
  readonly sweep: string;
  readonly scan: string;
  /** The first value of the sweep iname, over the parameters and the inames around. */
  readonly sweepLower: Linear;
  /** The first value of the scan iname. */
  readonly scanLower: Linear;
  /** How many values of the scan iname each step of the sweep adds. */
  readonly stride: number;
}

/**
 * The scan that reduction `e` (inside the inames `within`) is, swept by `sweep` if given;
 * a ReductionIsNotTriangularError saying why it is none otherwise.
 */
export function scanCandidate(knl: LoopKernel, e: Reduce, within: readonly string[], sweep?: string): ScanParameters {
  const where = `${e.op}(${e.inames.join(', ')}, ...)`;
  const fail = (why: string) => new ReductionIsNotTriangularError(`${where} is not a scan: ${why}`);
  if (e.inames.length !== 1) throw fail(`a scan reduces over one iname, this one over ${e.inames.length}`);
  const [scan] = e.inames;
  const inames = allInames(knl);
  if (sweep === undefined) sweep = inferSweep(domainOf(knl, [scan], true), scan, inames, fail);
  else if (!inames.has(sweep)) throw new LoomError(`forceOuterInameForScan: no iname '${sweep}'`);
  if (sweep === scan) throw fail(`'${scan}' cannot sweep over itself`);
  if (!within.includes(sweep))
    throw fail(
      `its sweep iname '${sweep}' is not an iname of the instruction (it runs in ${within.map((n) => `'${n}'`).join(', ') || 'no loop'})`,
    );

  // the domain of the two, over the parameters and the other inames of their domains; the
  // triangle's bounds may use those the reduction is inside of, and is checked against it all
  // (as loopy does: a constraint tying the sweep to an iname the instruction is not in, such
  // as `i = k`, makes it no triangle)
  let domain = domainOf(knl, [sweep, scan], true);
  domain = domain.moveDimsToParams(domain.dims.filter((d) => d !== sweep && d !== scan));
  const notAround = domain.params.filter((p) => inames.has(p) && !within.includes(p));
  const bounded = notAround.length > 0 ? domain.project(notAround) : domain;
  if (domain.existentials.length > 0 || bounded.existentials.length > 0)
    throw fail(`the domain of '${sweep}' and '${scan}' has strides or divisions: ${domain.toString()}`);

  const params = domain.params;
  const exact = (bounds: readonly { expr: Linear; divisor: number }[]) =>
    bounds.filter((b) => b.divisor === 1).map((b) => b.expr);
  const sweepOnly = bounded.project([scan]);
  const sweepLowers = exact(sweepOnly.lowerBounds(sweep, bounded.params));
  const sweepUppers = exact(sweepOnly.upperBounds(sweep, bounded.params));
  const scanLowers = exact(bounded.lowerBounds(scan, bounded.params));
  const strides = [
    ...new Set(exact(bounded.upperBounds(scan, [sweep, ...bounded.params])).map((b) => b.coeff(sweep))),
  ].filter((s) => Number.isInteger(s) && s > 0);
  if (strides.length === 0)
    throw fail(`the last value of '${scan}' does not grow with '${sweep}': ${domain.toString()}`);

  // the constraints on the parameters alone hold in both
  const others = domain.constraints.filter((c) => !c.expr.dependsOn(sweep) && !c.expr.dependsOn(scan));
  const ge = (expr: Linear): Constraint => ({ kind: 'ge', expr });
  const i = Linear.variable(sweep);
  const j = Linear.variable(scan);
  for (const sweepLower of sweepLowers) {
    for (const sweepUpper of sweepUppers) {
      for (const scanLower of scanLowers) {
        for (const stride of strides) {
          const triangle = BasicSet.fromConstraints(
            params,
            [sweep, scan],
            [
              ...others,
              ge(i.sub(sweepLower)),
              ge(sweepUpper.sub(i)),
              ge(j.sub(scanLower)),
              ge(scanLower.add(i.sub(sweepLower).scale(stride)).sub(j)),
            ],
          );
          if (sameSet(domain, triangle)) return { sweep, scan, sweepLower, scanLower, stride };
        }
      }
    }
  }
  throw fail(
    `the domain of '${sweep}' and '${scan}' is not lo <= ${scan} <= lo + stride*(${sweep} - first ${sweep}): ${domain.toString()}`,
  );
}

/** Whether two sets over the same names have the same integer points. */
function sameSet(a: BasicSet, b: BasicSet): boolean {
  return a.constraints.every((c) => b.implies(c)) && b.constraints.every((c) => a.implies(c));
}

/** The one iname besides `scan` that the constraints on `scan` mention (loopy's `_try_infer_sweep_iname`). */
function inferSweep(
  domain: BasicSet,
  scan: string,
  inames: ReadonlySet<string>,
  fail: (why: string) => LoomError,
): string {
  const candidates = new Set<string>();
  for (const c of domain.constraints) {
    if (!c.expr.dependsOn(scan)) continue;
    for (const v of c.expr.variables) if (v !== scan && inames.has(v)) candidates.add(v);
  }
  if (candidates.size === 0)
    throw fail(`no iname bounds '${scan}', so there is nothing to sweep it (its domain: ${domain.toString()})`);
  if (candidates.size > 1) {
    throw fail(
      `the bounds of '${scan}' depend on ${[...candidates].map((n) => `'${n}'`).join(' and ')}: name the sweep iname (forceOuterInameForScan)`,
    );
  }
  return [...candidates][0];
}
