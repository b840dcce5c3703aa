/**
 * Work-group serialization: one work-group's work-items run one after another on one thread,
 * for targets with no hardware work-items (C on the CPU). This is how PoCL runs OpenCL on CPUs:
 * the body is cut at its local barriers into "barrier regions", and each region becomes a loop
 * over the work-items of the group. Every work-item finishes a region before any starts the
 * next, which is all a barrier promises.
 *
 *     a_fetch[lid(0)] = a[...];              for (lid_0 = 0; lid_0 <= 63; ++lid_0)
 *     barrier();                     →         a_fetch[lid_0] = a[...];
 *     out[lid(0)] = a_fetch[63 - lid(0)];    for (lid_0 = 0; lid_0 <= 63; ++lid_0)
 *                                              out[lid_0] = a_fetch[63 - lid_0];
 *
 * A loop or guard holding a barrier stays one statement of the group, and its body is cut
 * again: so its bounds or condition must be the same for every work-item (no local id, no
 * private value in them); otherwise the work-items would leave the loop at different
 * barriers, and a LoomError names the barrier. A private temporary that a work-item must
 * keep from one region to another (an accumulator across the steps of a prefetch loop)
 * becomes an array with one copy per work-item (PoCL's "context arrays"); local temporaries
 * stay one per group. Loop counters need no copies: a loop holding a barrier runs once per
 * group, and any other loop lies within one region.
 *
 * Global barriers never get here: code generation splits a kernel at them into several
 * device kernels (subkernels.ts). A barrier statement's scope is the memory it fences (a local
 * barrier with mem_kind=global fences global memory): either ends a region.
 */
import { LoomError, InternalError, unreachable } from '../errors.ts';
import { add, int, mul, sub, subscript, variable, type Expr } from '../expr/nodes.ts';
import { simplify } from '../expr/simplify.ts';
import { mapExpr, walk } from '../expr/visit.ts';
import { block, type KernelFunction, type Stmt } from './ast.ts';
import { firstBarrier } from './barrier-uniformity.ts';
import { foldCounterGuards } from './fold-counter-guards.ts';
import { versionFullGroups } from './full-group-version.ts';
import { sinkCounterLoops } from './sink-counter-loops.ts';
import { constantLocalSize, requireConstantLocalSize } from './local-size.ts';
import { mapStmts, someStmt, statementsOf, walkStmts } from './stmt-visit.ts';

/** A statement of the serialized group: a region the work-items run in turn, or a loop or guard around regions. */
type GroupStmt =
  | { readonly kind: 'region'; readonly body: readonly Stmt[]; readonly inLoop: boolean }
  | { readonly kind: 'for'; readonly loop: Extract<Stmt, { kind: 'for' }>; readonly body: readonly GroupStmt[] }
  | { readonly kind: 'if'; readonly guard: Extract<Stmt, { kind: 'if' }>; readonly then: readonly GroupStmt[] };

type Declaration = Extract<Stmt, { kind: 'declare' }>;

/**
 * `kernel` with a body that runs one whole work-group, its work-items one after another (see
 * the module comment): no `lid(N)` and no barrier is left in it. Each local axis of more than
 * one work-item becomes a loop counter (`lid_0`, renamed where a kernel name takes it), in
 * `types` as int32; every declaration moves to the top of the body. `localSize` stays: it is
 * the group's shape the loops run over, and where it is known only at launch (`n`), the loops
 * run to that expression of the kernel's value arguments.
 *
 * `maxWorkGroupSize`: the most work-items a launch may have (the device checks it at launch).
 * A private value kept across a barrier then gets that many copies where the group's size is
 * known only at launch; without it, such a kernel is a LoomError.
 */
