/**
 * The partial loop nest tree (loopy's `get_partial_loop_nest_tree`): what the instructions'
 * loops say about how the sequential loops must nest, before any linearization chooses.
 *
 * Each node is a set of inames that must all be open together, in some order not yet decided
 * (`a[i, j] = ...` alone puts `i` and `j` in one node); a node's ancestors hold the loops that
 * must be open around it. Parallel (hardware) inames are no loops and are left out. With
 * `withReductions`, each reduction's inames become a nest inside the loops of its instruction
 * (and of the reductions around it), as loop fusion needs them.
 *
 * Loom opens each sequential loop once, so the loops around every instruction are a path from
 * the root: instructions whose loops cannot form one tree (`a[i]`, `b[j]` and `c[i, j]`) have
 * no linearization either, and are refused here.
 */
import { LoomError } from '../errors.ts';
import { walkScoped } from '../expr/visit.ts';
import { readExpressions } from '../kernel/accesses.ts';
import { isParallelTag, type LoopKernel } from '../kernel/model.ts';

/** One node of the tree: inames that nest with each other in an order still open. */
export interface LoopNest {
  /** Sorted; the root's is empty. */
  readonly inames: readonly string[];
}

interface Node extends LoopNest {
  inames: string[];
  parent: Node | undefined;
  children: Node[];
}

/** The tree, read-only. */
export interface LoopNestTree {
  /** The root: no loop open. */
  readonly root: LoopNest;
  /** The nest holding `iname`, or undefined for an iname no instruction loops over (or a parallel one). */
  nestOf(iname: string): LoopNest | undefined;
  parent(nest: LoopNest): LoopNest | undefined;
  children(nest: LoopNest): readonly LoopNest[];
  ancestors(nest: LoopNest): LoopNest[];
  /** Indented text, one nest a line: for messages and tests. */
  toString(): string;
}

/** The tree while it grows: only `partialLoopNestTree` adds to one. */
class GrowingTree implements LoopNestTree {
  readonly #nestOf = new Map<string, Node>();
  readonly #root: Node = { inames: [], parent: undefined, children: [] };

  get root(): LoopNest {
    return this.#root;
  }

  nestOf(iname: string): LoopNest | undefined {
    return this.#nestOf.get(iname);
  }

  parent(nest: LoopNest): LoopNest | undefined {
    return (nest as Node).parent;
  }

  children(nest: LoopNest): readonly LoopNest[] {
    return (nest as Node).children;
  }

  ancestors(nest: LoopNest): LoopNest[] {
    const out: LoopNest[] = [];
    for (let n = (nest as Node).parent; n; n = n.parent) out.push(n);
    return out;
  }

  toString(): string {
    const lines: string[] = [];
    const visit = (n: Node, depth: number) => {
      lines.push(`${'  '.repeat(depth)}{${n.inames.join(', ')}}`);
      for (const c of n.children) visit(c, depth + 1);
    };
    visit(this.#root, 0);
    return lines.join('\n');
  }

  /**
   * Makes `chain` (loops open together at some point) a path from the root: the inames already
   * in the tree must lie on one path, whose innermost nest is split where `chain` holds only
   * part of it; the new inames nest inside, as one new node.
   */
  addChain(chain: ReadonlySet<string>, what: string): void {
    const seen = [...chain].filter((n) => this.#nestOf.has(n));
    const fresh = [...chain].filter((n) => !this.#nestOf.has(n)).sort();
    const nests = [...new Set([this.#root, ...seen.map((n) => this.#nestOf.get(n)!)])].sort(
      (a, b) => this.ancestors(a).length - this.ancestors(b).length,
    );
    for (let k = 1; k < nests.length; k++) {
      if (nests[k].parent !== nests[k - 1]) {
        throw new LoomError(
          `the loops of ${what} (${[...chain].sort().join(', ')}) cannot nest with those of the other instructions: ` +
            `'${nests[k - 1].inames.join(', ')}' and '${nests[k].inames.join(', ')}' are not one inside the other ` +
            `(each loop is entered once, so every instruction's loops must lie on one path of the tree; ` +
            `duplicateInames or makeReductionInamesUnique gives each use a loop of its own):\n${this}`,
        );
      }
    }
    const innermost = nests[nests.length - 1];
    const outerInames = new Set(nests.slice(0, -1).flatMap((n) => n.inames));
    const own = seen.filter((n) => !outerInames.has(n)).sort();
    let outer = innermost;
    if (own.length < innermost.inames.length) {
      // `chain` holds part of the innermost nest: that part goes outside the rest
      const parent = innermost.parent!;
      const split: Node = { inames: own, parent, children: [innermost] };
      parent.children[parent.children.indexOf(innermost)] = split;
      innermost.parent = split;
      innermost.inames = innermost.inames.filter((n) => !own.includes(n));
      for (const n of own) this.#nestOf.set(n, split);
      outer = split;
    }
    if (fresh.length === 0) return;
    const node: Node = { inames: fresh, parent: outer, children: [] };
    outer.children.push(node);
    for (const n of fresh) this.#nestOf.set(n, node);
  }
}

/** Options of `partialLoopNestTree`. */
export interface PartialLoopNestTreeOptions {
  /** Also place each reduction's inames, inside the loops of its instruction and of the reductions around it. */
  readonly withReductions?: boolean;
}

/** The partial loop nest tree of a kernel's sequential loops (see the top of this file). */
export function partialLoopNestTree(knl: LoopKernel, options: PartialLoopNestTreeOptions = {}): LoopNestTree {
  const sequential = (n: string) => !isParallelTag(knl.inameTags.get(n));
  const tree = new GrowingTree();
  for (const insn of knl.instructions) {
    const within = insn.withinInames.filter(sequential);
    if (within.length) tree.addChain(new Set(within), `instruction '${insn.id}'`);
  }
  if (!options.withReductions) return tree;
  for (const insn of knl.instructions) {
    const within = insn.withinInames.filter(sequential);
    for (const e of readExpressions(insn, knl.substitutions)) {
      walkScoped(e, (x, outerReductions) => {
        if (x.kind !== 'reduce') return;
        const chain = new Set([...within, ...outerReductions, ...x.inames].filter(sequential));
        tree.addChain(chain, `a reduction over '${x.inames.join(', ')}' in instruction '${insn.id}'`);
      });
    }
  }
  return tree;
}
