/**
 * A program as the one kernel a target compiles: its entrypoint with every call of a callable
 * kernel inlined (callees' own calls first), and the program's user functions registered.
 *
 * The kernel is inlined so that typing, checks, scheduling and the grid see one kernel, but each
 * inlined instruction remembers its call (`Instruction.inlinedFrom`): code generation then makes
 * the call's code a device function where the target can call one (codegen/device-functions.ts),
 * loopy's `inline=False`. A callee with a global barrier is inlined for good, as loopy does: its
 * code is split between device kernels, which no function call can span.
 */
import { LoomError } from '../errors.ts';
import { LoopKernel } from '../kernel/model.ts';
import { perObject } from '../memo.ts';
import { userFunctionOf } from '../functions/resolve.ts';
import { callsIn, inlineInto } from './inline.ts';
import { asProgram, Program } from './program.ts';

/**
 * The kernel `name` of the program (default: its one entrypoint) with every call inlined: what
 * `run` and `generateCode` compile for a program.
 * ```ts
 * const knl = programKernel(merge([caller, callee]));
 * ```
 */
export function programKernel(prog: LoopKernel | Program, name?: string): LoopKernel {
  const p = asProgram(prog);
  const entry = name === undefined ? p.defaultEntrypoint : p.kernel(name);
  return resolvedOf(p)(entry);
}

const resolvedOf = perObject((p: Program) => {
  const done = new Map<string, LoopKernel>();
  const resolve = (knl: LoopKernel, stack: readonly string[]): LoopKernel => {
    const known = done.get(knl.name);
    if (known && p.callables.get(knl.name) === knl) return known;
    let out = knl;
    for (const callee of callsIn(knl)) {
      if (stack.includes(callee))
        throw new LoomError(`kernel '${knl.name}' calls '${callee}', which calls it back: recursion is not inlinable`);
      const c = p.callables.get(callee);
      if (c !== undefined ? !(c instanceof LoopKernel) : userFunctionOf(knl, callee)) refuseNoResultCall(knl, callee);
      if (!(c instanceof LoopKernel)) {
        const site = knl.instructions.find((i) => i.call?.callee === callee);
        throw new LoomError(
          `kernel '${knl.name}' calls '${callee}', which is not a kernel of the program (merge it in)`,
          site?.span,
        );
      }
      const resolved = resolve(c, [...stack, knl.name]);
      out = inlineInto(out, resolved, { asFunction: !hasGlobalBarrier(resolved) });
    }
    const functions = new Map(out.functions);
    for (const [n, c] of p.callables) if (!(c instanceof LoopKernel)) functions.set(n, c);
    if (functions.size !== out.functions.size) out = out.with({ functions });
    if (p.callables.get(knl.name) === knl) done.set(knl.name, out);
    return out;
  };
  return (knl: LoopKernel) => resolve(knl, []);
});

function hasGlobalBarrier(knl: LoopKernel): boolean {
  return knl.instructions.some((i) => i.kind === 'barrier' && i.barrierScope === 'global');
}

/** A kernel with its calls inlined, given a kernel or a program: what the compiling entry points take. */
export function compiledKernel(k: LoopKernel | Program): LoopKernel {
  return k instanceof Program ? programKernel(k) : k;
}

/** A `LoomError` for a kernel that still calls kernels: they live in a program (`merge`). */
export function refuseCalls(knl: LoopKernel): void {
  const callees = callsIn(knl);
  if (!callees.length) return;
  for (const c of callees) if (userFunctionOf(knl, c)) refuseNoResultCall(knl, c);
  const site = knl.instructions.find((i) => i.kind === 'call');
  throw new LoomError(
    `kernel '${knl.name}' calls ${callees.map((c) => `'${c}'`).join(', ')}: run or compile the program that holds ${callees.length > 1 ? 'them' : 'it'} (merge([caller, callee]))`,
    site?.span,
  );
}

/**
 * A user function called as an instruction of its own (`f()`, `f(sum(i, x[i]))`: loopy's call
 * with no returned value). A user function returns a value (its signature's `result`) and every
 * target prints its calls inside expressions, so no target has a call statement to print it as.
 */
function refuseNoResultCall(knl: LoopKernel, callee: string): never {
  throw new LoomError(
    `kernel '${knl.name}' calls the user function '${callee}' as an instruction of its own, keeping no result: Loom's user functions return a value (defineFunction's signature.result) and are called inside expressions; assign the result (\`<> r = ${callee}(...)\`)`,
    knl.instructions.find((i) => i.call?.callee === callee)?.span,
  );
}
