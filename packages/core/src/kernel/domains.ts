/**
 * The domain list as a tree: a domain may use inames of earlier domains as
 * parameters (`{[j]: 0 <= j < i}` under `{[i]: 0 <= i < n}`). These helpers find the
 * combined domain of a set of inames, with the parents it depends on.
 */
import { BasicSet } from '../sets/index.ts';
import { LoomError } from '../errors.ts';
import { LruCache } from '../lru.ts';
import { perObject } from '../memo.ts';
import { CanonicalKey } from '../sets/canonical.ts';
import type { LoopKernel } from './model.ts';

/** Index of the domain that introduces `iname`. */
export function homeDomainIndex(knl: Pick<LoopKernel, 'domains'>, iname: string): number {
  const i = homes(knl.domains).get(iname);
  if (i === undefined) throw new LoomError(`unknown iname '${iname}'`);
  return i;
}

/** Per domain list (weakly: lists are immutable and shared), each iname's home domain: asked for at every loop. */
const homes = perObject((domains: readonly BasicSet[]): ReadonlyMap<string, number> => {
  const out = new Map<string, number>();
  domains.forEach((d, i) => {
    for (const n of d.dims) if (!out.has(n)) out.set(n, i);
  });
  return out;
});

/** The inames that the bounds of `iname` depend on (parameters of its domain that are inames). */
export function parentInames(knl: Pick<LoopKernel, 'domains'>, iname: string): string[] {
  const all = homes(knl.domains);
  const home = knl.domains[homeDomainIndex(knl, iname)];
  return home.params.filter((p) => all.has(p));
}

export function allInames(knl: Pick<LoopKernel, 'domains'>): Set<string> {
  return new Set(homes(knl.domains).keys());
}

/**
 * The set of values of `inames` (and of any parent inames they need), over the
 * kernel's parameters, intersected with the assumptions (unless told not to: a guard
 * must not re-check what the assumptions promise). Inames not asked for are
 * projected out unless `keepParents` is set.
 */
export function domainOf(
  knl: Pick<LoopKernel, 'domains' | 'assumptions'>,
  inames: Iterable<string>,
  keepParents = false,
  withAssumptions = true,
): BasicSet {
  // kernels are immutable and share their domain lists: the same question gets the same set
  const wanted = new Set(inames);
  const key = `${[...wanted].sort().join(',')}|${keepParents}|${withAssumptions}`;
  // a one-domain kernel is keyed by its set, not its list: a kernel built again from the same
  // text shares the parsed set (BasicSet.parse remembers it) but not the list around it
  const domains = knl.domains.length === 1 ? knl.domains[0] : knl.domains;
  return answers(domains)(knl.assumptions).memo(key, () => computeDomainOf(knl, wanted, keepParents, withAssumptions));
}

/**
 * Per domain list and assumptions (weakly), the sets asked for, by iname set and flags. A
 * kernel asks a number of questions fixed by its loops; the bound only caps a pathological one.
 */
const answers = perObject((_: readonly BasicSet[] | BasicSet) =>
  perObject((_: BasicSet) => new LruCache<string, BasicSet>(DOMAIN_QUESTIONS_PER_KERNEL)),
);
const DOMAIN_QUESTIONS_PER_KERNEL = 1024;

function computeDomainOf(
  knl: Pick<LoopKernel, 'domains' | 'assumptions'>,
  wanted: ReadonlySet<string>,
  keepParents: boolean,
  withAssumptions: boolean,
): BasicSet {
  const all = homes(knl.domains);
  const needed = new Set<number>();
  const stack = [...wanted];
  const closure = new Set<string>();
  while (stack.length) {
    const n = stack.pop()!;
    if (closure.has(n)) continue;
    closure.add(n);
    const idx = homeDomainIndex(knl, n);
    needed.add(idx);
    for (const p of knl.domains[idx].params) if (all.has(p)) stack.push(p);
    // a domain introducing several inames brings all of them: they share constraints
    for (const d of knl.domains[idx].dims) if (!closure.has(d)) stack.push(d);
  }
  const parts = [...needed]
    .sort((a, b) => a - b)
    .map((idx) => ({ domain: knl.domains[idx], inameParams: knl.domains[idx].params.filter((p) => all.has(p)) }));
  const kept = (d: string) => wanted.has(d) || (keepParents && closure.has(d));
  // the same loops in the next kernel (another build, other names) make the same set: remembered up to renaming
  const key = new CanonicalKey().text(`${keepParents}|${withAssumptions}`).variables([...wanted]);
  if (keepParents) key.variables([...closure]);
  if (withAssumptions) setKey(key, knl.assumptions);
  for (const { domain, inameParams } of parts) setKey(key.variables(inameParams), domain);
  return BasicSet.remembered(key, () => {
    let set = withAssumptions
      ? BasicSet.universe(knl.assumptions.params, []).intersect(knl.assumptions)
      : BasicSet.universe([], []);
    parts.forEach(({ domain, inameParams }, k) => {
      set = set.intersect(domain.moveParamsToDims(inameParams));
      // Inames no later domain mentions go now, while the system is small: projecting them
      // out of the domains so far gives the same set as projecting them out of the whole
      // (the later domains do not constrain them), at a fraction of the cost. (A parent's
      // iname may come as a child's parameter before its home domain: it waits for it.)
      const later = new Set(parts.slice(k + 1).flatMap((p) => [...p.domain.params, ...p.domain.dims]));
      const done = set.dims.filter((n) => !kept(n) && !later.has(n));
      if (done.length > 0) set = set.project(done);
    });
    return set;
  });
}

function setKey(key: CanonicalKey, set: BasicSet): CanonicalKey {
  return key.variables(set.params).variables(set.dims).variables(set.existentials).constraints(set.constraints);
}
