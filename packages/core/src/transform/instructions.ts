/**
 * Transformations of the instruction list itself (loopy's transform/instruction.py):
 * priorities, dependencies, removal, renaming ids, tags.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import { parseNoSync, type Instruction, type LoopKernel } from '../kernel/model.ts';
import { uniqueName } from '../kernel/rename.ts';
import { instructionsWithin, type Within } from './match.ts';

/** The options addBarrier reads; any other key is an error. */
const ADD_BARRIER_OPTIONS = optionKeys<AddBarrierOptions>()([
  'id',
  'memKind',
  'synchronizationKind',
  'tags',
  'withinInames',
]);

/**
 * `removeInstructions(knl, 'id:a or id:b')`: the instructions go; those that waited for
 * them wait for what they waited for instead, so the order among the others stays.
 */
export function removeInstructions(knl: LoopKernel, within: Within): LoopKernel {
  const removed = instructionsWithin(knl, within, 'removeInstructions', true);
  const byId = new Map(knl.instructions.map((i) => [i.id, i]));
  // what a removed instruction stands for: its own dependencies, removed ones replaced in turn
  const standIn = new Map<string, string[]>();
  const resolve = (id: string, seen: Set<string>): string[] => {
    if (!removed.has(id)) return [id];
    const known = standIn.get(id);
    if (known) return known;
    if (seen.has(id)) return [];
    seen.add(id);
    const out = [...new Set(byId.get(id)!.dependsOn.flatMap((d) => resolve(d, seen)))];
    standIn.set(id, out);
    return out;
  };
  const instructions = knl.instructions
    .filter((i) => !removed.has(i.id))
    .map((insn) => ({
      ...insn,
      dependsOn: [...new Set(insn.dependsOn.flatMap((d) => resolve(d, new Set())))].filter((d) => d !== insn.id),
      noSyncWith: insn.noSyncWith.filter((entry) => !removed.has(parseNoSync(entry).pattern)),
    }));
  return knl.with({ instructions });
}

/** `setInstructionPriority(knl, 'id:fetch*', 5)`: among instructions free to go first, higher priorities do. */
export function setInstructionPriority(knl: LoopKernel, within: Within, priority: number): LoopKernel {
  if (!Number.isInteger(priority))
    throw new LoomError(`setInstructionPriority: the priority must be an integer, got ${priority}`);
  const chosen = instructionsWithin(knl, within, 'setInstructionPriority', true);
  return knl.with({ instructions: knl.instructions.map((i) => (chosen.has(i.id) ? { ...i, priority } : i)) });
}

/** `addDependency(knl, 'id:use', 'id:fetch')`: the instructions picked wait for those `dependsOn` picks. */
export function addDependency(knl: LoopKernel, within: Within, dependsOn: Within): LoopKernel {
  const chosen = instructionsWithin(knl, within, 'addDependency: the dependent instructions', true);
  const targets = instructionsWithin(knl, dependsOn, 'addDependency: the instructions depended on', true);
  const order = knl.instructions.map((i) => i.id).filter((id) => targets.has(id));
  const instructions = knl.instructions.map((insn) => {
    if (!chosen.has(insn.id)) return insn;
    const added = order.filter((id) => id !== insn.id && !insn.dependsOn.includes(id));
    return added.length ? { ...insn, dependsOn: [...insn.dependsOn, ...added] } : insn;
  });
  return knl.with({ instructions });
}

/**
 * `replaceInstructionIds(knl, { a: ['a1', 'a2'] })`: every dependency on `a` becomes one on
 * `a1` and `a2` (loopy's replace_instruction_ids; the instruction `a` itself is untouched).
 */
export function replaceInstructionIds(
  knl: LoopKernel,
  replacements: Readonly<Record<string, readonly string[]>>,
): LoopKernel {
  const ids = new Set(knl.instructions.map((i) => i.id));
  for (const [old, news] of Object.entries(replacements)) {
    for (const n of news)
      if (!ids.has(n))
        throw new LoomError(`replaceInstructionIds: '${old}' is replaced by '${n}', which is no instruction`);
  }
  const swap = (id: string) => replacements[id] ?? [id];
  const instructions = knl.instructions.map((insn) => ({
    ...insn,
    dependsOn: [...new Set(insn.dependsOn.flatMap(swap))].filter((d) => d !== insn.id),
    noSyncWith: insn.noSyncWith.flatMap((entry) => {
      const { pattern, scope } = parseNoSync(entry);
      return replacements[pattern] ? replacements[pattern].map((n) => `${n}@${scope}`) : [entry];
    }),
  }));
  return knl.with({ instructions });
}

