/**
 * `attach(knl, 'a', tr, 'o1', { i1: 'a_half' })`: Reikna's `connect` on a Loom kernel. The
 * transformation's body runs in place of every access of the argument, so pre- and
 * post-processing cost no trip through memory:
 *
 *   - through an output connector of `tr` (role `o`), on an argument the kernel reads:
 *     every `a[e]` becomes the value the body stores to the connector, at index `e`
 *     (fuse-load.ts);
 *   - through an input connector (role `i`), on an argument the kernel writes: every
 *     `c[e] = v` becomes the body's stores, with `loadSame(connector)` standing for `v`
 *     (fuse-store.ts).
 *
 * The transformation's other parameters become arguments of the kernel, named by
 * `mapping`, where the connector was (an argument the kernel also accesses the other
 * way stays, for that direction). Attaching again to one of them grows a tree of
 * transformations; the kernel's arguments are always its leaves.
 *
 * What cannot be fused correctly is refused with a LoomError saying why, before anything
 * runs: types or shapes that do not match, a connector the kernel does not access that
 * way, an argument the kernel reads back after writing it (the transformation would
 * change what it reads), atomic updates, names already taken.
 */
import { LoomError, expr, printExpr, type KernelArg, type LoopKernel } from '@loom/core';
import { fuseLoads } from './fuse-load.ts';
import { fuseStores } from './fuse-store.ts';
import { accessesOf, checkNoReadBack } from './kernel-accesses.ts';
import { resolve, type ResolvedParam } from './resolve.ts';
import type { Transformation } from './transformation.ts';

/** How a transformation's parameters are named on the kernel, by parameter name. */
export type AttachMapping = Readonly<Record<string, string>>;

/** Fuses a transformation into a kernel's loads or stores of an argument, through one of its connectors (Reikna's `connect`). */
export function attach(
  knl: LoopKernel,
  argName: string,
  tr: Transformation,
  connector: string,
  mapping: AttachMapping = {},
): LoopKernel {
  const what = `attach(kernel '${knl.name}', '${argName}', transformation '${tr.name}', '${connector}')`;
  const arg = knl.arg(argName);
  if (!arg)
    throw new LoomError(
      `${what}: the kernel has no argument '${argName}' (arguments: ${knl.args.map((a) => a.name).join(', ')})`,
    );
  if (arg.kind === 'value')
    throw new LoomError(`${what}: '${argName}' is a value argument; transformations attach to arrays`);
  if (!tr.param(connector))
    throw new LoomError(
      `${what}: the transformation has no parameter '${connector}' (parameters: ${tr.params.map((p) => p.name).join(', ')})`,
    );
  if (!tr.connectors.includes(connector)) {
    throw new LoomError(
      `${what}: '${connector}' is not one of the transformation's connectors (${tr.connectors.join(', ')})`,
    );
  }
  const names = checkMapping(tr, connector, mapping, what);
  const resolved = resolve(tr, connector, arg, names, what);
  const isLoad = resolved.connector.role === 'o';

  const access = accessesOf(knl, argName);
  if (isLoad && access.reads.length === 0)
    throw new LoomError(
      `${what}: the kernel never reads '${argName}'; a transformation through an output connector ('${connector}') processes what the kernel reads`,
    );
  if (!isLoad && access.writes.length === 0)
    throw new LoomError(
      `${what}: the kernel never writes '${argName}'; a transformation through an input connector ('${connector}') processes what the kernel writes`,
    );
  if (isLoad && tr.params.some((p) => p.role === 'o' && p.name !== connector)) {
    const others = tr.params.filter((p) => p.role === 'o' && p.name !== connector).map((p) => p.name);
    throw new LoomError(
      `${what}: attached to what the kernel reads, the transformation can only produce that value; it also stores '${others.join("', '")}'`,
    );
  }
  checkNoReadBack(knl, argName, access, what);

  const keeps = isLoad ? access.writes.length > 0 : access.reads.length > 0;
  const args = newArguments(knl, arg, resolved.params, resolved.connector, keeps, isLoad, what);
  const withArgs = knl.with({ args });
  return isLoad ? fuseLoads(withArgs, argName, tr, resolved, what) : fuseStores(withArgs, argName, tr, resolved, what);
}

/** Every parameter but the connector is named, once, by an identifier. */
function checkMapping(
  tr: Transformation,
  connector: string,
  mapping: AttachMapping,
  what: string,
): Map<string, string> {
  if (typeof mapping !== 'object' || mapping === null)
    throw new LoomError(`${what}: the mapping must be an object { transformationParameter: 'newName' }`);
  const given = Object.keys(mapping).sort();
  const wanted = tr.params
    .map((p) => p.name)
    .filter((n) => n !== connector)
    .sort();
  if (given.includes(connector))
    throw new LoomError(`${what}: '${connector}' is the connector; it cannot also be named in the mapping`);
  if (given.join() !== wanted.join()) {
    throw new LoomError(
      `${what}: the mapping names [${given.join(', ')}], but the transformation's other parameters are [${wanted.join(', ')}]`,
    );
  }
  for (const [param, name] of Object.entries(mapping)) {
    if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new LoomError(
        `${what}: parameter '${param}' is mapped to ${JSON.stringify(name)}, which is not an identifier`,
      );
  }
  const outputs = tr.params.filter((p) => p.role === 'o' && p.name !== connector).map((p) => mapping[p.name]);
  const twice = outputs.find((n, k) => outputs.indexOf(n) !== k);
  if (twice) throw new LoomError(`${what}: two outputs of the transformation are mapped to '${twice}'`);
  return new Map(Object.entries(mapping));
}

