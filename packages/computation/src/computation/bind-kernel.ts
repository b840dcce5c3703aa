/**
 * A kernel call of a plan, made concrete: the kernel specialized to the arrays it is bound
 * to (its integer parameters fixed from their shapes, its dtypes theirs), and arguments
 * bound to the same array merged into one (the kernel then sees that they are the same
 * memory, which the checks of `attach` need: a kernel that writes an array through one
 * argument and reads it through another reads back what it wrote).
 *
 * With `runtimeSizes`, the parameters found from the shapes stay parameters: they are bound
 * to their numbers and passed at launch, so that calls of the kernel on arrays of other
 * sizes generate the same code (and the device builds it once).
 */
import {
  LoomError,
  addDtypes,
  expr,
  fixParameters,
  mapKernelExpressions,
  printExpr,
  type DType,
  type Expr,
  type KernelArg,
  type LoopKernel,
} from '@loom/core';
import { describeValue, isPlanArray, KernelArgument, PersistentArray, type PlanValue } from './plan.ts';

export function bindKernel(
  knl: LoopKernel,
  bindings: ReadonlyMap<string, PlanValue>,
  what: string,
  runtimeSizes = false,
): { kernel: LoopKernel; bindings: Map<string, PlanValue> } {
  for (const name of bindings.keys()) {
    if (!knl.arg(name))
      throw new LoomError(
        `${what}: kernel '${knl.name}' has no argument '${name}' (arguments: ${knl.args.map((a) => a.name).join(', ')})`,
      );
  }
  for (const arg of knl.args) checkKind(arg, bindings.get(arg.name), knl, what);

  const values = solveParameters(knl, bindings);
  let kernel = knl;
  let bound: Map<string, PlanValue>;
  if (runtimeSizes) bound = new Map([...bindings, ...Object.entries(values)]);
  else {
    kernel = Object.keys(values).length ? fixParameters(knl, values) : knl;
    bound = new Map([...bindings].filter(([name]) => !(name in values)));
  }
  for (const arg of kernel.args) {
    if (arg.kind === 'value' && !bound.has(arg.name)) {
      throw new LoomError(
        `${what}: kernel '${knl.name}': value argument '${arg.name}' is not bound, and no array's shape determines it`,
      );
    }
    const value = bound.get(arg.name)!;
    if (arg.kind !== 'value' && isPlanArray(value))
      checkShape(arg, value.shape!, knl, what, runtimeSizes ? values : {});
  }
  kernel = withDtypes(kernel, bound, what);
  return mergeAliases(kernel, bound);
}

function checkKind(arg: KernelArg, value: PlanValue | undefined, knl: LoopKernel, what: string): void {
  const where = `${what}: kernel '${knl.name}': argument '${arg.name}'`;
  if (arg.kind !== 'value') {
    if (value === undefined)
      throw new LoomError(`${where} is not bound (bind it to a parameter, a temporary or a persistent array)`);
    if (!isPlanArray(value) || value.shape === undefined)
      throw new LoomError(`${where} is an array, but is bound to ${describeValue(value)}`);
    if (value instanceof KernelArgument && value.role === 'i' && arg.isOutput)
      throw new LoomError(
        `${where}: the kernel writes it, but it is bound to '${value.name}', an input of the computation`,
      );
    if (value instanceof PersistentArray && value.constant && arg.isOutput)
      throw new LoomError(
        `${where}: the kernel writes it, but it is bound to ${describeValue(value)}, which kernels only read`,
      );
    return;
  }
  if (value === undefined || typeof value === 'number' || typeof value === 'bigint') return;
  if (!(value instanceof KernelArgument) || value.shape !== undefined)
    throw new LoomError(`${where} is a value argument, but is bound to ${describeValue(value)}`);
}

