/**
 * Callee kernels as device functions (loopy's `inline=False`). A program is compiled as one
 * kernel with its calls inlined (program/resolve.ts), so that typing, checks, scheduling and the
 * grid treat the callee's instructions as the caller's; each of them remembers its call
 * (`Instruction.inlinedFrom`). Here, once the device kernel's statements exist, the statements of
 * one call that sit side by side (the callee's loops and instructions, inside the call's loops)
 * become a function of their own and a `call` statement in their place.
 *
 * Moving statements into a function changes nothing they compute: the function takes every name
 * its code reads or writes from outside (arrays by pointer, or by the target's module-scope
 * binding; values by value; the work-item ids where the target passes them in), and the
 * callee's private temporaries, used nowhere else, become its locals. So where a call's code
 * cannot be moved (its statements are interleaved with the caller's, it holds a local barrier
 * the target's functions cannot, or it shares local memory or a private array with the
 * caller), it simply stays inlined, which is what loopy does with what it cannot call.
 *
 * The function is the call's code specialized to its call site, as the caller indexes its
 * arrays: a callee called from two sites is two functions (`f`, `f_0`), since inlining named
 * each site's loops and temporaries apart; only code identical to an earlier function's reuses it.
 */
import { walk, mapExpr } from '../expr/index.ts';
import { variable, type Expr } from '../expr/nodes.ts';
import type { InlinedCall } from '../kernel/model.ts';
import { uniqueName } from '../kernel/rename.ts';
import { INDEX_DTYPE, isHardwareId } from '../kernel/type-inference.ts';
import {
  block,
  type DeviceFunction,
  type FunctionParam,
  type KernelFunction,
  type KernelParam,
  type Stmt,
} from './ast.ts';
import { mapStmts, statementsOf, walkStmts } from './stmt-visit.ts';
import type { DeviceFunctionSupport } from './target.ts';

/** The kernels with each inlined call's code made a function where `support` allows, and those functions. */
export function outlineCallees(
  kernels: readonly KernelFunction[],
  calls: ReadonlyMap<string, readonly InlinedCall[]>,
  support: DeviceFunctionSupport,
  taken: ReadonlySet<string>,
): { kernels: KernelFunction[]; functions: DeviceFunction[] } {
  const functions: DeviceFunction[] = [];
  const names = new Set(taken);
  const out = kernels.map((k) => {
    const arrays = k.params.filter((p) => p.kind !== 'value');
    const body = outlineScope(k.body, k.params, k.types, 0, { calls, support, functions, names, arrays });
    return body === k.body ? k : { ...k, body };
  });
  return { kernels: out, functions };
}

interface Context {
  readonly calls: ReadonlyMap<string, readonly InlinedCall[]>;
  readonly support: DeviceFunctionSupport;
  /** Every function made so far, callees before their callers. */
  readonly functions: DeviceFunction[];
  /** Names the program spells, function names included as they are made. */
  readonly names: Set<string>;
  /** The kernel's arrays: what a function reaches by binding, where the target's functions take no arrays. */
  readonly arrays: readonly KernelParam[];
}

/** A run of statements of one call, outlined: the call statement, and the declarations it took along. */
interface Outlined {
  readonly call: Stmt;
  readonly moved: readonly string[];
}

/** The body of a kernel or function (`depth` calls deep) with the calls at that depth outlined. */
function outlineScope(
  body: Stmt,
  params: readonly FunctionParam[],
  types: ReadonlyMap<string, string>,
  depth: number,
  ctx: Context,
): Stmt {
  const top = statementsOf(body);
  const declarations = new Map(top.flatMap((s) => (s.kind === 'declare' ? [[s.name, s] as const] : [])));
  const moved = new Set<string>();
  const scope: Scope = { body, params, types, declarations, depth, ctx, moved };
  const rewritten = outlineList(top, scope);
  if (rewritten === top) return body;
  const kept = rewritten.filter((s) => !(s.kind === 'declare' && moved.has(s.name)));
  return { kind: 'block', body: kept };
}

interface Scope {
  readonly body: Stmt;
  readonly params: readonly FunctionParam[];
  readonly types: ReadonlyMap<string, string>;
  /** The scope's own declarations (a kernel's temporaries are declared first in its body). */
  readonly declarations: ReadonlyMap<string, Extract<Stmt, { kind: 'declare' }>>;
  readonly depth: number;
  readonly ctx: Context;
  /** Declarations moved into a function, to be dropped from the scope. */
  readonly moved: Set<string>;
}

