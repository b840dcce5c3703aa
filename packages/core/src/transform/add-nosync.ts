/**
 * `addNosync(knl, 'local', 'write_*', 'read_*')`: promise that the sink instructions
 * need no barrier of that scope after the source instructions, although a dependency
 * (or a conflict between their groups) would otherwise ask for one — say, because
 * each work-item only reads what it wrote itself, which the barrier pass cannot see.
 *
 * The promise is recorded on the sink as a `noSyncWith` entry `SOURCE@SCOPE` (and on
 * the source too with `bidirectional`), exactly what `nosync=SOURCE@SCOPE` in the
 * instruction text gives. Scopes: `local` waives local barriers, `global` global
 * ones, `any` both.
 *
 * Only pairs that are related get an entry: the sink depends on the source (directly
 * or through others), or one's groups conflict with the other's. A pattern pair that
 * relates nothing is an error unless `emptyOk`; `force` adds the entries regardless.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { describeWithin, instructionsWithin, type Within } from './match.ts';
import { NO_SYNC_SCOPES, type Instruction, type LoopKernel, type NoSyncScope } from '../kernel/model.ts';

/** The options addNosync reads; any other key is an error. */
const ADD_NOSYNC_OPTIONS = optionKeys<AddNosyncOptions>()(['bidirectional', 'emptyOk', 'force']);

/** Options of `addNosync`. */
export interface AddNosyncOptions {
  /** Record the entry on the source as well as on the sink. */
  readonly bidirectional?: boolean;
  /** Add entries between every source and sink, related or not. */
  readonly force?: boolean;
  /** Accept that no entry is added (no pair is related). */
  readonly emptyOk?: boolean;
}

/** `source` and `sink`: match expressions (`'writes:tmp3'`, `'id:w_*'`, a bare id; see match.ts), or lists of them. */
export function addNosync(
  knl: LoopKernel,
  scope: NoSyncScope,
  source: Within,
  sink: Within,
  options: AddNosyncOptions = {},
): LoopKernel {
  checkOptionKeys('addNosync', options, ADD_NOSYNC_OPTIONS);
  if (!NO_SYNC_SCOPES.includes(scope)) {
    throw new LoomError(`addNosync: unknown scope '${String(scope)}' (known: ${NO_SYNC_SCOPES.join(', ')})`);
  }
  const sources = matchAll(knl, source, 'source');
  const sinks = matchAll(knl, sink, 'sink');
  const byId = new Map(knl.instructions.map((i) => [i.id, i]));
  const prerequisites = transitiveDependencies(knl.instructions);

  const added = new Map<string, string[]>();
  const note = (on: string, other: string) => added.set(on, [...(added.get(on) ?? []), `${other}@${scope}`]);
  for (const snk of sinks) {
    for (const src of sources) {
      if (src === snk) continue;
      const related = prerequisites.get(snk)!.has(src) || groupsConflict(byId.get(src)!, byId.get(snk)!);
      if (!related && !options.force) continue;
      note(snk, src);
      if (options.bidirectional) note(src, snk);
    }
  }
  if (added.size === 0 && !options.emptyOk) {
    throw new LoomError(
      `addNosync: no sink (${sinks.join(', ')}) depends on a source (${sources.join(', ')}) or conflicts with one, so no barrier would be waived; pass { force: true } to add the entries anyway, or { emptyOk: true }`,
    );
  }
  const instructions = knl.instructions.map((insn) => {
    const entries = added.get(insn.id);
    return entries ? { ...insn, noSyncWith: [...new Set([...insn.noSyncWith, ...entries])] } : insn;
  });
  return knl.with({ instructions });
}

function matchAll(knl: LoopKernel, within: Within, role: string): string[] {
  if (within === undefined) throw new LoomError(`addNosync: no ${role} instruction given`);
  const ids = instructionsWithin(knl, within, `addNosync: the ${role}`);
  if (ids.size === 0)
    throw new LoomError(
      `addNosync: the ${role} '${describeWithin(within)}' matches no instruction (ids: ${knl.instructions.map((i) => i.id).join(', ')})`,
    );
  return [...ids];
}

/** For each instruction, every instruction it depends on, directly or through others. */
function transitiveDependencies(insns: readonly Instruction[]): Map<string, Set<string>> {
  const direct = new Map(insns.map((i) => [i.id, i.dependsOn]));
  const result = new Map<string, Set<string>>();
  const visit = (id: string): Set<string> => {
    const known = result.get(id);
    if (known) return known;
    const all = new Set<string>();
    result.set(id, all); // a dependency cycle stops here instead of recursing forever
    for (const d of direct.get(id) ?? []) {
      all.add(d);
      for (const x of visit(d)) all.add(x);
    }
    return all;
  };
  for (const i of insns) visit(i.id);
  return result;
}

function groupsConflict(a: Instruction, b: Instruction): boolean {
  return (
    a.conflictsWithGroups.some((g) => b.groups.includes(g)) || b.conflictsWithGroups.some((g) => a.groups.includes(g))
  );
}