/** `tagInstructions(knl, 'gather', 'writes:out')`: adds a tag that `tag:` matches can pick later. */
export function tagInstructions(knl: LoopKernel, tag: string, within?: Within): LoopKernel {
  checkName(tag, 'tagInstructions: the tag');
  const chosen = instructionsWithin(knl, within, 'tagInstructions: option within', within !== undefined);
  return knl.with({
    instructions: knl.instructions.map((i) =>
      chosen.has(i.id) && !i.tags.includes(tag) ? { ...i, tags: [...i.tags, tag] } : i,
    ),
  });
}

/** Options of `addBarrier`. */
export interface AddBarrierOptions {
  /** The barrier's id (made unique from `<kind>barrier` if not given). */
  readonly id?: string;
  /** `'global'` (default; ends the device kernel) or `'local'` (within a work-group). */
  readonly synchronizationKind?: 'global' | 'local';
  /** For a local barrier: which memory it also makes consistent (`'global'` or `'local'`). */
  readonly memKind?: 'global' | 'local';
  /** The loops the barrier sits in (default none). */
  readonly withinInames?: readonly string[];
  /** The barrier instruction's tags. */
  readonly tags?: readonly string[];
}

/**
 * `addBarrier(knl, 'id:transpose', 'id:double')`: a barrier after the instructions `before`
 * picks and before those `after` picks (loopy's add_barrier).
 */
export function addBarrier(
  knl: LoopKernel,
  before: Within,
  after: Within,
  options: AddBarrierOptions = {},
): LoopKernel {
  checkOptionKeys('addBarrier', options, ADD_BARRIER_OPTIONS);
  const kind = options.synchronizationKind ?? 'global';
  if (kind !== 'global' && kind !== 'local')
    throw new LoomError(`addBarrier: synchronizationKind must be 'global' or 'local', got '${String(kind)}'`);
  if (options.memKind !== undefined && options.memKind !== 'global' && options.memKind !== 'local')
    throw new LoomError(`addBarrier: memKind must be 'global' or 'local', got '${String(options.memKind)}'`);
  if (kind === 'global' && options.memKind === 'local')
    throw new LoomError('addBarrier: a global barrier makes all memory consistent; memKind local does not apply');
  for (const n of options.withinInames ?? [])
    if (!knl.inames.includes(n)) throw new LoomError(`addBarrier: unknown iname '${n}' in withinInames`);
  const first = instructionsWithin(knl, before, 'addBarrier: the instructions before', true);
  const then = instructionsWithin(knl, after, 'addBarrier: the instructions after', true);
  const ids = new Set(knl.instructions.map((i) => i.id));
  if (options.id !== undefined) checkName(options.id, 'addBarrier: option id');
  if (options.id !== undefined && ids.has(options.id))
    throw new LoomError(`addBarrier: the instruction id '${options.id}' is already used`);
  const id = options.id ?? uniqueName(`${kind[0]}barrier`, ids);
  const barrier: Instruction = {
    kind: 'barrier',
    id,
    assignees: [],
    barrierScope: kind,
    ...(options.memKind && kind === 'local' ? { memKind: options.memKind } : {}),
    withinInames: [...(options.withinInames ?? [])],
    dependsOn: knl.instructions.map((i) => i.id).filter((i) => first.has(i)),
    noSyncWith: [],
    priority: 0,
    predicates: [],
    tags: [...(options.tags ?? [])],
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
  };
  const instructions = knl.instructions.flatMap((insn) => {
    const updated =
      then.has(insn.id) && !insn.dependsOn.includes(id) ? { ...insn, dependsOn: [...insn.dependsOn, id] } : insn;
    return first.has(insn.id) && insn === knl.instructions.filter((i) => first.has(i.id)).at(-1)
      ? [updated, barrier]
      : [updated];
  });
  return knl.with({ instructions });
}
