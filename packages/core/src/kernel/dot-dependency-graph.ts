/**
 * The dependency graph of a kernel in Graphviz's DOT language, as loopy's
 * `get_dot_dependency_graph` draws it (the pictures of loopy's tutorial):
 *
 *   digraph "transpose_and_dbl" {
 *   "transpose" [label="out[j, i] <- a[i, j]",shape="box",tooltip="transpose"];
 *   ...
 *   "transpose" -> "insn"
 *   subgraph "cluster_i" { label="i"
 *   "transpose"
 *   ...
 *   }
 *   }
 *
 * - each instruction is a box labelled with its code (`assignees <- expression`, cut after 200
 *   characters), its id as the tooltip (`useInsnId` swaps the two);
 * - each dependency is an arrow from prerequisite to dependent, after a transitive reduction
 *   (an arrow implied by a path of others is left out, as loopy leaves it out);
 * - each `noSyncWith` entry is a dashed line without arrowhead, labelled with its scope as
 *   loopy prints it (`@any`), that does not change the layout (`constraint=false`);
 * - where the kernel linearizes (as in loopy, also before its arrays have dtypes), each
 *   sequential loop is a `cluster_` subgraph holding the instructions and barriers that run
 *   in it, nested as the loops nest; barriers the linearization inserts are plain-text nodes
 *   `... lbarrier` in the loop they sit in.
 *
 * Everything is quoted and escaped, and the order is the kernel's and the schedule's, so the
 * same kernel always gives the same text.
 *
 * Where it departs from loopy, on purpose: loopy leaves edge ends and cluster names unquoted
 * and escapes labels with Python's `repr` (DOT reads `\'` as a stray backslash); it names a
 * loop entered twice `cluster_i` twice, which Graphviz merges into one box; it draws neither
 * `no_sync_with` nor barriers (barrier instructions float outside the loops); and it labels a
 * barrier or no-op `<instruction id>` where Loom writes `... lbarrier` as its kernel view does.
 */
import { LoomError, LoomWarning, reportWarning, unreachable } from '../errors.ts';
import { printExpr } from '../expr/index.ts';
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { linearizeKernel, type LinearizedKernel } from '../codegen/generate.ts';
import { addDtypes } from '../transform/basic.ts';
import type { Target } from '../codegen/target.ts';
import type { HostScheduleItem } from '../schedule/host-schedule.ts';
import type { ScheduleItem } from '../schedule/linearize.ts';
import { matchIds } from './dependencies.ts';
import { parseNoSync, type Instruction, type LoopKernel } from './model.ts';

/** Options of `getDotDependencyGraph` (loopy's keyword arguments, in camelCase). */
export interface DotDependencyGraphOptions {
  /**
   * Draw loops as clusters around the instructions in them (loopy's `iname_cluster`). By
   * default they are drawn where the kernel linearizes (arrays whose dtype is not known yet
   * are taken as float32 for it), and where it does not (a dependency that no order of the
   * loops honours, say) a LoomWarning says why and the graph has no clusters, as loopy
   * does. `true` makes that an error; `false` draws no clusters.
   */
  readonly inameCluster?: boolean;
  /** Label each box with the instruction's id and show its code as the tooltip (loopy's `use_insn_id`). */
  readonly useInsnId?: boolean;
  /** The target the kernel is linearized for (for the clusters): some passes depend on it. */
  readonly target?: Target;
}

const OPTION_KEYS = optionKeys<DotDependencyGraphOptions>()(['inameCluster', 'useInsnId', 'target']);

/** Labels longer than this are cut, with `...` after them (loopy's limit). */
const MAX_LABEL = 200;

/**
 * The kernel's dependency graph as Graphviz DOT text (loopy's `get_dot_dependency_graph`):
 * instructions as boxes, dependencies as arrows, `noSyncWith` as dashed lines, and the loop
 * nesting of the linearized kernel as clusters. Render it with Graphviz (`dot -Tsvg`), or
 * with `npx loom graph FILE`, which writes an SVG.
 * ```ts
 * const knl = makeKernel('{ [i]: 0<=i<n }', ['<> t = 2*a[i] {id=scale}', 'out[i] = t {id=store}']);
 * const dot = getDotDependencyGraph(addDtypes(knl, { a: 'float32' }));
 * // digraph "loopy_kernel" { ... "scale" -> "store" ... subgraph "cluster_i" { label="i" ... } }
 * ```
 */