export function serializeWorkItems(
  kernel: KernelFunction,
  options: { readonly maxWorkGroupSize?: number } = {},
): KernelFunction {
  const declarations: Declaration[] = [];
  const body = withoutDeclarations(kernel.body, declarations);
  const privates = new Set(
    declarations.filter((d) => d.addressSpace === 'private' && !d.initializer).map((d) => d.name),
  );
  const group = splitAtBarriers(statementsOf(body), privates, false);

  const sizes = [0, 1, 2].map((axis) => kernel.localSize[axis] ?? int(1));
  const taken = new Set([...kernel.types.keys(), ...kernel.params.map((p) => p.name), kernel.name]);
  // a parametric size may be 1 at launch: its loop then runs once
  const counters = sizes.map((size, axis) =>
    size.kind !== 'int' || size.value > 1 ? freshName(`lid_${axis}`, taken) : undefined,
  );
  const contextual = contextArrays(group, privates);
  const declaredNames = new Set(declarations.map((d) => d.name));
  const counterNames = new Set(counters.filter((c) => c !== undefined));
  // the private values the work-items take turns with, in one variable (no copy per work-item)
  const shared = new Set([...privates].filter((name) => !contextual.has(name)));
  // the copies of private values, one per work-item, are declared arrays of a fixed length:
  // the group's size, or the most work-items a launch may have where it is known only then
  const constant = constantLocalSize(sizes);
  const items =
    constant?.reduce((a, b) => a * b, 1) ??
    (contextual.size === 0
      ? 1
      : (options.maxWorkGroupSize ??
        requireConstantLocalSize(
          kernel.name,
          sizes,
          `the private temporar${contextual.size > 1 ? 'ies' : 'y'} '${[...contextual].join("', '")}' must keep a copy per work-item across a barrier, in an array of a length fixed when the code is generated`,
        ).reduce((a, b) => a * b, 1)));

  const rewrite = (e: Expr): Expr =>
    mapExpr(e, (x) => {
      if (x.kind === 'call' && x.fn === 'lid' && x.args.length === 1 && x.args[0].kind === 'int') {
        const counter = counters[x.args[0].value];
        return counter === undefined ? int(0) : variable(counter);
      }
      if (x.kind === 'var' && contextual.has(x.name)) return subscript(x.name, [itemIndex(counters, sizes)]);
      if (x.kind === 'subscript' && contextual.has(x.array)) {
        // element e of every work-item's copy side by side (e * items + item), so that the loop over
        // the work-items reads and writes consecutive words, which a C compiler vectorizes (with the
        // copies one after another, an accumulator tile strided the loop by its length: 3x slower)
        return subscript(x.array, [
          simplify(add(mul(x.indices[0], int(items)), itemIndex(counters, sizes)), { integer: true }),
        ]);
      }
      return x;
    });
  const wrapItems = (region: readonly Stmt[]): Stmt => {
    let s = mapStmts(block(region), { expr: rewrite });
    // x fastest, as the other devices number a group's work-items
    for (const axis of [0, 1, 2]) {
      const counter = counters[axis];
      if (counter === undefined) continue;
      const { loop, hoisted } = foldCounterGuards(
        { kind: 'for', iname: counter, lower: int(0), upper: lastItem(sizes[axis]), body: s },
        declaredNames,
      );
      const sunk = sinkCounterLoops(loop, { counters: counterNames, temporaries: declaredNames, shared });
      s = hoisted ? { kind: 'if', condition: hoisted, then: sunk } : sunk;
    }
    return versionFullGroups(s, declaredNames);
  };
  const emit = (list: readonly GroupStmt[]): Stmt[] =>
    list.flatMap((g): Stmt[] => {
      switch (g.kind) {
        case 'region':
          return g.body.length === 0
            ? []
            : separatelyGuarded(g.body, shared).flatMap((run) => statementsOf(wrapItems(run)));
        case 'for':
          return [{ ...g.loop, body: block(emit(g.body)) }];
        case 'if':
          return [{ ...g.guard, then: block(emit(g.then)) }];
        default:
          return unreachable(g, 'group statement');
      }
    });

  const declared = declarations.map((d): Stmt => {
    if (!contextual.has(d.name)) return d;
    const length = d.length ?? 1;
    return {
      ...d,
      length: typeof length === 'number' ? length * items : simplify(mul(length, int(items)), { integer: true }),
    };
  });
  const types = new Map(kernel.types);
  for (const counter of counters) if (counter !== undefined) types.set(counter, 'int32');
  return { ...kernel, body: { kind: 'block', body: [...declared, ...emit(group)] }, types };
}

/**
 * A region's statements as the runs of work-item loops to wrap them in: one loop per statement
 * where each is under its own guard (so that each guard can fold into its loop's bounds), else
 * one loop around them all. Splitting the loop runs every work-item's first statement before
 * any runs its second, which no work-item can tell (nothing orders two work-items between
 * barriers), unless they share a private scalar (`shared`, one variable they take turns with).
 */
function separatelyGuarded(region: readonly Stmt[], shared: ReadonlySet<string>): (readonly Stmt[])[] {
  const guarded = region.length > 1 && region.every((s) => s.kind === 'if');
  if (!guarded || [...namesIn(region)].some((name) => shared.has(name))) return [region];
  // C code, and a user function called for its side effect, may keep state Loom cannot see
  if (region.some((s) => someStmt(s, (x) => x.kind === 'code' || x.kind === 'call'))) return [region];
  return region.map((s) => [s]);
}

/** The last work-item's id along an axis of `size` work-items (the loops' bounds are inclusive). */
function lastItem(size: Expr): Expr {
  return size.kind === 'int' ? int(size.value - 1) : sub(size, int(1));
}

/** Whether `s` holds a barrier anywhere in it. */
function hasBarrier(s: Stmt): boolean {
  return someStmt(s, (x) => x.kind === 'barrier');
}

/**
 * The statements as the group runs them: maximal runs without barriers become regions; a
 * loop or guard with a barrier inside stays, its body split again. `inLoop`: inside a loop of
 * the group, where a region runs again at every iteration.
 */
