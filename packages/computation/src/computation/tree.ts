/**
 * A computation's tree of transformations (Reikna's TransformationTree): its own
 * parameters are the roots; attaching a transformation to a leaf hangs it there, and the
 * transformation's other parameters become leaves. The leaves are the signature the
 * compiled computation is called with.
 *
 * Each node has at most one transformation on its input path (what kernels read) and one
 * on its output path (what they write); an `'io'` leaf with one of them attached stays a
 * leaf for the other path. A transformation's parameter named like an existing leaf is
 * that leaf. An input and an output meeting there would make it `'io'`: one array the
 * computation reads and then overwrites. Reikna joins them silently; here it is a LoomError
 * unless the attach asks for it by name (`{ inOut: ['C_prime'] }`), since a new output named
 * like an input by mistake would overwrite the caller's input.
 *
 * Order of the signature, as Reikna orders it: walk the roots in order; at a node, first
 * the names its transformations put before it (all of its output transformation's, when
 * it has transformations on both paths), then the node itself if it is a leaf, then the
 * names after it; a name is listed where it is first met, and among a node's children a
 * name that is also one of the node's later siblings is left for that place.
 */
import { LoomError, checkOptionKeys, optionKeys } from '@loom/core';
import { isArrayRole } from '../transformation/params.ts';
import type { Transformation } from '../transformation/transformation.ts';
import {
  checkParamName,
  describeType,
  isInputRole,
  isOutputRole,
  sameType,
  typeOf,
  type ComputationParam,
  type ComputationRole,
  type ValueType,
} from './params.ts';

/** A transformation hung on a node: through `connector`, its other parameters named by `mapping`. */
export interface Edge {
  readonly transformation: Transformation;
  readonly connector: string;
  readonly mapping: ReadonlyMap<string, string>;
  /** The names of the transformation's parameters before and after the connector, in its order. */
  readonly before: readonly string[];
  readonly after: readonly string[];
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
  connect(
    name: string,
    tr: Transformation,
    connector: string,
    mapping: Readonly<Record<string, string>>,
    what: string,
    options: ConnectOptions = {},
  ): TransformationTree {
    const node = this.nodes.get(name);
    const leaf = this.leaf(name);
    if (!leaf)
      throw new LoomError(
        node
          ? `${what}: parameter '${name}' is hidden by transformations`
          : `${what}: parameter '${name}' is not a part of the signature`,
      );
    const c = tr.param(connector);
    if (!c) throw new LoomError(`${what}: the transformation has no parameter '${connector}'`);
    if (!tr.connectors.includes(connector))
      throw new LoomError(
        `${what}: '${connector}' is not one of the transformation's connectors (${tr.connectors.join(', ')})`,
      );
    const named = new Map(checkNames(tr, connector, mapping, what));
    const inOut = checkInOut(options, what);
    const joined = new Set<string>();
    const isLoad = c.role === 'o';
    if (leaf.role === 's') throw new LoomError(`${what}: '${name}' is a scalar; transformations attach to arrays`);
    if (isLoad && !isInputRole(leaf.role)) throw new LoomError(`${what}: '${name}' is not an input node`);
    if (!isLoad && !isOutputRole(leaf.role)) throw new LoomError(`${what}: '${name}' is not an output node`);

    const connectorType = typeFor(c, node!.type, what);
    if (!sameType(connectorType, node!.type)) {
      throw new LoomError(
        `${what}: incompatible types of the transformation parameter '${connector}' (${describeType(connectorType)}) and the node '${name}' (${describeType(node!.type)})`,
      );
    }

    const nodes = new Map(this.nodes);
    const leaves = new Map(this.leaves.map((l) => [l.name, l]));
    // an 'io' leaf keeps the path the transformation does not take
    if (leaf.role === 'io') leaves.set(name, { ...leaf, role: isLoad ? 'o' : 'i' });
    else leaves.delete(name);
    for (const p of tr.params) {
      if (p.name === connector) continue;
      const target = named.get(p.name)!;
      const type = typeFor(p, node!.type, what);
      const role: ComputationRole = p.role === 's' ? 's' : p.role;
      const existing = this.nodes.get(target);
      if (existing) {
        const existingLeaf = this.leaf(target);
        if (!existingLeaf || target === name)
          throw new LoomError(`${what}: parameter '${target}' is hidden by transformations`);
        if (!sameType(type, existing.type)) {
          throw new LoomError(
            `${what}: incompatible types of the transformation parameter '${p.name}' (${describeType(type)}) and the node '${target}' (${describeType(existing.type)})`,
          );
        }
        if (p.role === 'o' && isOutputRole(existingLeaf.role))
          throw new LoomError(
            `${what}: cannot connect transformation parameter '${p.name}' to an existing output node '${target}'`,
          );
        if (p.role === 'i' && !isLoad && isOutputRole(existingLeaf.role))
          throw new LoomError(
            `${what}: cannot read '${target}' (parameter '${p.name}') in a transformation of what is written to '${name}': '${target}' is an output`,
          );
        const merged: ComputationRole =
          existingLeaf.role === role || existingLeaf.role === 'io' ? existingLeaf.role : 'io';
        if (merged !== existingLeaf.role) {
          if (!inOut.has(target)) throw joinRefused(what, p.name, p.role === 'o', target);
          joined.add(target);
        }
        leaves.set(target, { ...existingLeaf, role: merged });
        continue;
      }
      checkParamName(target, what);
      nodes.set(target, { name: target, type });
      leaves.set(
        target,
        type.shape === undefined
          ? { name: target, role, dtype: type.dtype }
          : { name: target, role, dtype: type.dtype, shape: type.shape },
      );
    }
    const unused = [...inOut].filter((n) => !joined.has(n));
    if (unused.length) {
      throw new LoomError(
        `${what}: inOut names '${unused.join("', '")}', but no input and output of this attach meet there (only a transformation's parameter mapped to an existing leaf of the other direction becomes 'io')`,
      );
    }
    const order = tr.params.map((p) => (p.name === connector ? name : named.get(p.name)!));
    const at = order.indexOf(name);
    const edge: Edge = {
      transformation: tr,
      connector,
      mapping: named,
      before: order.slice(0, at),
      after: order.slice(at + 1),
    };
    nodes.set(name, { ...node!, ...(isLoad ? { input: edge } : { output: edge }) });
    return new TransformationTree(
      this.roots,
      nodes,
      signatureOrder(
        this.roots.map((r) => r.name),
        nodes,
        leaves,
      ),
    );
  }
}

