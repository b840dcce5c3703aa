/**
 * `saveAndReloadTemporaries`: private and local temporaries die when a device kernel
 * ends, so a value written before a `... gbarrier` and read after it must be saved
 * to global memory and reloaded. For each such temporary this adds a global
 * `<tmp>_save_slot` indexed by the work-item's hardware inames, a save after the
 * writes and a reload before the reads, ordered around the barrier by dependencies.
 */
import { LoomError } from '../errors.ts';
import { binary, int, subscript, variable, type Expr } from '../expr/nodes.ts';
import { Linear } from '../linear.ts';
import { fromLinear } from '../expr/index.ts';
import { BasicSet } from '../sets/index.ts';
import { namesRead, namesWritten } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import { prerequisiteClosure } from '../kernel/dependencies.ts';
import type { Instruction, LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { uniqueName } from './rename.ts';

export function saveAndReloadTemporaries(knl: LoopKernel): LoopKernel {
  const byId = new Map(knl.instructions.map((i) => [i.id, i]));
  const prerequisites = prerequisiteClosure(knl.instructions);
  const dependents = new Map<string, Set<string>>();
  for (const i of knl.instructions) for (const p of prerequisites(i.id)) dependents.set(p, new Set([...(dependents.get(p) ?? []), i.id]));

  let instructions = [...knl.instructions];
  const temporaries = new Map(knl.temporaries);
  const domains = [...knl.domains];
  const taken = new Set([...knl.inames, ...knl.args.map((a) => a.name), ...temporaries.keys(), ...instructions.map((i) => i.id)]);
  const fresh = (base: string) => {
    const n = uniqueName(base, taken);
    taken.add(n);
    return n;
  };

  for (const barrier of knl.instructions.filter((i) => i.kind === 'barrier' && i.barrierScope === 'global')) {
    const before = prerequisites(barrier.id);
    const after = dependents.get(barrier.id) ?? new Set<string>();
    for (const t of knl.temporaries.values()) {
      if (t.addressSpace === 'global' || t.initializer) continue;
      const writers = [...before].map((id) => byId.get(id)!).filter((i) => namesWritten(i).includes(t.name));
      const readers = [...after].map((id) => byId.get(id)!).filter((i) => namesRead(i, knl.substitutions).has(t.name));
      if (!writers.length || !readers.length) continue;

      const hw = hardwareInamesOf(knl, writers[0]);
      for (const i of [...writers, ...readers]) {
        const mine = hardwareInamesOf(knl, i);
        if (mine.length !== hw.length || mine.some((n) => !hw.includes(n))) {
          throw new LoomError(
            `saveAndReloadTemporaries: '${t.name}' is written and read by instructions running on different hardware inames (${hw.join(', ')} vs ${mine.join(', ')})`,
          );
        }
      }
      const slotShape = hw.map((n) => extentOf(knl, n));
      const slot = fresh(`${t.name}_save_slot`);
      const elementDims = t.shape.map((_, k) => fresh(`${t.name}_dim_${k}`));
      if (elementDims.length) {
        domains.push(
          BasicSet.fromConstraints(
            [],
            elementDims,
            t.shape.flatMap((s, k) => {
              if (s.kind !== 'int') throw new LoomError(`saveAndReloadTemporaries: '${t.name}' needs a constant shape`);
              return [
                { kind: 'ge' as const, expr: Linear.variable(elementDims[k]) },
                { kind: 'ge' as const, expr: Linear.constant(s.value - 1).sub(Linear.variable(elementDims[k])) },
              ];
            }),
          ),
        );
      }
      temporaries.set(slot, { name: slot, dtype: t.dtype, shape: [...slotShape, ...t.shape], addressSpace: 'global' } satisfies TemporaryVariable);
      const slotIndex: Expr[] = [...hw.map((n) => variable(n)), ...elementDims.map((d) => variable(d))];
      const element = elementDims.length
        ? subscript(
            t.name,
            elementDims.map((d) => variable(d)),
          )
        : variable(t.name);
      const base = { noSyncWith: [], priority: 0, predicates: [], tags: [], groups: [], conflictsWithGroups: [], atomic: false } as const;
      const saveId = fresh(`${t.name}_save`);
      const reloadId = fresh(`${t.name}_reload`);
      const save: Instruction = {
        ...base,
        kind: 'assign',
        id: saveId,
        assignees: [subscript(slot, slotIndex)],
        expression: element,
        withinInames: [...hw, ...elementDims],
        dependsOn: writers.map((w) => w.id),
      };
      const reload: Instruction = {
        ...base,
        kind: 'assign',
        id: reloadId,
        assignees: [element],
        expression: subscript(slot, slotIndex),
        withinInames: [...hw, ...elementDims],
        dependsOn: [barrier.id],
      };
      const readerIds = new Set(readers.map((r) => r.id));
      instructions = instructions.map((i) =>
        i.id === barrier.id ? { ...i, dependsOn: [...i.dependsOn, saveId] } : readerIds.has(i.id) ? { ...i, dependsOn: [...i.dependsOn, reloadId] } : i,
      );
      instructions.push(save, reload);
    }
  }
  return knl.with({ instructions, temporaries, domains });
}

function hardwareInamesOf(knl: LoopKernel, insn: Instruction): string[] {
  return insn.withinInames.filter((n) => {
    const t = knl.inameTags.get(n);
    return t?.kind === 'local' || t?.kind === 'group';
  });
}

/** Number of values of an iname (its upper bound + 1, lower bound 0 required), in the parameters. */
function extentOf(knl: LoopKernel, iname: string): Expr {
  const domain = domainOf(knl, [iname]);
  const lows = domain.lowerBounds(iname, []);
  if (!lows.some((b) => b.expr.isConstant && b.expr.constant === 0 && b.divisor === 1)) {
    throw new LoomError(`saveAndReloadTemporaries: '${iname}' must start at 0 to index a save slot`);
  }
  const up = domain.upperBounds(iname, []).find((b) => b.divisor === 1) ?? domain.upperBounds(iname, [])[0];
  if (!up) throw new LoomError(`saveAndReloadTemporaries: '${iname}' has no upper bound`);
  const plusOne = up.expr.add(up.divisor);
  return up.divisor === 1 ? fromLinear(plusOne) : binary('//', fromLinear(plusOne), int(up.divisor));
}
