/**
 * A computation's tree of transformations (Reikna's TransformationTree): its own
 * parameters are the roots; attaching a transformation to a leaf hangs it there, and the
 * transformation's other parameters become leaves. The leaves are the signature the
 * compiled computation is called with.
 *
 * Each node has at most one transformation on its input path (what kernels read) and one
 * on its output path (what they write); an `'io'` leaf with one of them attached stays a
 * leaf for the other path. A transformation's parameter named like an existing leaf is
 * that leaf (an input and an output meeting there make it `'io'`).
 *
 * Order of the signature: the leaf a transformation hangs on is replaced by the
 * transformation's other parameters in the transformation's order, with the leaf itself
 * where the connector was when it stays a leaf; a name already in the signature keeps its
 * first place. (Reikna orders by walking the tree, which gives the same order in its tests;
 * this rule is the one the compiler can follow too: see typed.ts.)
 */
import { LoomError } from '@loom/core';
import { isArrayRole } from '../transformation/params.ts';
import type { Transformation } from '../transformation/transformation.ts';
import {
  checkParamName, describeType, isInputRole, isOutputRole, sameType, typeOf, type ComputationParam, type ComputationRole, type ValueType,
} from './params.ts';

/** A transformation hung on a node: through `connector`, its other parameters named by `mapping`. */
export interface Edge {
  readonly transformation: Transformation;
  readonly connector: string;
  readonly mapping: ReadonlyMap<string, string>;
}

export interface TreeNode {
  readonly name: string;
  readonly type: ValueType;
  /** What kernels read goes through this (a transformation whose connector is its output). */
  readonly input?: Edge;
  /** What kernels write goes through this. */
  readonly output?: Edge;
}

export class TransformationTree {
  private constructor(
    readonly roots: readonly ComputationParam[],
    readonly nodes: ReadonlyMap<string, TreeNode>,
    /** The signature, in order. */
    readonly leaves: readonly ComputationParam[],
  ) {
    Object.freeze(this);
  }

  static of(roots: readonly ComputationParam[]): TransformationTree {
    return new TransformationTree(roots, new Map(roots.map((p) => [p.name, { name: p.name, type: typeOf(p) }])), roots);
  }

  leaf(name: string): ComputationParam | undefined {
    return this.leaves.find((l) => l.name === name);
  }

  /** The tree with `tr` hung on the leaf `name` through `connector` (see the file's comment). */
  connect(name: string, tr: Transformation, connector: string, mapping: Readonly<Record<string, string>>, what: string): TransformationTree {
    const node = this.nodes.get(name);
    const leaf = this.leaf(name);
    if (!leaf) throw new LoomError(node ? `${what}: parameter '${name}' is hidden by transformations` : `${what}: parameter '${name}' is not a part of the signature`);
    const c = tr.param(connector);
    if (!c) throw new LoomError(`${what}: the transformation has no parameter '${connector}'`);
    if (!tr.connectors.includes(connector)) throw new LoomError(`${what}: '${connector}' is not one of the transformation's connectors (${tr.connectors.join(', ')})`);
    const named = new Map(checkNames(tr, connector, mapping, what));
    const isLoad = c.role === 'o';
    if (leaf.role === 's') throw new LoomError(`${what}: '${name}' is a scalar; transformations attach to arrays`);
    if (isLoad && !isInputRole(leaf.role)) throw new LoomError(`${what}: '${name}' is not an input node`);
    if (!isLoad && !isOutputRole(leaf.role)) throw new LoomError(`${what}: '${name}' is not an output node`);

    const connectorType = typeFor(c, node!.type, what);
    if (!sameType(connectorType, node!.type)) {
      throw new LoomError(`${what}: incompatible types of the transformation parameter '${connector}' (${describeType(connectorType)}) and the node '${name}' (${describeType(node!.type)})`);
    }

    const nodes = new Map(this.nodes);
    let leaves: ComputationParam[] = [...this.leaves];
    const entries: ComputationParam[] = [];
    for (const p of tr.params) {
      if (p.name === connector) {
        // an 'io' leaf keeps the path the transformation does not take
        if (leaf.role === 'io') entries.push({ ...leaf, role: isLoad ? 'o' : 'i' });
        continue;
      }
      const target = named.get(p.name)!;
      const type = typeFor(p, node!.type, what);
      const role: ComputationRole = p.role === 's' ? 's' : p.role;
      const existing = this.nodes.get(target);
      if (existing) {
        const existingLeaf = this.leaf(target);
        if (!existingLeaf || target === name) throw new LoomError(`${what}: parameter '${target}' is hidden by transformations`);
        if (!sameType(type, existing.type)) {
          throw new LoomError(`${what}: incompatible types of the transformation parameter '${p.name}' (${describeType(type)}) and the node '${target}' (${describeType(existing.type)})`);
        }
        if (p.role === 'o' && isOutputRole(existingLeaf.role)) throw new LoomError(`${what}: cannot connect transformation parameter '${p.name}' to an existing output node '${target}'`);
        if (p.role === 'i' && !isLoad && isOutputRole(existingLeaf.role)) throw new LoomError(`${what}: cannot read '${target}' (parameter '${p.name}') in a transformation of what is written to '${name}': '${target}' is an output`);
        const merged: ComputationRole = existingLeaf.role === role || existingLeaf.role === 'io' ? existingLeaf.role : 'io';
        leaves = leaves.map((l) => (l.name === target ? { ...l, role: merged } : l));
        entries.push({ ...existingLeaf, role: merged });
        continue;
      }
      checkParamName(target, what);
      const param: ComputationParam = type.shape === undefined ? { name: target, role, dtype: type.dtype } : { name: target, role, dtype: type.dtype, shape: type.shape };
      nodes.set(target, { name: target, type });
      entries.push(param);
    }
    nodes.set(name, { ...node!, ...(isLoad ? { input: { transformation: tr, connector, mapping: named } } : { output: { transformation: tr, connector, mapping: named } }) });

    const at = leaves.findIndex((l) => l.name === name);
    const replaced = [...leaves.slice(0, at), ...entries, ...leaves.slice(at + 1)];
    return new TransformationTree(this.roots, nodes, firstOccurrences(replaced));
  }
}

