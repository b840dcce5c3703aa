/**
 * Scans (loopy's `realize_reduction(force_scan=True)`): a triangular reduction
 * `out[i] = sum(j, e)` over `lo_j <= j <= lo_j + stride*(i - lo_i)` (scan-candidate.ts) is
 * realized by carrying one result from one value of the sweep iname `i` to the next instead
 * of reducing from scratch at each:
 *
 *  - a new iname `t` (the tracking iname) runs, at each `i`, over the values of `j` that `i`
 *    adds to the previous one's: `lo_j + stride*(i - lo_i - 1) < t <= lo_j + stride*(i - lo_i)`;
 *  - a sequential sweep (`for`, `unr` or untagged) folds `e` at `t` into an accumulator set
 *    once, outside the sweep (sequential.ts with the accumulator started outside `i`): O(n);
 *  - a sweep over work-items (`l.N`) folds them per work-item, then a scan in local memory
 *    combines the work-items' partial results (scan-local.ts).
 *
 * Which reductions: those of `forceScan` (every one, and one that is no scan is an error),
 * or under `automagicScansOk` those that are scans (the others stay reductions).
 */
import { LoomError } from '../errors.ts';
import type { Reduce } from '../expr/nodes.ts';
import { Linear } from '../linear.ts';
import { parentInames } from '../kernel/domains.ts';
import { tagToString } from '../kernel/model.ts';
import type { Realization, Scope } from './realization.ts';
import { ReductionIsNotTriangularError, scanCandidate, type ScanParameters } from './scan-candidate.ts';

/** realizeReduction's options for scans, in loopy's words. */
export interface ScanOptions {
  /** Realize every reduction (of `insnIdFilter`) as a scan; one that is none is an error. */
  readonly forceScan?: boolean;
  /** Realize the reductions that are scans as scans, the others as reductions. */
  readonly automagicScansOk?: boolean;
  /** The sweep iname of the scans, where Loom would not find it (or would find another). */
  readonly forceOuterInameForScan?: string;
}

/**
 * The scan reduction `e` is to be realized as, or undefined where it is realized as a
 * reduction: no scan was asked for, or (detected automatically) it is none.
 */
export function scanToRealize(
  r: Realization,
  e: Reduce,
  scope: Scope,
  options: ScanOptions,
): ScanParameters | undefined {
  if (!options.forceScan && !options.automagicScansOk) return undefined;
  try {
    return checkedScan(r, e, scope, options.forceOuterInameForScan);
  } catch (err) {
    if (!options.forceScan && err instanceof LoomError) return undefined;
    throw err;
  }
}

function checkedScan(r: Realization, e: Reduce, scope: Scope, sweepName: string | undefined): ScanParameters {
  const scan = scanCandidate(r.knl, e, scope.within, sweepName);
  const where = `instruction '${scope.insn.id}': ${e.op}(${scan.scan}, ...) as a scan over '${scan.sweep}'`;
  const scanTag = r.inameTags.get(scan.scan);
  if (scanTag && scanTag.kind !== 'for') {
    throw new LoomError(
      `${where}: the scan iname '${scan.scan}' is tagged ${tagToString(scanTag)}; only the sweep iname may be parallel`,
      scope.insn.span,
    );
  }
  const sweepTag = r.inameTags.get(scan.sweep);
  if (sweepTag && sweepTag.kind !== 'for' && sweepTag.kind !== 'unroll' && sweepTag.kind !== 'local') {
    throw new LoomError(
      `${where}: the sweep iname is tagged ${tagToString(sweepTag)}, but a scan carries its result from one '${scan.sweep}' to the next: leave it sequential, or tag it l.N for a scan across the work-items of a group`,
      scope.insn.span,
    );
  }
  if (scope.guards.length > 0) {
    // a condition that skips some i would also skip their values for every later i
    throw new LoomError(
      `${where}: the instruction runs under conditions, which would leave values out of the later results`,
      scope.insn.span,
    );
  }
  const nested = scope.within.filter(
    (n) => n !== scan.sweep && r.localAxis(n) === undefined && parentInames(r.knl, n).includes(scan.sweep),
  );
  if (nested.length > 0) {
    throw new LoomError(
      `${where}: the instruction also runs in ${nested.map((n) => `'${n}'`).join(', ')}, whose loop is inside '${scan.sweep}'`,
      scope.insn.span,
    );
  }
  return scan;
}

/**
 * The tracking iname: at each value of the sweep iname, the values of the scan iname it adds
 * to those of the previous one.
 */
export function trackingIname(r: Realization, scan: ScanParameters): string {
  const last = scan.scanLower.add(Linear.variable(scan.sweep).sub(scan.sweepLower).scale(scan.stride));
  const [t] = r.newInames(
    [`${scan.sweep}_scan`],
    ([t]) =>
      `${t} >= ${scan.scanLower.toString()} and ${t} <= ${last.toString()} and ${t} > ${last.sub(scan.stride).toString()}`,
    [undefined],
  );
  return t;
}

export { ReductionIsNotTriangularError, type ScanParameters };