function splitAtBarriers(stmts: readonly Stmt[], privates: ReadonlySet<string>, inLoop: boolean): GroupStmt[] {
  const out: GroupStmt[] = [];
  let run: Stmt[] = [];
  const close = () => {
    if (run.length) out.push({ kind: 'region', body: run, inLoop });
    run = [];
  };
  for (const s of stmts) {
    if (!hasBarrier(s)) {
      run.push(s);
      continue;
    }
    close();
    switch (s.kind) {
      case 'barrier':
        // the end of a region is the barrier; its scope is the memory it fences (a local barrier
        // with mem_kind=global fences global memory too), which a region's end fences alike:
        // global barriers between work-groups were split into separate launches before
        break;
      case 'block':
        out.push(...splitAtBarriers(s.body, privates, inLoop));
        break;
      case 'for':
        checkUniform([s.lower, s.upper], privates, s, `the bounds of loop '${s.iname}'`);
        out.push({ kind: 'for', loop: s, body: splitAtBarriers(statementsOf(s.body), privates, true) });
        break;
      case 'if':
        checkUniform([s.condition], privates, s, 'the condition of a guard');
        out.push({ kind: 'if', guard: s, then: splitAtBarriers(statementsOf(s.then), privates, inLoop) });
        break;
      case 'assign':
      case 'code':
      case 'call':
      case 'device-call':
      case 'trace':
      case 'matrix':
      case 'declare':
      case 'comment':
      case 'fence':
        throw new InternalError(`a '${s.kind}' statement holds a barrier`);
      default:
        unreachable(s, 'statement');
    }
  }
  close();
  return out;
}

/**
 * Refuses a loop or guard around a barrier whose bounds or condition may differ between the
 * work-items of a group: they would reach different barriers (undefined on a GPU too).
 */
function checkUniform(exprs: readonly Expr[], privates: ReadonlySet<string>, around: Stmt, what: string): void {
  const varying = new Set<string>();
  for (const e of exprs) {
    walk(e, (x) => {
      if (x.kind === 'call' && x.fn === 'lid') varying.add('the local id');
      if (x.kind === 'var' && privates.has(x.name)) varying.add(`the private temporary '${x.name}'`);
      if (x.kind === 'subscript' && privates.has(x.array)) varying.add(`the private temporary '${x.array}'`);
    });
  }
  if (varying.size === 0) return;
  const barrier = firstBarrier(around);
  throw new LoomError(
    `cannot run the work-items of a group one after another: the local barrier${barrier} lies inside a ${around.kind === 'for' ? 'loop' : 'guard'} whose ` +
      `${what.replace(/^the /, '')} read${exprs.length > 1 ? '' : 's'} ${[...varying].join(' and ')}, which may differ between work-items ` +
      '(a work-item must reach the same barriers as the others): make it depend on group ids and parameters only, or move the barrier out of it',
  );
}

/**
 * The private temporaries a work-item must keep between regions: those used in more than
 * one region, or in a region inside a loop of the group (the next iteration may read what the
 * last one wrote). The others are written and read within one run of one region by one
 * work-item, so the work-items can take turns with one copy.
 */
function contextArrays(group: readonly GroupStmt[], privates: ReadonlySet<string>): Set<string> {
  const regionsOf = new Map<string, number>();
  const out = new Set<string>();
  const visit = (list: readonly GroupStmt[]) => {
    for (const g of list) {
      if (g.kind === 'for') visit(g.body);
      else if (g.kind === 'if') visit(g.then);
      else {
        for (const name of namesIn(g.body)) {
          if (!privates.has(name)) continue;
          regionsOf.set(name, (regionsOf.get(name) ?? 0) + 1);
          if (g.inLoop || regionsOf.get(name)! > 1) out.add(name);
        }
      }
    }
  };
  visit(group);
  return out;
}

/** Every variable and array name the statements use. */
function namesIn(stmts: readonly Stmt[]): Set<string> {
  const names = new Set<string>();
  const collect = (e: Expr) =>
    walk(e, (x) => {
      if (x.kind === 'var') names.add(x.name);
      else if (x.kind === 'subscript') names.add(x.array);
    });
  for (const s of stmts) walkStmts(s, { expr: collect });
  return names;
}

/** The flat number of the work-item within its group: `lid_0 + size0 * (lid_1 + size1 * lid_2)`. */
function itemIndex(counters: readonly (string | undefined)[], sizes: readonly Expr[]): Expr {
  let index: Expr | undefined;
  for (const axis of [2, 1, 0]) {
    const counter = counters[axis];
    if (counter === undefined) continue;
    index = index === undefined ? variable(counter) : add(variable(counter), mul(sizes[axis], index));
  }
  return index ?? int(0);
}

/** `s` without its declarations, which go to `into` in order. */
function withoutDeclarations(s: Stmt, into: Declaration[]): Stmt {
  const kept = mapStmts(s, {
    stmt: (x) => {
      if (x.kind === 'declare') {
        into.push(x);
        return { kind: 'block', body: [] };
      }
      if (x.kind === 'block') return { ...x, body: x.body.filter((y) => !(y.kind === 'block' && y.body.length === 0)) };
      return x;
    },
  });
  return kept;
}

/** `base`, or `base_1`, `base_2`... : the first that no name of the kernel takes. */
function freshName(base: string, taken: Set<string>): string {
  let name = base;
  for (let k = 1; taken.has(name); k++) name = `${base}_${k}`;
  taken.add(name);
  return name;
}