/** Every parameter but the connector named, once. */
function checkNames(tr: Transformation, connector: string, mapping: Readonly<Record<string, string>>, what: string): [string, string][] {
  if (typeof mapping !== 'object' || mapping === null) throw new LoomError(`${what}: the mapping must be an object { transformationParameter: 'newName' }`);
  const entries = Object.entries(mapping);
  if (entries.some(([p]) => p === connector)) {
    throw new LoomError(`${what}: parameter '${connector}' cannot be supplied both as the main connector and one of the child connections`);
  }
  const given = [...entries.map(([p]) => p), connector].sort();
  const available = tr.params.map((p) => p.name).sort();
  if (given.join() !== available.join()) {
    throw new LoomError(`${what}: supplied transformation names [${given.join(', ')}] do not fully coincide with the existing ones: [${available.join(', ')}]`);
  }
  const targets = entries.map(([, n]) => n);
  const twice = targets.find((n, k) => targets.indexOf(n) !== k);
  if (twice !== undefined) throw new LoomError(`${what}: two transformation parameters are connected to '${twice}'`);
  return entries;
}

/** A transformation parameter's type at a node of type `connector`: what it leaves open is the connector's. */
function typeFor(p: { name: string; role: string; dtype?: ValueType['dtype']; shape?: readonly (number | string)[] }, connector: ValueType, what: string): ValueType {
  if (!isArrayRole(p.role as 'i')) return { dtype: p.dtype ?? connector.dtype, shape: undefined };
  if (p.shape?.some((s) => typeof s !== 'number')) {
    throw new LoomError(`${what}: the transformation's parameter '${p.name}' has a symbolic shape (${p.shape.join(', ')}); a computation's types are concrete`);
  }
  return { dtype: p.dtype ?? connector.dtype, shape: (p.shape as readonly number[] | undefined) ?? connector.shape };
}

/** Each name once, at its first place, with the roles of all its places merged (an input and an output make `'io'`). */
function firstOccurrences(list: readonly ComputationParam[]): ComputationParam[] {
  const roles = new Map<string, Set<ComputationRole>>();
  for (const p of list) roles.set(p.name, (roles.get(p.name) ?? new Set()).add(p.role));
  const seen = new Set<string>();
  const out: ComputationParam[] = [];
  for (const p of list) {
    if (seen.has(p.name)) continue;
    seen.add(p.name);
    const all = roles.get(p.name)!;
    const role: ComputationRole = all.has('s') ? 's' : all.has('io') || (all.has('i') && all.has('o')) ? 'io' : p.role;
    out.push({ ...p, role });
  }
  return out;
}
