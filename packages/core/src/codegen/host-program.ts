/**
 * The host schedule (../schedule/host-schedule.ts) as the program's host steps: each
 * host loop with its bounds, in the value arguments and the enclosing host loops'
 * inames, which the host evaluates before launching the kernels of its body.
 */
import { LoomError } from '../errors.ts';
import { domainOf, parentInames } from '../kernel/domains.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { HostScheduleItem } from '../schedule/host-schedule.ts';
import type { HostStep } from './ast.ts';
import { combineBounds, nonRedundant } from './conditions.ts';

export function hostProgramOf(knl: LoopKernel, host: readonly HostScheduleItem[]): HostStep[] {
  const steps = (items: readonly HostScheduleItem[], outer: readonly string[]): HostStep[] =>
    items.flatMap((h): HostStep[] => {
      if (h.kind === 'barrier') return []; // the device's queue runs launches in order
      if (h.kind === 'launch') return [{ kind: 'launch', kernel: h.subkernel }];
      return [
        {
          kind: 'loop',
          iname: h.iname,
          ...hostLoopBounds(knl, h.iname, outer),
          body: steps(h.body, [...outer, h.iname]),
        },
      ];
    });
  return steps(host, []);
}

function hostLoopBounds(
  knl: LoopKernel,
  iname: string,
  outer: readonly string[],
): Pick<Extract<HostStep, { kind: 'loop' }>, 'lower' | 'upper'> {
  // the host knows the value arguments and its own loops, nothing a device kernel computes
  // (the same bounds a device loop would have: the domain with the inames inside projected out)
  const foreign = ancestors(knl, iname).filter((p) => !outer.includes(p));
  if (foreign.length) {
    throw new LoomError(
      `loop '${iname}' holds a global barrier, so the host runs it, but its bounds depend on '${foreign.join("', '")}', which only the device knows (give '${iname}' bounds in the parameters)`,
    );
  }
  const domain = domainOf(knl, [...outer, iname]);
  const enforced = domainOf(knl, outer);
  const lower = nonRedundant(domain.lowerBounds(iname, outer), 'lower', iname, enforced);
  const upper = nonRedundant(domain.upperBounds(iname, outer), 'upper', iname, enforced);
  if (lower.length === 0 || upper.length === 0) {
    throw new LoomError(
      `loop '${iname}' holds a global barrier, so the host runs it, but it has no ${lower.length === 0 ? 'lower' : 'upper'} bound (${domain.toString()})`,
    );
  }
  const fromData = [...lower, ...upper].flatMap((b) => b.expr.variables).filter((v) => knl.temporaries.has(v));
  if (fromData.length) {
    throw new LoomError(
      `loop '${iname}' holds a global barrier, so the host runs it, but its bounds read the temporary '${[...new Set(fromData)].join("', '")}', which only the device knows (bound it by value arguments)`,
    );
  }
  return { lower: combineBounds(lower, 'lower', enforced), upper: combineBounds(upper, 'upper', enforced) };
}

function ancestors(knl: LoopKernel, iname: string): string[] {
  const out = new Set<string>();
  const stack = parentInames(knl, iname);
  while (stack.length) {
    const p = stack.pop()!;
    if (out.has(p)) continue;
    out.add(p);
    stack.push(...parentInames(knl, p));
  }
  return [...out];
}
