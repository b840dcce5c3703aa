/**
 * Questions loopy users ask of a kernel's domain list: which names are parameters
 * (`allParams`), and how the domains nest (`parentsPerDomain`), as loopy's
 * `LoopKernel.all_params` and `LoopKernel.parents_per_domain` answer them.
 */
import { LoomError } from '../errors.ts';
import { assigneeName } from './accesses.ts';
import { allInames } from './domains.ts';
import type { LoopKernel } from './model.ts';

/**
 * The parameters of the domains: every name their bounds use that is no iname (loopy's
 * `all_params`), sorted.
 * ```ts
 * allParams(makeKernel('{ [i]: 0 <= i < n and i mod 2 = 0 }', '')); // ['n']
 * ```
 */
export function allParams(knl: LoopKernel): string[] {
  const inames = allInames(knl);
  return [...new Set(knl.domains.flatMap((d) => d.params.filter((p) => !inames.has(p))))].sort();
}

/**
 * For each domain (by index), the domain it is nested in, or `null` at the root (loopy's
 * `parents_per_domain`). A domain is nested in an earlier one whose inames its bounds use,
 * directly or through a temporary written inside that earlier domain's loops
 * (`<> row_len = lengths[i]` bounding `{[jj]: 0 <= jj < row_len}`).
 * ```ts
 * const knl = makeKernel(['{ [i]: 0 <= i < n }', '{ [j]: 0 <= j < i }'], 'a[i, j] = 1');
 * parentsPerDomain(knl); // [null, 0]
 * ```
 */
export function parentsPerDomain(knl: LoopKernel): (number | null)[] {
  // the stack of the inames active at each nesting level, as the domain list is walked in order
  let stack: Set<string>[] = [];
  const result: (number | null)[] = [];
  knl.domains.forEach((_, index) => {
    let discard = 0;
    while (discard < stack.length) {
      const level = stack[stack.length - 1 - discard];
      const below = stack[stack.length - 2 - discard];
      const own = below ? new Set([...level].filter((n) => !below.has(n))) : level;
      if (dependsOnInames(knl, index, own)) break;
      discard++;
    }
    stack = stack.slice(0, stack.length - discard);
    let parent: number | null = result.length ? result.length - 1 : null;
    for (let k = 0; k < discard; k++) parent = parent === null ? null : result[parent];
    result.push(parent);
    stack.push(new Set([...(stack[stack.length - 1] ?? []), ...knl.domains[index].dims]));
  });
  return result;
}

/** Whether the bounds of domain `index` use one of `inames`, or a temporary written inside their loops. */
function dependsOnInames(knl: LoopKernel, index: number, inames: ReadonlySet<string>): boolean {
  for (const param of knl.domains[index].params) {
    if (inames.has(param)) return true;
    if (!knl.temporaries.has(param)) continue;
    const writers = knl.instructions.filter((insn) => insn.assignees.some((a) => assigneeName(a) === param));
    if (writers.length > 1)
      throw new LoomError(
        `the loop bound '${param}' is written by more than one instruction (${writers.map((w) => w.id).join(', ')}): it may be written once`,
      );
    if (writers.some((w) => w.withinInames.some((n) => inames.has(n)))) return true;
  }
  return false;
}
