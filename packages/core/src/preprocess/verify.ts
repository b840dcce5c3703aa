/**
 * The invariants of a kernel, checked between preprocessing passes in debug mode
 * (`LOOM_DEBUG`, pipeline.ts). A user's mistake is reported as a LoomError where it is
 * made (the front end, a transformation, a check); what this finds is Loom's own bug: a
 * pass that forgot a place (a dependency on an instruction it removed, an iname it
 * renamed in some expressions only, a temporary it added without a dtype).
 *
 * Always:
 *  - each iname is introduced by one domain;
 *  - arguments, temporaries and inames have distinct names, and each temporary and rule
 *    is filed under its own name;
 *  - a temporary has a shape, constant unless it lives in global memory;
 *  - instruction ids are distinct, and every dependency names an instruction;
 *  - an instruction's loops are inames, its reductions run over inames, and every name it
 *    reads is an iname, an argument or a temporary; an iname it reads outside a
 *    reduction over it is one of its loops;
 *  - an assignment writes an argument or a temporary (a barrier or no-op writes nothing).
 * And from the pass that establishes them on:
 *  - `typed`: every temporary has a dtype;
 *  - `reductionsRealized`: no instruction holds a reduction;
 *  - `temporariesPlaced`: no temporary is left in the `auto` address space.
 */
import { InternalError } from '../errors.ts';
import { freeVariables, printExpr, reductionInamesIn, someExpr } from '../expr/index.ts';
import { namesWritten, namesRead, readExpressions } from '../kernel/accesses.ts';
import { allParams } from '../kernel/domain-tree.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';

/** What a pass makes true of the kernel for good (pipeline.ts lists which pass establishes what). */
export type KernelProperty = 'typed' | 'reductionsRealized' | 'temporariesPlaced';

/**
 * Throws an InternalError when `knl` breaks an invariant: "kernel 'k' is broken `when`: ...",
 * `when` saying who to blame ("after preprocessing pass 'p'").
 */
export function verifyKernel(knl: LoopKernel, established: ReadonlySet<KernelProperty>, when: string): void {
  const problems = kernelProblems(knl, established);
  if (problems.length) throw new InternalError(`kernel '${knl.name}' is broken ${when}: ${problems.join('; ')}`);
}

/** Every broken invariant of `knl`, one sentence each; empty for a sound kernel. */
export function kernelProblems(knl: LoopKernel, established: ReadonlySet<KernelProperty> = new Set()): string[] {
  return [
    ...domainProblems(knl),
    ...nameProblems(knl),
    ...temporaryProblems(knl, established),
    ...instructionProblems(knl, established),
  ];
}

function domainProblems(knl: LoopKernel): string[] {
  const problems: string[] = [];
  const home = new Map<string, number>();
  knl.domains.forEach((d, k) => {
    for (const n of d.dims) {
      if (home.has(n)) problems.push(`iname '${n}' is introduced by domains ${home.get(n)} and ${k}`);
      else home.set(n, k);
    }
  });
  return problems;
}

function nameProblems(knl: LoopKernel): string[] {
  const problems: string[] = [];
  const args = new Set<string>();
  for (const a of knl.args) {
    if (args.has(a.name)) problems.push(`two arguments are called '${a.name}'`);
    args.add(a.name);
  }
  const inames = new Set(knl.inames);
  for (const [key, t] of knl.temporaries) {
    if (t.name !== key) problems.push(`temporary '${t.name}' is filed as '${key}'`);
    if (args.has(key)) problems.push(`'${key}' is both an argument and a temporary`);
  }
  for (const n of inames)
    if (args.has(n) || knl.temporaries.has(n)) problems.push(`iname '${n}' is also an argument or a temporary`);
  for (const [key, rule] of knl.substitutions)
    if (rule.name !== key) problems.push(`substitution rule '${rule.name}' is filed as '${key}'`);
  return problems;
}

