/**
 * `pipelinePrefetch(knl, 'a_fetch_rule', 'k_outer')`: software pipelining of a fetch through
 * registers. The fetch `a_fetch[...] = a[..., k_outer ...]` runs once per iteration of the
 * loop `k_outer`, and what reads its temporary waits for it: the global loads' latency is
 * exposed at every step. Afterwards each work-item loads the values of step `k_outer + 1`
 * into private registers while step `k_outer` computes:
 *
 *     a_fetch_next[r] = a[..., first step]              a_fetch_rule_first (before the loop)
 *     for k_outer
 *       a_fetch[...] = a_fetch_next[r]                  a_fetch_rule (keeps its id)
 *       a_fetch_next[r] = a[..., k_outer + 1]           a_fetch_rule_next (if there is a next step)
 *       ... barrier, what reads a_fetch ...
 *
 * `r` runs over the loops of the fetch inside `k_outer` that are not hardware axes (unrolled:
 * one register each); the hardware axes stay what they were (each work-item keeps its own
 * values). The loads go before the instructions that read the fetched temporary (they depend
 * on them, so the scheduler puts them first), which is what hides their latency. One local
 * buffer, the same barriers as before, no extra local memory.
 *
 * Why registers and not a second local buffer indexed by `k_outer % 2`: every access stays
 * affine, so the barrier and race analyses see the same local accesses as before (they
 * would not see through `% 2`), and local memory, which limits how many work-groups share a
 * multiprocessor, is not doubled.
 *
 * The fetch's inner loops get copies for the first step (`_first`) and the next one (`_next`),
 * their domains those of the original at `k_outer` = its first value and at `k_outer + 1`
 * (empty after the last step: that is the guard). The first step is `k_outer`'s lower bound,
 * which must be a single affine expression. A fetch with no loops inside `k_outer` has no
 * domain to copy: its next step's load is guarded by a condition instead. A loop of one step
 * has no next step: only the first step's loads are made (before the loop), no `_next` copy.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import { add, int, subscript, variable, type Expr } from '../expr/nodes.ts';
import { namesWritten, reductionInames } from '../kernel/accesses.ts';
import { prerequisiteClosure } from '../kernel/dependencies.ts';
import type { Instruction, LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { findInstructions, type Within } from './match.ts';
import { kernelNamer } from '../kernel/rename.ts';
import { tagArrayAxes } from './tag-array-axes.ts';
import { checkLoadAhead, constantRange, copiedLoops, stepCopies } from './loop-steps.ts';

/** The options pipelinePrefetch reads; any other key is an error. */
const PIPELINE_PREFETCH_OPTIONS = optionKeys<PipelinePrefetchOptions>()(['temporaryName']);

/** Options of `pipelinePrefetch`. */
export interface PipelinePrefetchOptions {
  /** The private registers' name (default: the fetched temporary's with `_next`). */
  readonly temporaryName?: string;
}

/** `fetch`: the fetch instructions (a match expression: an id, `writes:a_fetch`, ...); `iname`: the sequential loop they run in. */
export function pipelinePrefetch(
  knl: LoopKernel,
  fetch: Within,
  iname: string,
  options: PipelinePrefetchOptions = {},
): LoopKernel {
  checkOptionKeys('pipelinePrefetch', options, PIPELINE_PREFETCH_OPTIONS);
  if (options.temporaryName !== undefined) checkName(options.temporaryName, 'pipelinePrefetch: option temporaryName');
  checkLoop(knl, iname);
  const picked = findInstructions(knl, fetch);
  if (picked.length === 0)
    throw new LoomError(
      `pipelinePrefetch: '${[fetch].flat().join("', '")}' matches no instruction (ids: ${knl.instructions.map((i) => i.id).join(', ')})`,
    );
  if (picked.length > 1 && options.temporaryName !== undefined)
    throw new LoomError('pipelinePrefetch: option temporaryName names one temporary; pick one fetch instruction');
  for (const insn of picked) knl = pipelineOne(knl, knl.instruction(insn.id), iname, options);
  return knl;
}

function checkLoop(knl: LoopKernel, iname: string): void {
  if (!knl.inames.includes(iname)) throw new LoomError(`pipelinePrefetch: unknown iname '${iname}'`);
  const tag = knl.inameTags.get(iname);
  if (tag && tag.kind !== 'for')
    throw new LoomError(
      `pipelinePrefetch: '${iname}' is tagged ${tag.kind}; only a sequential loop has a next iteration to load ahead for (a hardware axis or an unrolled loop has none)`,
    );
}

