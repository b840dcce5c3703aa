/**
 * `toBatched(knl, 'nbatches', 'out,x')`: the kernel does a batch of its computation, one per
 * value of a new iname `ibatch`; the arguments that vary per batch gain a leading axis
 * (loopy's to_batched). Temporaries shared by the work-items (local, global) gain one too
 * unless `sequential` (the batches then run one after the other in a loop); private ones
 * belong to one batch's iteration already.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { checkName, nameList } from '../names.ts';
import { int, subscript, variable, type Expr } from '../expr/nodes.ts';
import { mapExpr } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet } from '../sets/index.ts';
import type { KernelArg, LoopKernel } from '../kernel/model.ts';
import { uniqueName } from '../kernel/rename.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

/** The options toBatched reads; any other key is an error. */
const TO_BATCHED_OPTIONS = optionKeys<ToBatchedOptions>()(['batchInamePrefix', 'sequential']);

/** Options of `toBatched`. */
export interface ToBatchedOptions {
  /** The batch iname's name (default `ibatch`, made unique). */
  readonly batchInamePrefix?: string;
  /** The batches run one after the other: temporaries are shared between them, not copied per batch. */
  readonly sequential?: boolean;
}

/** Runs the kernel `nbatches` times at once, over a new outer batch axis of the given arguments (loopy's `to_batched`). */
export function toBatched(
  knl: LoopKernel,
  nbatches: number | string,
  batchVaryingArgs: string | readonly string[] = [],
  options: ToBatchedOptions = {},
): LoopKernel {
  checkOptionKeys('toBatched', options, TO_BATCHED_OPTIONS);
  const varying = nameList(batchVaryingArgs);
  for (const n of varying)
    if (!knl.arg(n) && !knl.temporaries.has(n))
      throw new LoomError(`toBatched: '${n}' is not an argument or temporary of the kernel`);
  const taken = new Set([
    ...knl.inames,
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.substitutions.keys(),
    ...knl.domains.flatMap((d) => d.params),
  ]);
  const iname = uniqueName(
    checkName(options.batchInamePrefix ?? 'ibatch', 'toBatched: option batchInamePrefix'),
    taken,
  );
  let count: Expr;
  let newArgs: KernelArg[] = [];
  if (typeof nbatches === 'number') {
    if (!Number.isInteger(nbatches) || nbatches < 0)
      throw new LoomError(`toBatched: the number of batches must be a non-negative integer, got ${nbatches}`);
    count = int(nbatches);
  } else {
    checkName(nbatches, 'toBatched: the number of batches');
    if (taken.has(nbatches) && !knl.arg(nbatches))
      throw new LoomError(`toBatched: '${nbatches}' is already used in the kernel`);
    count = variable(nbatches);
    if (!knl.arg(nbatches))
      newArgs = [
        {
          name: nbatches,
          kind: 'value',
          dtype: 'int32',
          shape: undefined,
          isInput: true,
          isOutput: false,
          forAtomic: false,
        },
      ];
  }
  const bound = typeof nbatches === 'number' ? Linear.constant(nbatches) : Linear.variable(nbatches);
  const domain = BasicSet.fromConstraints(
    [],
    [iname],
    [
      { kind: 'ge', expr: Linear.variable(iname) },
      { kind: 'ge', expr: bound.sub(1).sub(Linear.variable(iname)) },
    ],
  );

  const batched = new Set(varying);
  if (!options.sequential) {
    for (const t of knl.temporaries.values())
      if (t.addressSpace === 'local' || t.addressSpace === 'global') batched.add(t.name);
  }
  for (const name of batched) {
    const dims = knl.arg(name)?.dimTags ?? knl.temporaries.get(name)?.dimTags;
    if (dims)
      throw new LoomError(`toBatched: '${name}' has a layout of its own (tagArrayAxes); batch before laying it out`);
  }
  const args = [
    ...knl.args.map((a): KernelArg => {
      if (!batched.has(a.name)) return a;
      return a.kind === 'value'
        ? { ...a, kind: 'global', shape: [count] }
        : { ...a, shape: [count, ...(a.shape ?? [])], dimNames: batchAxis(a.dimNames) };
    }),
    ...newArgs,
  ];
  const temporaries = new Map(
    [...knl.temporaries].map(([n, t]) => [
      n,
      batched.has(n) ? { ...t, shape: [count, ...t.shape], dimNames: batchAxis(t.dimNames) } : t,
    ]),
  );
  const rewrite = (e: Expr) =>
    mapExpr(e, (x) => {
      if (x.kind === 'subscript' && batched.has(x.array))
        return subscript(x.array, [variable(iname), ...x.indices], false, x.tag, x.field);
      if (x.kind === 'var' && batched.has(x.name)) return subscript(x.name, [variable(iname)]);
      return x;
    });
  const rewritten = mapKernelExpressions(knl.with({ args, temporaries }), rewrite, {
    what: 'toBatched',
    assignee: 'whole',
  });
  const instructions = rewritten.instructions.map((i) => ({ ...i, withinInames: [iname, ...i.withinInames] }));
  return rewritten.with({ domains: [domain, ...knl.domains], instructions });
}

/** Named axes gain a name for the batch axis (`ibatch`, made unique among them). */
function batchAxis(names: readonly string[] | undefined): string[] | undefined {
  return names && [uniqueName('ibatch', new Set(names)), ...names];
}