export function getDotDependencyGraph(knl: LoopKernel, options: DotDependencyGraphOptions = {}): string {
  checkOptionKeys('getDotDependencyGraph', options, OPTION_KEYS);
  const linearized = options.inameCluster === false ? undefined : linearizedOrWhyNot(knl, options);
  // loopy draws the instructions of the kernel it linearized (reductions realized, say)
  const kernel = linearized?.kernel ?? knl;
  const lines: string[] = [];
  for (const insn of kernel.instructions) lines.push(nodeLine(insn, options.useInsnId === true));
  for (const [prerequisite, dependent] of reducedDependencies(kernel.instructions))
    lines.push(`${dotString(prerequisite)} -> ${dotString(dependent)}`);
  lines.push(...noSyncLines(kernel.instructions));
  if (linearized) lines.push(...clusterLines(linearized));
  return `digraph ${dotString(kernel.name)} {\n${lines.join('\n')}\n}\n`;
}

/** The linearized kernel, or undefined (with a warning) where it does not linearize and clusters were not asked for. */
function linearizedOrWhyNot(knl: LoopKernel, options: DotDependencyGraphOptions): LinearizedKernel | undefined {
  try {
    return linearizeKernel(knl, options.target);
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    const drawn = linearizedWithPlaceholderDtypes(knl, options.target);
    if (drawn && !(drawn instanceof LoomError)) return drawn;
    // both reasons where the guess was tried: the kernel's own, and what stopped it after the guess
    const why = drawn ? `${e.message} (and with its untyped arrays taken as float32: ${drawn.message})` : e.message;
    if (options.inameCluster === true)
      throw new LoomError(
        `getDotDependencyGraph: cannot draw the loops of kernel '${knl.name}' (inameCluster: true), since it does not linearize: ${why}`,
      );
    reportWarning(
      new LoomWarning(
        `kernel '${knl.name}': the dependency graph has no loop clusters, since the kernel does not linearize: ${why}`,
        'DependencyGraphWarning',
      ),
    );
    return undefined;
  }
}

/**
 * loopy linearizes a kernel whose arrays have no dtype yet; Loom's preprocessing types
 * everything first. For the picture only, arrays of unknown dtype are taken as float32: one
 * real dtype in place of another changes none of the instructions, dependencies and loops
 * drawn (and the guess is never complex, which would split instructions into parts). Where
 * even that does not linearize (a dependency no loop order honours, or an array read as an
 * index, which wants an integer type), the error it met; undefined where there is nothing
 * to guess.
 */
function linearizedWithPlaceholderDtypes(
  knl: LoopKernel,
  target: Target | undefined,
): LinearizedKernel | LoomError | undefined {
  const untyped = knl.args.filter((a) => a.kind !== 'value' && a.dtype === undefined).map((a) => a.name);
  if (untyped.length === 0) return undefined;
  try {
    return linearizeKernel(addDtypes(knl, Object.fromEntries(untyped.map((name) => [name, 'float32']))), target);
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    return e;
  }
}

/** One box: `"id" [label="code",shape="box",tooltip="id"];` (code and id swapped with useInsnId). */
function nodeLine(insn: Instruction, useInsnId: boolean): string {
  const code = instructionLabel(insn);
  const [label, tooltip] = useInsnId ? [insn.id, code] : [code, insn.id];
  return `${dotString(insn.id)} [label=${dotString(label)},shape="box",tooltip=${dotString(tooltip)}];`;
}

/** What an instruction does, as loopy labels it: `a[i], b <- expression`; barriers and no-ops as Loom prints them. */
function instructionLabel(insn: Instruction): string {
  switch (insn.kind) {
    case 'assign':
    case 'call':
    case 'user-call': {
      const text = `${insn.assignees.map(printExpr).join(', ')} <- ${printExpr(insn.expression!)}`;
      return text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL)}...` : text;
    }
    case 'c': {
      // loopy's label for C code: what it writes, then a placeholder for the code itself
      const text = `${insn.assignees.map(printExpr).join(', ')} <- <C code>`;
      return text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL)}...` : text;
    }
    case 'barrier':
      return `... ${insn.barrierScope === 'global' ? 'gbarrier' : 'lbarrier'}`;
    case 'nop':
      return '... nop';
    case 'fence':
      return '... gfence';
    default:
      return unreachable(insn.kind, 'instruction kind');
  }
}

/**
 * The dependency edges `[prerequisite, dependent]` without those a longer path implies (the
 * transitive reduction, loopy's), in the order of the instructions and of their `dependsOn`.
 * Dependencies on ids the kernel lacks are left out: there is no box to draw them from.
 */