/** What an attach may also say. */
export interface ConnectOptions {
  /**
   * Existing parameters that a transformation's parameter of the other direction may join,
   * making them `'io'` (read, then overwritten in place: Reikna's io merge). Without it,
   * such a join is a LoomError.
   */
  readonly inOut?: readonly string[];
}

const CONNECT_OPTIONS = optionKeys<ConnectOptions>()(['inOut']);

function checkInOut(options: ConnectOptions, what: string): ReadonlySet<string> {
  checkOptionKeys('attach', options, CONNECT_OPTIONS);
  const names = options.inOut ?? [];
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string'))
    throw new LoomError(`${what}: inOut must be an array of parameter names`);
  return new Set(names);
}

/** A new output named like an existing input (or a new input like an output), not asked for. */
function joinRefused(what: string, param: string, isOutput: boolean, target: string): LoomError {
  const [mine, theirs] = isOutput ? ['output', 'input'] : ['input', 'output'];
  const effect = isOutput
    ? `the computation would overwrite the caller's '${target}'`
    : `the caller's output '${target}' would also be read`;
  return new LoomError(
    `${what}: the transformation's ${mine} '${param}' is mapped to '${target}', an existing ${theirs} of the computation: the two would become one in-out parameter (${effect}). ` +
      `Map '${param}' to a new name (e.g. { ${param}: '${target}_${mine === 'output' ? 'out' : 'in'}' }), or pass { inOut: ['${target}'] } if one array read and then overwritten is meant`,
  );
}

/** The leaves in the order of the walk described at the top. */
function signatureOrder(
  roots: readonly string[],
  nodes: ReadonlyMap<string, TreeNode>,
  leaves: ReadonlyMap<string, ComputationParam>,
): ComputationParam[] {
  const out: ComputationParam[] = [];
  const visited = new Set<string>();
  const walk = (names: readonly string[], ignore: ReadonlySet<string>) => {
    names.forEach((name, k) => {
      if (ignore.has(name) || visited.has(name)) return;
      visited.add(name);
      const later = new Set(names.slice(k + 1));
      const { output, input } = nodes.get(name)!;
      const [before, after] =
        output && input
          ? [
              [...output.before, ...output.after],
              [...input.before, ...input.after],
            ]
          : output
            ? [output.before, output.after]
            : input
              ? [input.before, input.after]
              : [[], []];
      walk(before, later);
      if (leaves.has(name)) out.push(leaves.get(name)!);
      walk(after, later);
    });
  };
  walk(roots, new Set());
  return out;
}

/** Every parameter but the connector named, once. */
function checkNames(
  tr: Transformation,
  connector: string,
  mapping: Readonly<Record<string, string>>,
  what: string,
): [string, string][] {
  if (typeof mapping !== 'object' || mapping === null)
    throw new LoomError(`${what}: the mapping must be an object { transformationParameter: 'newName' }`);
  const entries = Object.entries(mapping);
  if (entries.some(([p]) => p === connector)) {
    throw new LoomError(
      `${what}: parameter '${connector}' cannot be supplied both as the main connector and one of the child connections`,
    );
  }
  const given = [...entries.map(([p]) => p), connector].sort();
  const available = tr.params.map((p) => p.name).sort();
  if (given.join() !== available.join()) {
    throw new LoomError(
      `${what}: supplied transformation names [${given.join(', ')}] do not fully coincide with the existing ones: [${available.join(', ')}]`,
    );
  }
  const targets = entries.map(([, n]) => n);
  const twice = targets.find((n, k) => targets.indexOf(n) !== k);
  if (twice !== undefined) throw new LoomError(`${what}: two transformation parameters are connected to '${twice}'`);
  return entries;
}

/** A transformation parameter's type at a node of type `connector`: what it leaves open is the connector's. */
function typeFor(
  p: { name: string; role: string; dtype?: ValueType['dtype']; shape?: readonly (number | string)[] },
  connector: ValueType,
  what: string,
): ValueType {
  if (!isArrayRole(p.role as 'i')) return { dtype: p.dtype ?? connector.dtype, shape: undefined };
  if (p.shape?.some((s) => typeof s !== 'number')) {
    throw new LoomError(
      `${what}: the transformation's parameter '${p.name}' has a symbolic shape (${p.shape.join(', ')}); a computation's types are concrete`,
    );
  }
  return { dtype: p.dtype ?? connector.dtype, shape: (p.shape as readonly number[] | undefined) ?? connector.shape };
}