/** The statements with each run of one call's statements replaced by a call of its function. */
function outlineList(list: readonly Stmt[], scope: Scope): readonly Stmt[] {
  const out: Stmt[] = [];
  let changed = false;
  let k = 0;
  while (k < list.length) {
    const owner = ownerOf(list[k], scope);
    if (owner === undefined || owner === 'none') {
      const inner = owner === undefined ? outlineInside(list[k], scope) : list[k];
      changed ||= inner !== list[k];
      out.push(inner);
      k++;
      continue;
    }
    // the longest run of this call's statements (comments and barriers between them included)
    let end = k + 1;
    let last = k;
    while (end < list.length) {
      const o = ownerOf(list[end], scope);
      if (o !== 'none' && (o === undefined || o.key !== owner.key)) break;
      if (o !== 'none') last = end;
      end++;
    }
    const run = list.slice(k, last + 1);
    const outlined = outline(run, owner.call, scope);
    if (outlined) {
      out.push(outlined.call);
      for (const n of outlined.moved) scope.moved.add(n);
      changed = true;
    } else out.push(...run);
    k = last + 1;
  }
  return changed ? out : list;
}

/** `s` with the calls inside it outlined (a loop or guard of the caller's that holds some). */
function outlineInside(s: Stmt, scope: Scope): Stmt {
  switch (s.kind) {
    case 'block': {
      const body = outlineList(s.body, scope);
      return body === s.body ? s : { ...s, body };
    }
    case 'for': {
      const body = outlineBody(s.body, scope);
      return body === s.body ? s : { ...s, body };
    }
    case 'if': {
      const then = outlineBody(s.then, scope);
      return then === s.then ? s : { ...s, then };
    }
    default: {
      // a lone statement of a call is a run of one
      const owner = ownerOf(s, scope);
      if (owner === undefined || owner === 'none') return s;
      const outlined = outline([s], owner.call, scope);
      if (!outlined) return s;
      for (const n of outlined.moved) scope.moved.add(n);
      return outlined.call;
    }
  }
}

/** A loop's or guard's body with the calls in it outlined. */
function outlineBody(body: Stmt, scope: Scope): Stmt {
  const list = statementsOf(body);
  const out = outlineList(list, scope);
  return out === list ? body : block(out);
}

/**
 * The call (at the scope's depth) whose statements `s` holds, all of them; `'none'` for a
 * statement of no instruction (a comment, a barrier, a declaration); undefined when `s` holds
 * the caller's statements, or a loop of the caller's around the call.
 */
function ownerOf(s: Stmt, scope: Scope): { readonly key: string; readonly call: InlinedCall } | 'none' | undefined {
  let owner: { key: string; call: InlinedCall } | undefined;
  let mixed = false;
  let some = false;
  walkStmts(s, {
    stmt: (x) => {
      if (mixed) return false;
      if (x.kind !== 'assign' && x.kind !== 'code') return;
      some = true;
      const path = scope.ctx.calls.get(x.insnId);
      if (!path || path.length <= scope.depth) return void (mixed = true);
      const key = path
        .slice(0, scope.depth + 1)
        .map((c) => c.site)
        .join('/');
      if (owner === undefined) owner = { key, call: path[scope.depth] };
      else if (owner.key !== key) mixed = true;
    },
  });
  if (mixed) return undefined;
  if (!some || !owner) return s.kind === 'declare' || s.kind === 'comment' || s.kind === 'barrier' ? 'none' : undefined;
  // the call's code starts at the callee's own loops: the caller's loops around the call stay the caller's
  if (s.kind === 'for' && !owner.call.inames.includes(s.iname)) return undefined;
  return owner;
}