function reducedDependencies(insns: readonly Instruction[]): [string, string][] {
  const ids = new Set(insns.map((i) => i.id));
  const direct = new Map(insns.map((i) => [i.id, [...new Set(i.dependsOn.filter((d) => ids.has(d)))]]));
  // what each instruction reaches through one dependency or more (memoized depth-first search;
  // a cycle, which linearization refuses, ends the search where it closes)
  const reach = new Map<string, ReadonlySet<string>>();
  const reachable = (id: string, open: Set<string>): ReadonlySet<string> => {
    const known = reach.get(id);
    if (known) return known;
    open.add(id);
    const out = new Set<string>();
    for (const d of direct.get(id) ?? []) {
      out.add(d);
      if (!open.has(d)) for (const r of reachable(d, open)) out.add(r);
    }
    open.delete(id);
    reach.set(id, out);
    return out;
  };
  const edges: [string, string][] = [];
  for (const insn of insns) {
    const deps = direct.get(insn.id)!;
    for (const d of deps) {
      // d is implied when another direct prerequisite already reaches it
      const implied = deps.some((other) => other !== d && reachable(other, new Set()).has(d));
      if (!implied) edges.push([d, insn.id]);
    }
  }
  return edges;
}

/** A dashed, undirected line per instruction an entry of `noSyncWith` names, labelled with the entry's scope. */
function noSyncLines(insns: readonly Instruction[]): string[] {
  const ids = insns.map((i) => i.id);
  const lines: string[] = [];
  for (const insn of insns) {
    for (const entry of insn.noSyncWith) {
      const { pattern, scope } = parseNoSync(entry);
      for (const other of matchIds(pattern, ids))
        lines.push(
          `${dotString(insn.id)} -> ${dotString(other)} [style="dashed",dir="none",constraint="false",label=${dotString(`@${scope}`)},tooltip=${dotString(`${insn.id}: no_sync_with=${other}@${scope}`)}];`,
        );
    }
  }
  return lines;
}

/**
 * The loop nesting of the linearized kernel: a `cluster_` subgraph per loop (host loops
 * around the device kernels they launch, then the device kernels' loops), holding the ids of
 * the instructions that run in it and the barriers. A loop entered twice gets two clusters
 * (`cluster_i`, `cluster_i_2`): Graphviz would merge subgraphs of one name.
 */
function clusterLines({ subkernels, host }: LinearizedKernel): string[] {
  const lines: string[] = [];
  const clusters = new Map<string, number>();
  let barriers = 0;
  const open = (iname: string) => {
    const n = (clusters.get(iname) ?? 0) + 1;
    clusters.set(iname, n);
    lines.push(`subgraph ${dotString(`cluster_${iname}${n === 1 ? '' : `_${n}`}`)} { label=${dotString(iname)}`);
  };
  const device = (items: readonly ScheduleItem[]) => {
    for (const item of items) {
      switch (item.kind) {
        case 'insn':
          lines.push(dotString(item.id));
          break;
        case 'barrier':
          // a user's barrier is its instruction's box; one the linearization inserted is text of its own
          if (item.originatingInsnId !== undefined) lines.push(dotString(item.originatingInsnId));
          else {
            barriers++;
            const tooltip = item.comment ?? `${item.scope} barrier`;
            lines.push(
              `${dotString(`barrier_${barriers}`)} [label=${dotString(`... ${item.scope === 'global' ? 'gbarrier' : 'lbarrier'}`)},shape="plaintext",tooltip=${dotString(tooltip)}];`,
            );
          }
          break;
        case 'loop':
          open(item.iname);
          device(item.body);
          lines.push('}');
          break;
        default:
          unreachable(item, 'schedule item');
      }
    }
  };
  const hostItems = (items: readonly HostScheduleItem[]) => {
    for (const item of items) {
      switch (item.kind) {
        case 'launch':
          device(subkernels[item.subkernel]!.schedule);
          break;
        case 'barrier':
          lines.push(dotString(item.id));
          break;
        case 'loop':
          open(item.iname);
          hostItems(item.body);
          lines.push('}');
          break;
        default:
          unreachable(item, 'host schedule item');
      }
    }
  };
  hostItems(host);
  return lines;
}

/**
 * `text` as a DOT string: in quotes, with quotes and backslashes escaped and each line break
 * as DOT's `\n` (a centred line break in a label), so that no label can end the string early.
 */
export function dotString(text: string): string {
  const escaped = text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\r\n|\r|\n/g, '\\n');
  return `"${escaped}"`;
}