/**
 * The kernel's arguments after attaching: the connector's place taken by the
 * transformation's other parameters, in its order (the connector itself kept at its own
 * position among them when the kernel accesses it the other way too); a parameter named
 * like an existing argument is that argument.
 */
function newArguments(
  knl: LoopKernel,
  arg: KernelArg,
  params: readonly ResolvedParam[],
  connector: ResolvedParam,
  keeps: boolean,
  isLoad: boolean,
  what: string,
): KernelArg[] {
  const taken = new Set([
    ...knl.inames,
    ...knl.temporaries.keys(),
    ...knl.substitutions.keys(),
    ...knl.domains.flatMap((d) => d.params),
  ]);
  const existing = new Map(knl.args.map((a) => [a.name, a]));
  const kept: KernelArg | undefined = keeps ? { ...arg, isInput: !isLoad, isOutput: isLoad } : undefined;
  const merged = new Map<string, KernelArg>();
  const placed: KernelArg[] = [];
  const added = new Set<string>();
  for (const p of params) {
    if (p === connector) {
      if (kept) placed.push(kept);
      continue;
    }
    const wanted = newArgument(p);
    if (p.arg === arg.name) {
      // the connector's name, reused for a new leaf: only once the connector is gone, and in the same direction
      if (keeps)
        throw new LoomError(
          `${what}: '${p.arg}' stays an argument (the kernel also ${isLoad ? 'writes' : 'reads'} it); name '${p.param}' otherwise`,
        );
      if ((p.role === 'i') !== isLoad)
        throw new LoomError(
          `${what}: '${p.param}' cannot take the name '${p.arg}' of the connector, which the kernel ${isLoad ? 'reads' : 'writes'}`,
        );
    } else if (taken.has(p.arg)) {
      throw new LoomError(
        `${what}: '${p.arg}' (for parameter '${p.param}') is already an iname, temporary, rule or domain parameter of the kernel`,
      );
    }
    const old = p.arg === arg.name ? undefined : (existing.get(p.arg) ?? merged.get(p.arg));
    if (old) {
      merged.set(p.arg, mergeArgument(old, wanted, p, what));
      continue;
    }
    if (added.has(p.arg)) continue;
    added.add(p.arg);
    placed.push(wanted);
  }
  const out: KernelArg[] = [];
  for (const a of knl.args) {
    if (a.name === arg.name) out.push(...placed);
    else out.push(merged.get(a.name) ?? a);
  }
  // names in the new shapes (`m` in a leaf of shape (m, n)) are the kernel's parameters, found from the arrays passed
  const known = new Set([...out.map((a) => a.name), ...knl.inames]);
  for (const a of placed) {
    for (const s of a.shape ?? []) {
      for (const name of expr.freeVariables(s)) {
        if (known.has(name)) continue;
        known.add(name);
        out.push({
          name,
          kind: 'value',
          dtype: undefined,
          shape: undefined,
          isInput: true,
          isOutput: false,
          forAtomic: false,
        });
      }
    }
  }
  return out;
}

function newArgument(p: ResolvedParam): KernelArg {
  if (p.role === 's')
    return {
      name: p.arg,
      kind: 'value',
      dtype: p.dtype,
      shape: undefined,
      isInput: true,
      isOutput: false,
      forAtomic: false,
    };
  return {
    name: p.arg,
    kind: 'global',
    dtype: p.dtype,
    shape: p.shape,
    isInput: p.role === 'i',
    isOutput: p.role === 'o',
    forAtomic: false,
  };
}

/** A parameter named like an existing argument is that argument: it must agree, and only inputs and scalars may share. */
function mergeArgument(old: KernelArg, wanted: KernelArg, p: ResolvedParam, what: string): KernelArg {
  if (p.role === 'o')
    throw new LoomError(
      `${what}: the transformation's output '${p.param}' cannot write '${p.arg}', which the kernel already accesses`,
    );
  if ((old.kind === 'value') !== (wanted.kind === 'value'))
    throw new LoomError(
      `${what}: '${p.arg}' is ${old.kind === 'value' ? 'a value' : 'an array'} argument of the kernel, but parameter '${p.param}' is ${wanted.kind === 'value' ? 'a scalar' : 'an array'}`,
    );
  const shape = (a: KernelArg) => (a.shape ?? []).map(printExpr).join(', ');
  if (old.kind !== 'value' && shape(old) !== shape(wanted))
    throw new LoomError(
      `${what}: '${p.arg}' has shape (${shape(old)}) in the kernel, but parameter '${p.param}' has (${shape(wanted)})`,
    );
  if (old.isOutput)
    throw new LoomError(
      `${what}: the transformation would read '${p.arg}' (parameter '${p.param}'), which the kernel writes`,
    );
  if (old.dtype !== undefined && wanted.dtype !== undefined && old.dtype !== wanted.dtype) {
    throw new LoomError(
      `${what}: '${p.arg}' is ${old.dtype} in the kernel, but parameter '${p.param}' is ${wanted.dtype}`,
    );
  }
  return { ...old, dtype: old.dtype ?? wanted.dtype };
}
