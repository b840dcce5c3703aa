/**
 * Registering user functions on kernels, and what the passes before code generation do with
 * calls of them (user-functions.ts says what a user function is):
 *
 * - type inference asks `functionTypes(knl)` for a call's result dtype;
 * - once types are known, `resolveUserCalls` converts each call's arguments to the dtypes of
 *   its signature and stamps the result dtype on the call (`Call.dtype`), so that every pass
 *   and printer after it types the call without the registry;
 * - `calledFunctions` lists what a program calls, for the targets to spell.
 */
import { LoomError } from '../errors.ts';
import { call, cast, type Call, type Expr } from '../expr/nodes.ts';
import { mapExpr, printExpr, walk } from '../expr/index.ts';
import { expandSubstitutions } from '../kernel/accesses.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { exprType, INDEX_DTYPE, type FunctionTypes, type NameTypes } from '../kernel/type-inference.ts';
import {
  defineFunction,
  globalFunction,
  isUserFunction,
  refuseReductionName,
  registerGlobally,
  type UserFunction,
  type UserFunctionSpec,
} from './user-functions.ts';

/**
 * `registerFunction(fn)`: every kernel may call `fn`. `registerFunction(knl, fn)`: a new kernel,
 * `knl` with `fn` among its functions (a kernel's own function wins over a global one).
 */
export function registerFunction(fn: UserFunction | UserFunctionSpec): void;
export function registerFunction(knl: LoopKernel, ...fns: readonly (UserFunction | UserFunctionSpec)[]): LoopKernel;
export function registerFunction(
  first: LoopKernel | UserFunction | UserFunctionSpec,
  ...rest: readonly (UserFunction | UserFunctionSpec)[]
): LoopKernel | void {
  const checked = (f: UserFunction | UserFunctionSpec) => (isUserFunction(f) ? f : defineFunction(f));
  if (!isKernel(first)) {
    registerGlobally(checked(first));
    return;
  }
  const functions = new Map(first.functions);
  for (const f of rest.map(checked)) {
    refuseReductionName(f);
    if (first.substitutions.has(f.name))
      throw new LoomError(`registerFunction: kernel '${first.name}' has a substitution rule '${f.name}' already`);
    functions.set(f.name, f);
  }
  return first.with({ functions });
}

function isKernel(x: unknown): x is LoopKernel {
  return typeof x === 'object' && x !== null && 'instructions' in x && 'domains' in x;
}

/** The user function `name` as `knl` sees it: its own, else a global one; rules shadow both. */
export function userFunctionOf(knl: LoopKernel, name: string): UserFunction | undefined {
  if (knl.substitutions.has(name)) return undefined;
  return knl.functions.get(name) ?? globalFunction(name);
}

/** Type inference's view of `knl`'s user functions: a void one has no value to type. */
export function functionTypes(knl: LoopKernel): FunctionTypes {
  return (fn, args, e) => {
    const result = userFunctionOf(knl, fn)?.signature(args).result;
    if (result === 'void') throw voidValue(fn, e);
    return result;
  };
}

/** The error for a void function's call where a value is needed. */
function voidValue(fn: string, e: Expr): LoomError {
  return new LoomError(
    `function '${fn}' returns nothing (its signature's result is void), so '${printExpr(e)}' has no value: call it as an instruction of its own (\`${printExpr(e)}\` on a line by itself)`,
  );
}

/**
 * Each call of a user function with its arguments converted to the signature's dtypes and
 * its result dtype stamped on it. Rules are expanded where a call is found (a rule's body is
 * typed only where it is used).
 */
export function resolveUserCalls(knl: LoopKernel): LoopKernel {
  if (!callsUserFunctions(knl)) return knl;
  const inames = new Set(knl.inames);
  const typeOf: NameTypes = (name) =>
    inames.has(name) ? INDEX_DTYPE : (knl.arg(name)?.dtype ?? knl.temporaries.get(name)?.dtype);
  const types = functionTypes(knl);
  // `statement`: `e` is the call a `user-call` instruction makes, the one place a void call may be
  const resolve = (e: Expr, statement = false): Expr => {
    const voids: Call[] = [];
    const out = mapExpr(expandSubstitutions(e, knl.substitutions), (x) => {
      if (x.kind !== 'call' || x.dtype !== undefined) return x;
      const fn = userFunctionOf(knl, x.fn);
      if (!fn) return x;
      const argTypes = x.args.map((a) => exprType(a, typeOf, types).dtype);
      const signature = fn.signature(argTypes);
      const args = x.args.map((a, k) =>
        argTypes[k] === signature.args[k] && !exprType(a, typeOf, types).weak ? a : cast(signature.args[k], a),
      );
      const made = call(x.fn, args, x.tag, signature.result);
      if (signature.result === 'void') voids.push(made);
      return made;
    });
    const misplaced = voids.find((v) => !(statement && v === out));
    if (misplaced) throw voidValue(misplaced.fn, misplaced);
    return out;
  };
  const instructions = knl.instructions.map((insn) => ({
    ...insn,
    assignees: insn.assignees.map((e) => resolve(e)),
    expression: insn.expression && resolve(insn.expression, insn.kind === 'user-call'),
    predicates: insn.predicates.map((e) => resolve(e)),
  }));
  return knl.with({ instructions });
}

function callsUserFunctions(knl: LoopKernel): boolean {
  let found = false;
  const look = (e: Expr) =>
    walk(expandSubstitutions(e, knl.substitutions), (x) => {
      if (x.kind === 'call' && userFunctionOf(knl, x.fn)) found = true;
    });
  for (const insn of knl.instructions)
    [...insn.assignees, insn.expression, ...insn.predicates].forEach((e) => e && look(e));
  return found;
}

/** The user functions the resolved calls in `knl` are of, by name. */
export function calledFunctions(knl: LoopKernel): Map<string, UserFunction> {
  const called = new Map<string, UserFunction>();
  for (const insn of knl.instructions) {
    for (const e of [...insn.assignees, insn.expression, ...insn.predicates]) {
      if (!e) continue;
      walk(e, (x) => {
        if (x.kind !== 'call' || x.dtype === undefined) return;
        const fn = userFunctionOf(knl, x.fn);
        if (fn) called.set(x.fn, fn);
      });
    }
  }
  return called;
}