/** Integer parameters: bound to integers, or found from the bound arrays' shapes (one unknown per axis at a time). */
function solveParameters(knl: LoopKernel, bindings: ReadonlyMap<string, PlanValue>): Record<string, number> {
  const parameters = new Set([
    ...knl.domains.flatMap((d) => d.params),
    ...knl.args.flatMap((a) => (a.shape ?? []).flatMap((s) => [...expr.freeVariables(s)])),
  ]);
  const values: Record<string, number> = {};
  for (const arg of knl.args) {
    const v = bindings.get(arg.name);
    if (arg.kind === 'value' && parameters.has(arg.name) && typeof v === 'number' && Number.isSafeInteger(v))
      values[arg.name] = v;
  }
  const unknownValue = (n: string) =>
    !(n in values) && knl.arg(n)?.kind === 'value' && !(bindings.get(n) instanceof KernelArgument);
  for (let progress = true; progress; ) {
    progress = false;
    for (const arg of knl.args) {
      const v = bindings.get(arg.name);
      if (arg.kind === 'value' || !isPlanArray(v) || v.shape?.length !== arg.shape!.length) continue;
      arg.shape!.forEach((s, axis) => {
        const lin = expr.toLinear(s);
        const unknown = lin?.variables.filter(unknownValue) ?? [];
        if (!lin || unknown.length !== 1 || lin.variables.some((n) => !(n in values) && !unknown.includes(n))) return;
        const [p] = unknown;
        const rest = lin.without([p]).evaluate(values);
        const size = v.shape![axis];
        if ((size - rest) % lin.coeff(p) !== 0) return;
        values[p] = (size - rest) / lin.coeff(p);
        progress = true;
      });
    }
  }
  return values;
}

/** The argument's shape, its parameters replaced by `values`, is the bound array's. */
function checkShape(
  arg: KernelArg,
  shape: readonly number[],
  knl: LoopKernel,
  what: string,
  values: Readonly<Record<string, number>>,
): void {
  const withValues = (s: Expr) =>
    expr.mapExpr(s, (x) => (x.kind === 'var' && x.name in values ? expr.int(values[x.name]) : x));
  const own = arg.shape!.map((s) => expr.simplify(withValues(s), { integer: true }));
  const concrete =
    own.every((s) => s.kind === 'int') &&
    own.length === shape.length &&
    own.every((s, k) => (s as Extract<Expr, { kind: 'int' }>).value === shape[k]);
  if (!concrete) {
    throw new LoomError(
      `${what}: kernel '${knl.name}': argument '${arg.name}' has shape (${own.map(printExpr).join(', ')}), but is bound to an array of shape (${shape.join(', ')})`,
    );
  }
}

/** The dtypes of the bound arrays and parameters; a kernel that declares another one is refused. */
function withDtypes(knl: LoopKernel, bound: ReadonlyMap<string, PlanValue>, what: string): LoopKernel {
  const add: Record<string, DType> = {};
  for (const arg of knl.args) {
    const v = bound.get(arg.name);
    if (!isPlanArray(v)) continue;
    if (arg.dtype === undefined) add[arg.name] = v.dtype;
    else if (arg.dtype !== v.dtype && !(arg.kind === 'value' && v instanceof KernelArgument)) {
      throw new LoomError(
        `${what}: kernel '${knl.name}': argument '${arg.name}' is ${arg.dtype}, but is bound to ${describeValue(v)} of ${v.dtype}`,
      );
    }
  }
  return Object.keys(add).length ? addDtypes(knl, add) : knl;
}

/** Arguments bound to one array become one argument (the first one's name). */
export function mergeAliases<V>(
  knl: LoopKernel,
  bound: Map<string, V>,
): { kernel: LoopKernel; bindings: Map<string, V> } {
  const first = new Map<V, string>();
  const renames = new Map<string, string>();
  for (const arg of knl.args) {
    const v = bound.get(arg.name);
    if (arg.kind === 'value' || !isPlanArray(v)) continue;
    const seen = first.get(v);
    if (seen === undefined) first.set(v, arg.name);
    else renames.set(arg.name, seen);
  }
  if (renames.size === 0) return { kernel: knl, bindings: bound };
  const rename = (e: Expr) =>
    expr.mapExpr(e, (x) =>
      x.kind === 'subscript' && renames.has(x.array)
        ? expr.subscript(renames.get(x.array)!, x.indices)
        : x.kind === 'var' && renames.has(x.name)
          ? expr.variable(renames.get(x.name)!)
          : x,
    );
  const renamed = mapKernelExpressions(knl, rename, {
    what: 'merging arguments bound to one array',
    assignee: 'whole',
  });
  const args = renamed.args
    .filter((a) => !renames.has(a.name))
    .map((a) => {
      const aliases = knl.args.filter((b) => renames.get(b.name) === a.name);
      return aliases.length
        ? {
            ...a,
            isInput: aliases.some((b) => b.isInput) || a.isInput,
            isOutput: aliases.some((b) => b.isOutput) || a.isOutput,
          }
        : a;
    });
  const bindings = new Map([...bound].filter(([name]) => !renames.has(name)));
  return { kernel: renamed.with({ args }), bindings };
}