function pipelineOne(knl: LoopKernel, insn: Instruction, iname: string, options: PipelinePrefetchOptions): LoopKernel {
  const what = `pipelinePrefetch: instruction '${insn.id}'`;
  checkLoadAhead(knl, insn, iname, what);
  const value = insn.expression!;
  const written = namesWritten(insn)[0];
  const nested = (i: Instruction) => i.withinInames.includes(iname) || reductionInames(i, knl.substitutions).has(iname);

  const { taken, fresh } = kernelNamer(knl);
  if (options.temporaryName !== undefined && taken.has(options.temporaryName))
    throw new LoomError(`pipelinePrefetch: option temporaryName: the name '${options.temporaryName}' is already used`);
  const regName = options.temporaryName ?? fresh(`${written}_next`);
  taken.add(regName);
  // a loop of one step (k split by its own extent) has no next step to load ahead: only the
  // first step's loads stay (the next step's copies would run over nothing, and an unrolled
  // loop over nothing has no constant length)
  const steps = stepCopies(knl, [insn], iname, what, fresh);
  const { inner, hasNext, nextOf, firstOf } = steps;
  const nextId = fresh(`${insn.id}_next`);
  const firstId = fresh(`${insn.id}_first`);
  const isAxis = (n: string) => ['local', 'group'].includes(knl.inameTags.get(n)?.kind ?? '');
  // a vector lane loop indexes the registers' last axis (their lanes)
  const lanesLast = (n: string) => (knl.inameTags.get(n)?.kind === 'vec' ? 1 : 0);
  const registers = inner.filter((n) => !isAxis(n)).sort((a, b) => lanesLast(a) - lanesLast(b));
  const extents = registers.map((r) => constantRange(knl, r, what));
  const domains = [...knl.domains, ...steps.domains];

  // one register per value of the register loops (a scalar when there are none)
  const registerAt = (names: ReadonlyMap<string, string> | undefined): Expr =>
    registers.length === 0
      ? variable(regName)
      : subscript(
          regName,
          registers.map((r, k) => {
            const at: Expr = variable(names?.get(r) ?? r);
            return extents[k].min === 0 ? at : add(at, int(-extents[k].min));
          }),
        );
  const ids = new Set(knl.instructions.map((i) => i.id));
  const outsideDeps = insn.dependsOn.filter((d) => ids.has(d) && !nested(knl.instruction(d)));
  const base = {
    kind: 'assign' as const,
    noSyncWith: insn.noSyncWith,
    priority: insn.priority,
    tags: insn.tags,
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
    span: insn.span,
  };
  const first: Instruction = {
    ...base,
    id: firstId,
    assignees: [registerAt(firstOf)],
    expression: steps.atFirst(value),
    withinInames: steps.firstWithin(insn),
    dependsOn: outsideDeps,
    predicates: steps.firstPredicates(insn),
  };
  const store: Instruction = { ...insn, expression: registerAt(undefined), dependsOn: [...insn.dependsOn, firstId] };
  const next: Instruction = {
    ...base,
    id: nextId,
    assignees: [registerAt(nextOf)],
    expression: steps.atNext(value),
    withinInames: steps.nextWithin(insn),
    // after the store has read the registers; the readers of the fetch wait for it (below), so it is issued before them
    dependsOn: [...insn.dependsOn, insn.id],
    predicates: steps.nextPredicates(insn),
  };
  // what uses the fetched values inside the loop waits for the next step's loads, so they are
  // issued first; not what shares a loop with the fetch (a vector staged through registers
  // in the same round), which the loads' loop cannot go around
  const prerequisites = prerequisiteClosure(knl.instructions);
  const waits = (i: Instruction) =>
    hasNext && nested(i) && prerequisites(i.id).has(insn.id) && !i.withinInames.some((n) => registers.includes(n));
  const instructions = knl.instructions.flatMap((i): Instruction[] => {
    if (i.id === insn.id) return hasNext ? [store, next] : [store];
    if (waits(i)) return [{ ...i, dependsOn: [...i.dependsOn, nextId] }];
    return [i];
  });
  instructions.unshift(first);
  const source = knl.temporaries.get(written) ?? knl.arg(written);
  const registersTemp: TemporaryVariable = {
    name: regName,
    dtype: source?.dtype,
    shape: extents.map((e) => int(e.max - e.min + 1)),
    addressSpace: 'private',
  };
  const result = knl.with({
    domains,
    instructions,
    ...copiedLoops(knl, hasNext ? [nextOf, firstOf] : [firstOf]),
    temporaries: new Map([...knl.temporaries, [regName, registersTemp]]),
  });
  const vec = registers.findIndex((r) => knl.inameTags.get(r)?.kind === 'vec');
  if (vec >= 0 && vec !== registers.length - 1)
    throw new LoomError(`${what}: more than one of its loops is a vector lane loop`, insn.span);
  return vec >= 0
    ? tagArrayAxes(result, regName, registers.map((_, k) => (k === vec ? 'vec' : 'c')).join(','))
    : result;
}