function temporaryProblems(knl: LoopKernel, established: ReadonlySet<KernelProperty>): string[] {
  const problems: string[] = [];
  const known = new Set([...knl.args.filter((a) => a.kind === 'value').map((a) => a.name), ...allParams(knl)]);
  for (const t of knl.temporaries.values()) {
    if (!Array.isArray(t.shape)) problems.push(`temporary '${t.name}' has no shape`);
    // a private or local shape may depend on what a launch knows (value arguments, domain
    // parameters: sized at launch where the target can, placement.ts); a global one on anything
    else if (t.addressSpace !== 'global') {
      const unknown = t.shape.flatMap((e) => [...freeVariables(e)]).filter((n) => !known.has(n));
      if (unknown.length > 0)
        problems.push(
          `temporary '${t.name}' in ${t.addressSpace} memory has a shape in names no launch knows (${unknown.join(', ')}): [${t.shape.map(printExpr).join(', ')}]`,
        );
    }
    if (established.has('typed') && t.dtype === undefined)
      problems.push(`temporary '${t.name}' has no dtype after type inference`);
    if (established.has('temporariesPlaced') && t.addressSpace === 'auto')
      problems.push(`temporary '${t.name}' was not placed`);
  }
  return problems;
}

function instructionProblems(knl: LoopKernel, established: ReadonlySet<KernelProperty>): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const insn of knl.instructions) {
    if (ids.has(insn.id)) problems.push(`two instructions have the id '${insn.id}'`);
    ids.add(insn.id);
  }
  const inames = new Set(knl.inames);
  const variable = (name: string) => knl.temporaries.has(name) || knl.arg(name) !== undefined;
  const known = (name: string) => inames.has(name) || variable(name);
  for (const insn of knl.instructions) {
    const where = `instruction '${insn.id}'`;
    for (const d of insn.dependsOn) if (!ids.has(d)) problems.push(`${where} depends on '${d}', which does not exist`);
    for (const n of insn.withinInames)
      if (!inames.has(n)) problems.push(`${where} runs in the loop '${n}', which no domain has`);
    problems.push(...writeProblems(insn, variable).map((p) => `${where} ${p}`));
    const values = readExpressions(insn, knl.substitutions);
    for (const name of namesRead(insn, knl.substitutions))
      if (!known(name)) problems.push(`${where} reads '${name}', which is no iname, argument or temporary`);
    const free = new Set(values.flatMap((e) => [...freeVariables(e)]));
    for (const n of free)
      if (inames.has(n) && !insn.withinInames.includes(n))
        problems.push(`${where} reads the iname '${n}' outside its loop`);
    const reduced = new Set(values.flatMap((e) => [...reductionInamesIn(e)]));
    for (const n of reduced) if (!inames.has(n)) problems.push(`${where} reduces over '${n}', which no domain has`);
    if (established.has('reductionsRealized') && values.some((e) => someExpr(e, (x) => x.kind === 'reduce'))) {
      problems.push(`${where} still holds a reduction after reductions were realized`);
    }
  }
  return problems;
}

/** What is wrong with what the instruction writes, if anything. */
function writeProblems(insn: Instruction, isVariable: (name: string) => boolean): string[] {
  if (insn.kind === 'c') return insn.cCode && !insn.expression ? [] : ['is C code without its code, or with a value'];
  if (insn.kind === 'user-call')
    return insn.assignees.length || insn.expression?.kind !== 'call'
      ? ['is a user-call but assigns or calls nothing']
      : [];
  if (insn.kind !== 'assign') return insn.assignees.length || insn.expression ? [`is a ${insn.kind} but assigns`] : [];
  if (!insn.assignees.length || !insn.expression) return ['is an assignment without an assignee or a value'];
  if (insn.assignees.some((a) => a.kind !== 'var' && a.kind !== 'subscript'))
    return ['assigns to something that is no variable or array element'];
  return namesWritten(insn)
    .filter((written) => !isVariable(written))
    .map((written) => `writes '${written}', which is no argument or temporary`);
}
