/**
 * The names of a program AST, gathered and renamed as a whole: what a target needs to
 * spell them with `TargetNames` (see ../names.ts).
 *
 * The names are those of kernels, device functions, parameters, temporaries, loop indices and
 * the variables and arrays expressions refer to. Function names in calls are not among
 * them: they are Loom's own built-ins, which each target translates from a table.
 */
import { LoomError, unreachable } from '../errors.ts';
import { mapExpr, walk } from '../expr/index.ts';
import { reduce, subscript, variable, type Expr } from '../expr/nodes.ts';
import { isName, showName } from '../names.ts';
import type { DeviceFunction, KernelFunction, MatrixOp, ProgramAst, Stmt } from './ast.ts';
import { mapStmts, walkStmts } from './stmt-visit.ts';
import { perObject } from '../memo.ts';

/**
 * Every name the program's code spells, kernel names included: gathered once per program
 * (a walk of every expression), as code generation checks them and a target spells them.
 */
export function programNames(program: ProgramAst): ReadonlySet<string> {
  return namesOf(program);
}

const namesOf = perObject((program: ProgramAst): ReadonlySet<string> => {
  const names = new Set<string>();
  const fromExpr = (e: Expr) =>
    walk(e, (x) => {
      if (x.kind === 'var') names.add(x.name);
      else if (x.kind === 'subscript') names.add(x.array);
      else if (x.kind === 'reduce') x.inames.forEach((n) => names.add(n));
    });
  const fromStmt = (s: Stmt) => walkStmts(s, { name: (n) => names.add(n), expr: fromExpr });
  for (const k of program.kernels) {
    names.add(k.name);
    k.params.forEach((p) => names.add(p.name));
    for (const n of k.types.keys()) names.add(n);
    fromStmt(k.body);
    k.groupCount.forEach(fromExpr);
  }
  for (const f of program.deviceFunctions ?? []) {
    names.add(f.name);
    f.params.forEach((p) => names.add(p.name));
    for (const n of f.types.keys()) names.add(n);
    fromStmt(f.body);
  }
  return names;
});

/**
 * The backstop of the name policy: every name a target is about to print is an
 * identifier. Names are checked where they enter Loom; a kernel built around those
 * checks (`kernel.with({ name })` by hand) still stops here, before any code exists.
 */
export function checkProgramNames(program: ProgramAst): void {
  for (const n of programNames(program)) {
    if (!isName(n))
      throw new LoomError(
        `the kernel uses ${showName(n)} as a name, which is not one (a name is a letter or '_' followed by letters, digits and '_')`,
      );
  }
}

/** The program with every name replaced by `spell(name)` (kernel names included). */
export function renameProgram(program: ProgramAst, spell: (name: string) => string): ProgramAst {
  const expr = (e: Expr): Expr =>
    mapExpr(e, (x) => {
      // a node whose name stays is kept: most names are spelled as they are, and a tree
      // rebuilt without need costs every later pass (and the printers' memos) its sharing
      if (x.kind === 'var') {
        const name = spell(x.name);
        return name === x.name ? x : variable(name);
      }
      if (x.kind === 'subscript') {
        const array = spell(x.array);
        // (the copy has no `linear` mark: flat indices by now)
        return array === x.array && !x.linear ? x : subscript(array, x.indices);
      }
      if (x.kind === 'reduce') return reduce(x.op, x.inames.map(spell), x.operands, x.simultaneous);
      return x;
    });
  const stmt = (s: Stmt) =>
    mapStmts(s, {
      name: spell,
      expr,
      stmt: (x) =>
        x.kind === 'device-call'
          ? { ...x, function: spell(x.function) }
          : x.kind === 'matrix'
            ? { ...x, op: renameMatrixArrays(x.op, spell) }
            : x,
    });
  const kernel = (k: KernelFunction): KernelFunction => ({
    ...k,
    name: spell(k.name),
    params: k.params.map((p) => ({ ...p, name: spell(p.name) })),
    body: stmt(k.body),
    groupCount: k.groupCount.map(expr),
    types: new Map([...k.types].map(([n, t]) => [spell(n), t])),
  });
  const fn = (f: DeviceFunction): DeviceFunction => ({
    ...f,
    name: spell(f.name),
    params: f.params.map((p) => ({ ...p, name: spell(p.name) })),
    body: stmt(f.body),
    types: new Map([...f.types].map(([n, t]) => [spell(n), t])),
  });
  return {
    ...program,
    kernels: program.kernels.map(kernel),
    ...(program.deviceFunctions ? { deviceFunctions: program.deviceFunctions.map(fn) } : {}),
  };
}

/** A matrix instruction with its accumulator and tiles' arrays spelled (they are names, not expressions). */
function renameMatrixArrays(op: MatrixOp, spell: (name: string) => string): MatrixOp {
  const accumulator = { ...op.accumulator, name: spell(op.accumulator.name) };
  switch (op.kind) {
    case 'fill':
      return { ...op, accumulator };
    case 'multiply':
      return { ...op, accumulator, a: { ...op.a, array: spell(op.a.array) }, b: { ...op.b, array: spell(op.b.array) } };
    case 'store':
      return { ...op, accumulator, c: { ...op.c, array: spell(op.c.array) } };
    default:
      return unreachable(op, 'matrix instruction');
  }
}
