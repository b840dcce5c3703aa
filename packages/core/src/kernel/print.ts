/**
 * The kernel as text, in the layout of loopy's `print(knl)`: ARGUMENTS, DOMAINS,
 * INAME TAGS, TEMPORARIES, INSTRUCTIONS (nested in `for i ... end i`), DEPENDENCIES.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { printExpr } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import { assigneeName, namesWritten } from './accesses.ts';
import {
  parseNoSync,
  registerKernelPrinter,
  tagToString,
  type Instruction,
  type KernelArg,
  type LoopKernel,
} from './model.ts';
import { formatDimTags } from './strides.ts';

/** The options stringifyKernel reads; any other key is an error. */
const STRINGIFY_KERNEL_OPTIONS = optionKeys<StringifyOptions>()(['withDependencies']);

const RULE = '-'.repeat(75);

/** Options of `stringifyKernel`. */
export interface StringifyOptions {
  /** Include the DEPENDENCIES section (default: when there are dependencies). */
  readonly withDependencies?: boolean;
}

/** A kernel as text, the way loopy prints one (`knl.toString()`). */
export function stringifyKernel(knl: LoopKernel, options: StringifyOptions = {}): string {
  checkOptionKeys('stringifyKernel', options, STRINGIFY_KERNEL_OPTIONS);
  const lines: string[] = [RULE, `KERNEL: ${knl.name}`, RULE, 'ARGUMENTS:'];
  for (const arg of [...knl.args].sort((a, b) => compareNames(a.name, b.name))) lines.push(printArg(arg));
  lines.push(RULE, 'DOMAINS:');
  for (const d of knl.domains) lines.push(d.toString());
  lines.push(RULE, 'INAME TAGS:');
  for (const iname of [...knl.inames].sort(compareNames))
    lines.push(`${iname}: ${tagToString(knl.inameTags.get(iname))}`);
  if (knl.temporaries.size) {
    lines.push(RULE, 'TEMPORARIES:');
    for (const t of [...knl.temporaries.values()].sort((a, b) => compareNames(a.name, b.name))) {
      const shape = t.shape.length
        ? `shape: (${t.shape.map(printExpr).join(', ')}), dim_tags: (${formatDimTags(t.shape, t.dimTags)})`
        : 'shape: ()';
      const atomic = t.forAtomic ? ' for_atomic' : '';
      // a tensor tile's accumulator (tensorize), and the rounding of its factors where one was asked for
      const matrix = t.matrixAccumulator
        ? ` matrix accumulator${t.matrixPrecision ? ` (${t.matrixPrecision} factors)` : ''}`
        : '';
      lines.push(
        `${t.name}: type: ${t.dtype ?? '<auto/runtime>'}, ${shape} aspace: ${t.addressSpace}${atomic}${matrix}`,
      );
    }
  }
  if (knl.substitutions.size) {
    lines.push(RULE, 'SUBSTITUTION RULES:');
    for (const r of knl.substitutions.values())
      lines.push(`${r.name}(${r.params.join(', ')}) := ${printExpr(r.expression)}`);
  }
  lines.push(RULE, 'INSTRUCTIONS:');
  lines.push(...printInstructions(knl));
  const withDeps = options.withDependencies ?? knl.instructions.some((i) => i.dependsOn.length > 0);
  if (withDeps) {
    lines.push(RULE, 'DEPENDENCIES: (use dependencyGraph to visualize)');
    for (const insn of knl.instructions)
      if (insn.dependsOn.length) lines.push(`${insn.id} : ${insn.dependsOn.join(', ')}`);
  }
  lines.push(RULE);
  return lines.join('\n');
}

registerKernelPrinter((k) => stringifyKernel(k));

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function printArg(arg: KernelArg): string {
  const type = arg.dtype ?? '<auto/runtime>';
  if (arg.kind === 'value') return `${arg.name}: ValueArg, type: ${type}`;
  const shape = arg.shape === undefined ? '<auto>' : `(${arg.shape.map(printExpr).join(', ')})`;
  const tags = arg.shape === undefined ? '' : `, dim_tags: (${formatDimTags(arg.shape, arg.dimTags)})`;
  const direction = [arg.isInput ? 'in' : '', arg.isOutput ? 'out' : ''].filter(Boolean).join('/');
  const aspace = arg.kind === 'constant' ? 'constant' : arg.kind === 'image' ? 'global image' : 'global';
  const atomic = arg.forAtomic ? ' for_atomic' : '';
  return `${arg.name}: type: ${type}, shape: ${shape}${tags}${direction ? ` ${direction}` : ''} aspace: ${aspace}${atomic}`;
}

