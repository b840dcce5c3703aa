/**
 * Where a kernel reads and writes one argument, and the check that fusing a transformation
 * there keeps the kernel's meaning.
 *
 * A kernel that reads back what it wrote (`y[i] = 2*x[i]` then `z[i] = y[i]`, or an
 * accumulation `y[i] = y[i] + a[i, k]` over `k`) cannot take a transformation on that
 * argument: after fusing, its writes go through the transformation (or its reads do),
 * and the values it reads back would no longer be the ones it wrote. The one pattern that
 * stays correct is the elementwise update: a single instruction reading the element it
 * writes, each element written once (`y[i] = alpha*y[i] + x[i]`): it reads the old value,
 * the transformation sees the new one.
 */
import { LoomError, expr, printExpr, type Expr, type Instruction, type LoopKernel } from '@loom/core';

export interface Site {
  readonly insn: Instruction;
  readonly indices: readonly Expr[];
}

export interface ArgumentAccesses {
  readonly reads: readonly Site[];
  readonly writes: readonly Site[];
  /** Substitution rules that read it (where each call lands is not known here). */
  readonly rules: readonly string[];
}

export function accessesOf(knl: LoopKernel, name: string): ArgumentAccesses {
  const reads: Site[] = [];
  const writes: Site[] = [];
  const readsIn = (e: Expr, insn: Instruction) =>
    expr.walk(e, (x) => {
      if (x.kind === 'subscript' && x.array === name) reads.push({ insn, indices: x.indices });
      if (x.kind === 'var' && x.name === name) reads.push({ insn, indices: [] });
    });
  for (const insn of knl.instructions) {
    for (const a of insn.assignees) {
      if (a.kind === 'subscript') {
        if (a.array === name) writes.push({ insn, indices: a.indices });
        a.indices.forEach((i) => readsIn(i, insn));
      } else if (a.kind === 'var' && a.name === name) writes.push({ insn, indices: [] });
    }
    if (insn.expression) readsIn(insn.expression, insn);
    insn.predicates.forEach((p) => readsIn(p, insn));
  }
  const rules = [...knl.substitutions.values()].filter((r) =>
    expr.someExpr(
      r.expression,
      (x) =>
        (x.kind === 'subscript' && x.array === name) ||
        (x.kind === 'var' && x.name === name && !r.params.includes(name)),
    ),
  );
  return { reads, writes, rules: rules.map((r) => r.name) };
}

/** Refuses to fuse on an argument the kernel reads back after writing (see above). */
export function checkNoReadBack(_knl: LoopKernel, name: string, access: ArgumentAccesses, what: string): void {
  if (access.writes.length === 0 || (access.reads.length === 0 && access.rules.length === 0)) return;
  const refuse = (why: string): never => {
    throw new LoomError(
      `${what}: the kernel reads '${name}' as well as writing it, ${why}; after fusing, those reads would no longer see the values the kernel wrote. ` +
        'Write the result to another array (a separate argument), or attach to a kernel that only reads or only writes it',
    );
  };
  if (access.rules.length) refuse(`in the substitution rule '${access.rules[0]}'`);
  if (access.writes.length > 1)
    refuse(`and writes it in more than one instruction ('${access.writes.map((w) => w.insn.id).join("', '")}')`);
  const [write] = access.writes;
  for (const read of access.reads) {
    if (read.insn.id !== write.insn.id)
      refuse(`in instruction '${read.insn.id}', apart from the instruction '${write.insn.id}' that writes it`);
    const same =
      read.indices.length === write.indices.length &&
      read.indices.every((e, k) => expr.exprEquals(e, write.indices[k]));
    if (!same)
      refuse(
        `at [${read.indices.map(printExpr).join(', ')}], not at the element [${write.indices.map(printExpr).join(', ')}] it writes`,
      );
  }
  if (!writesEachElementOnce(write)) {
    refuse(
      `and instruction '${write.insn.id}' writes the same element more than once (its loops ${write.insn.withinInames.join(', ')} do not all select the element [${write.indices.map(printExpr).join(', ')}])`,
    );
  }
}

/**
 * Whether the index, affine in the instruction's loops, tells every iteration apart: the
 * matrix of coefficients (indices by loops) has full column rank.
 */
function writesEachElementOnce(write: Site): boolean {
  const loops = write.insn.withinInames;
  const rows: number[][] = [];
  for (const index of write.indices) {
    const lin = expr.toLinear(index);
    if (!lin) return false;
    rows.push(loops.map((l) => lin.coeff(l)));
  }
  return rank(rows, loops.length) === loops.length;
}

function rank(rows: number[][], columns: number): number {
  const m = rows.map((r) => [...r]);
  let r = 0;
  for (let c = 0; c < columns && r < m.length; c++) {
    const pivot = m.findIndex((row, k) => k >= r && row[c] !== 0);
    if (pivot < 0) continue;
    [m[r], m[pivot]] = [m[pivot], m[r]];
    for (let k = 0; k < m.length; k++) {
      if (k === r || m[k][c] === 0) continue;
      const f = m[k][c] / m[r][c];
      m[k] = m[k].map((x, j) => x - f * m[r][j]);
    }
    r++;
  }
  return r;
}
