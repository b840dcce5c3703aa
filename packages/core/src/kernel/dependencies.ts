/**
 * Dependencies between instructions: the ones written with `dep=` (wildcards as in
 * fnmatch), plus loopy's single-writer heuristic — a reader of a variable that
 * exactly one instruction writes depends on that writer — unless `dep=*...` says
 * the list is exhaustive.
 */
import { LoomError } from '../errors.ts';
import { parseNoSync, type Instruction, type SubstitutionRule } from './model.ts';
import { namesRead, namesWritten } from './accesses.ts';

/** fnmatch-style pattern (`*`, `?`, `[seq]`) as a RegExp. */
export function wildcardToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 1);
      if (close < 0) re += '\\[';
      else {
        let body = pattern.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function matchIds(pattern: string, ids: readonly string[]): string[] {
  if (!/[*?[]/.test(pattern)) return ids.includes(pattern) ? [pattern] : [];
  const re = wildcardToRegExp(pattern);
  return ids.filter((id) => re.test(id));
}

/**
 * Whether `insn` waives a barrier of `scope` between itself and the instruction
 * `otherId`: one of its `noSyncWith` entries (`ID`, `ID@SCOPE`, wildcards allowed)
 * names that id with the same scope or `any`. What the barrier pass asks before
 * inserting a barrier for a dependency (see `addNosync`).
 */
export function waivesBarrier(insn: Instruction, otherId: string, scope: 'local' | 'global'): boolean {
  return insn.noSyncWith.some((entry) => {
    const { pattern, scope: waived } = parseNoSync(entry);
    return (waived === 'any' || waived === scope) && matchIds(pattern, [otherId]).length > 0;
  });
}

export interface DependencyRequest {
  readonly insn: Instruction;
  readonly deps: readonly string[];
  readonly exhaustive: boolean;
}

export function resolveDependencies(
  requests: readonly DependencyRequest[],
  rules: ReadonlyMap<string, SubstitutionRule>,
): Map<string, string[]> {
  const ids = requests.map((r) => r.insn.id);
  const writers = new Map<string, string[]>();
  for (const { insn } of requests) {
    for (const w of new Set(namesWritten(insn))) writers.set(w, [...(writers.get(w) ?? []), insn.id]);
  }
  const result = new Map<string, string[]>();
  for (const { insn, deps, exhaustive } of requests) {
    const out = new Set<string>();
    for (const pattern of deps) {
      const matched = matchIds(pattern, ids);
      if (matched.length === 0) {
        throw new LoomError(
          `instruction '${insn.id}' depends on '${pattern}', which matches no instruction (ids: ${ids.join(', ')})`,
          insn.span && spanOf(insn, pattern),
        );
      }
      for (const m of matched) if (m !== insn.id) out.add(m);
    }
    if (!exhaustive) {
      for (const name of namesRead(insn, rules)) {
        const ws = writers.get(name);
        if (ws && ws.length === 1 && ws[0] !== insn.id) out.add(ws[0]);
      }
    }
    result.set(
      insn.id,
      ids.filter((id) => out.has(id)),
    );
  }
  return result;
}

function spanOf(insn: Instruction, word: string) {
  const span = insn.span!;
  const line = span.text.slice(span.start, span.end);
  const at = line.lastIndexOf(word);
  return at < 0 ? span : { text: span.text, start: span.start + at, end: span.start + at + word.length };
}

/**
 * Everything each instruction waits for, directly or through others: `prerequisites(id)`
 * is computed on first use and remembered. Dependencies on unknown ids are ignored.
 */
export function prerequisiteClosure(insns: readonly Instruction[]): (id: string) => ReadonlySet<string> {
  const byId = new Map(insns.map((i) => [i.id, i]));
  const memo = new Map<string, Set<string>>();
  const prerequisites = (id: string): Set<string> => {
    const known = memo.get(id);
    if (known) return known;
    const out = new Set<string>();
    memo.set(id, out); // a cycle ends here instead of recursing forever
    for (const d of byId.get(id)?.dependsOn ?? []) {
      if (!byId.has(d)) continue;
      out.add(d);
      for (const x of prerequisites(d)) out.add(x);
    }
    return out;
  };
  return prerequisites;
}