/** Instructions in dependency order, with `for`/`end` lines where the loop nest changes. */
function printInstructions(knl: LoopKernel): string[] {
  const order = topologicalOrder(knl.instructions);
  const rank = loopRank(knl);
  const lines: string[] = [];
  let open: string[] = [];
  const declared = new Set<string>();
  for (const insn of order) {
    const wanted = [...insn.withinInames].sort((a, b) => rank(a) - rank(b));
    let common = 0;
    while (common < open.length && common < wanted.length && open[common] === wanted[common]) common++;
    for (let k = open.length - 1; k >= common; k--) lines.push(`${'  '.repeat(k)}end ${open[k]}`);
    open = open.slice(0, common);
    for (let k = common; k < wanted.length; k++) {
      lines.push(`${'  '.repeat(k)}for ${wanted[k]}`);
      open.push(wanted[k]);
    }
    // a temporary is declared (`<float32> t = ...`) where it is first written
    const declares = new Set(namesWritten(insn).filter((n) => knl.temporaries.has(n) && !declared.has(n)));
    for (const n of namesWritten(insn)) declared.add(n);
    lines.push(`${'  '.repeat(open.length)}${printInstruction(insn, knl, declares)}`);
  }
  for (let k = open.length - 1; k >= 0; k--) lines.push(`${'  '.repeat(k)}end ${open[k]}`);
  return lines;
}

/** A `noSyncWith` entry with its scope spelled out: `w1` → `w1@any`. */
function withScope(entry: string): string {
  const { pattern, scope } = parseNoSync(entry);
  return `${pattern}@${scope}`;
}

/** One instruction; the temporaries in `declares` are declared with their dtypes (`<float32> t = ...`). */
export function printInstruction(
  insn: Instruction,
  knl?: LoopKernel,
  declares: ReadonlySet<string> = new Set(),
): string {
  const attrs = [`id=${insn.id}`];
  if (insn.dependsOn.length) attrs.push(`dep=${insn.dependsOn.join(':')}`);
  // as loopy prints it: every entry with its scope (an entry written without one waives both: @any)
  if (insn.noSyncWith.length) attrs.push(`no_sync_with=${insn.noSyncWith.map(withScope).join(':')}`);
  if (insn.priority) attrs.push(`priority=${insn.priority}`);
  if (insn.groups.length) attrs.push(`groups=${insn.groups.join(':')}`);
  if (insn.conflictsWithGroups.length) attrs.push(`conflicts_grp=${insn.conflictsWithGroups.join(':')}`);
  if (insn.tags.length) attrs.push(`tags=${insn.tags.join(':')}`);
  if (insn.atomic) attrs.push(insn.atomicInit ? 'atomic=init' : 'atomic');
  if (insn.memKind) attrs.push(`mem_kind=${insn.memKind}`);
  if (insn.asyncCopy) attrs.push(insn.bulkCopy ? 'bulk' : 'async');
  const pred = insn.predicates.length ? `if (${insn.predicates.map(printExpr).join(' and ')}) ` : '';
  let body: string;
  if (insn.kind === 'barrier') body = `... ${insn.barrierScope === 'global' ? 'gbarrier' : 'lbarrier'}`;
  else if (insn.kind === 'nop') body = '... nop';
  else if (insn.kind === 'fence') body = '... gfence';
  else if (insn.kind === 'c') {
    // as loopy prints a CInstruction: what it writes, then what it reads, then the code
    const c = insn.cCode!;
    const reads = [...c.inameExprs.map((b) => b.name), ...c.readVariables].join(',');
    body = `${insn.assignees.map(printExpr).join(', ')} <- CODE(${reads}) ${JSON.stringify(c.code)}`;
  } else if (insn.kind === 'call') {
    // loopy's call syntax: each sub-array reference with the inames it sweeps
    const ref = (e: Expr, sweep: readonly string[] | undefined) =>
      sweep === undefined ? printExpr(e) : `[${sweep.join(', ')}]: ${printExpr(e)}`;
    const call = insn.call!;
    const expr = insn.expression as Extract<Expr, { kind: 'call' }>;
    const args = expr.args.map((a, k) => ref(a, call.argSweeps[k])).join(', ');
    const targets = insn.assignees.map((a, k) => ref(a, call.assigneeSweeps[k]));
    body = `${targets.length ? `${targets.join(', ')} = ` : ''}${call.callee}(${args})`;
  } else if (insn.kind === 'user-call') body = printExpr(insn.expression!);
  else {
    const targets = insn.assignees.map((a) => {
      const name = assigneeName(a);
      const decl = knl && declares.has(name) ? `<${knl.temporaries.get(name)!.dtype ?? ''}> ` : '';
      return `${decl}${printExpr(a)}`;
    });
    body = `${targets.join(', ')} = ${printExpr(insn.expression!)}`;
  }
  return `${pred}${body} {${attrs.join(', ')}}`;
}

/** Kahn's algorithm, stable in declaration order; cycles fall back to declaration order. */
export function topologicalOrder(insns: readonly Instruction[]): Instruction[] {
  const done = new Set<string>();
  const ids = new Set(insns.map((i) => i.id));
  const out: Instruction[] = [];
  let remaining = [...insns];
  while (remaining.length) {
    const ready = remaining.find((i) => i.dependsOn.every((d) => done.has(d) || !ids.has(d)));
    const next = ready ?? remaining[0];
    out.push(next);
    done.add(next.id);
    remaining = remaining.filter((i) => i !== next);
  }
  return out;
}

/** Position of an iname in the preferred nesting (priorities first, then declaration order). */
export function loopRank(knl: LoopKernel): (iname: string) => number {
  const order: string[] = [];
  for (const p of knl.loopPriorities) for (const n of p) if (!order.includes(n)) order.push(n);
  for (const n of knl.inames) if (!order.includes(n)) order.push(n);
  return (n) => {
    const i = order.indexOf(n);
    return i < 0 ? order.length : i;
  };
}