/** The run made a function, or undefined where it must stay inlined. */
function outline(run: readonly Stmt[], call: InlinedCall, scope: Scope): Outlined | undefined {
  const { support } = scope.ctx;
  const inRun = new Set<Stmt>();
  for (const s of run) walkStmts(s, { stmt: (x) => void inRun.add(x) });
  const bound = new Set<string>();
  const used: string[] = [];
  const written = new Set<string>();
  const ids: Expr[] = [];
  let refused = false;
  const use = (n: string) => {
    if (!used.includes(n)) used.push(n);
  };
  const arrays = new Set(scope.params.filter((p) => p.kind !== 'value').map((p) => p.name));
  const known = new Set([...scope.params.map((p) => p.name), ...scope.declarations.keys(), ...scope.types.keys()]);
  for (const s of run)
    walkStmts(s, {
      stmt: (x) => {
        if (x.kind === 'barrier' && !support.barriers) refused = true;
        if (x.kind === 'declare' && x.addressSpace === 'local') refused = true;
        if (x.kind === 'assign') {
          const t = x.target;
          written.add(t.kind === 'subscript' ? t.array : t.kind === 'var' ? t.name : '');
        }
        if (x.kind === 'code')
          // C code names what it reads and writes in its text: every known name it spells
          for (const word of x.code.match(/[A-Za-z_]\w*/g) ?? [])
            if (known.has(word)) {
              use(word);
              if (arrays.has(word) || scope.declarations.has(word)) written.add(word);
            }
      },
      name: (n) => void bound.add(n),
      expr: (e) =>
        walk(e, (x) => {
          if (x.kind === 'var') use(x.name);
          else if (x.kind === 'subscript') use(x.array);
          else if (isHardwareId(x) && !ids.some((y) => sameId(x, y))) ids.push(x);
        }),
    });
  if (refused) return undefined;

  const params: FunctionParam[] = [];
  const args: Expr[] = [];
  const moved: Extract<Stmt, { kind: 'declare' }>[] = [];
  for (const n of used) {
    if (bound.has(n)) continue;
    const p = scope.params.find((q) => q.name === n);
    // a kernel's array in a function's function: a binding still, never a value
    if (!p && scope.ctx.arrays.some((q) => q.name === n)) {
      if (support.arrays === 'bindings') continue;
      return undefined;
    }
    if (p) {
      if (p.kind === 'private') params.push({ ...p, written: written.has(n) });
      else {
        if (p.image) return undefined;
        if (p.kind !== 'value' && support.arrays === 'bindings') continue;
        params.push(asParameter(p, written.has(n)));
      }
      args.push(variable(n));
      continue;
    }
    const d = scope.declarations.get(n);
    if (d) {
      if (d.addressSpace === 'local') return undefined;
      if (!usedOutside(scope.body, inRun, n)) {
        moved.push(d);
        continue;
      }
      // a private array of the caller's goes by pointer where the target's functions take one
      if (d.length !== undefined) {
        if (!support.privateArrays || d.vectorWidth !== undefined || d.initializer) return undefined;
        params.push({ name: n, dtype: d.dtype, kind: 'private', written: written.has(n) });
        args.push(variable(n));
        continue;
      }
      // a private scalar of the caller's that the call only reads is a value; anything else is shared
      if (written.has(n)) return undefined;
    } else if (written.has(n)) return undefined;
    const dtype = scope.types.get(n);
    if (dtype === undefined) return undefined;
    params.push({ name: n, dtype: dtype as KernelParam['dtype'], kind: 'value', written: false });
    args.push(variable(n));
  }

  let body: readonly Stmt[] = [...moved, ...run];
  const types = new Map(scope.types) as Map<string, KernelParam['dtype']>;
  if (support.workItemIds === 'passed' && ids.length) {
    const idNames = new Map<string, string>();
    for (const id of ids) {
      const fn = (id as Extract<Expr, { kind: 'call' }>).fn;
      const name = uniqueName(`${fn}_${axisOf(id)}`, new Set([...known, ...bound, ...scope.ctx.names]));
      idNames.set(idKey(id), name);
      params.push({ name, dtype: INDEX_DTYPE, kind: 'value', written: false });
      types.set(name, INDEX_DTYPE);
      args.push(id);
    }
    const swap = (e: Expr) =>
      mapExpr(e, (x) => (isHardwareId(x) && idNames.has(idKey(x)) ? variable(idNames.get(idKey(x))!) : x));
    body = body.map((s) => mapStmts(s, { expr: swap }));
  }

  const inner = outlineScope({ kind: 'block', body }, params, types, scope.depth + 1, scope.ctx);
  const fn = addFunction(call.callee, params, inner, types, scope.ctx);
  return { call: { kind: 'device-call', function: fn, args }, moved: moved.map((d) => d.name) };
}

/** A kernel's parameter as the function's: the host's facts about it left behind. */
function asParameter(p: KernelParam, written: boolean): KernelParam {
  return {
    name: p.name,
    dtype: p.dtype,
    kind: p.kind,
    written: p.kind !== 'value' && written,
    ...(p.vectorWidth !== undefined ? { vectorWidth: p.vectorWidth } : {}),
    ...(p.forAtomic ? { forAtomic: true } : {}),
  };
}

/** Whether `name` is used in `body` outside the statements of `inRun` (its own declaration aside). */
function usedOutside(body: Stmt, inRun: ReadonlySet<Stmt>, name: string): boolean {
  let found = false;
  walkStmts(body, {
    stmt: (x) => {
      if (found || inRun.has(x)) return false;
      if (x.kind === 'code' && new RegExp(`\\b${name}\\b`).test(x.code)) found = true;
    },
    expr: (e) =>
      walk(e, (x) => {
        if ((x.kind === 'var' && x.name === name) || (x.kind === 'subscript' && x.array === name)) found = true;
      }),
  });
  return found;
}

/** The function's name: a function of the same callee with the same parameters and code is reused. */
function addFunction(
  callee: string,
  params: readonly FunctionParam[],
  body: Stmt,
  types: ReadonlyMap<string, KernelParam['dtype']>,
  ctx: Context,
): string {
  const shape = fingerprint(params, body);
  for (const f of ctx.functions)
    if (f.name.startsWith(callee) && fingerprint(f.params, f.body) === shape) return f.name;
  const name = uniqueName(callee, ctx.names);
  ctx.names.add(name);
  ctx.functions.push({ name, params, body, types });
  return name;
}

function fingerprint(params: readonly FunctionParam[], body: Stmt): string {
  return JSON.stringify([params, body], (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

function axisOf(id: Expr): number {
  const arg = (id as Extract<Expr, { kind: 'call' }>).args[0];
  return Number((arg as Extract<Expr, { kind: 'int' }>).value);
}

function idKey(id: Expr): string {
  return `${(id as Extract<Expr, { kind: 'call' }>).fn}${axisOf(id)}`;
}

function sameId(a: Expr, b: Expr): boolean {
  return idKey(a) === idKey(b);
}
