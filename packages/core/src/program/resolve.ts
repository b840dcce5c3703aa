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
import { withCallStatements } from '../functions/call-statements.ts';
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
    // the program's user functions win over the kernels' own (before inlining, so that a call of
    // one on a line of its own is a call statement; after, over what callees bring along)
    const withProgramFunctions = (k: LoopKernel) => {
      const functions = new Map(k.functions);
      for (const [n, c] of p.callables) if (!(c instanceof LoopKernel)) functions.set(n, c);
      return [...functions].every(([n, f]) => k.functions.get(n) === f) ? k : k.with({ functions });
    };
    let out = withCallStatements(withProgramFunctions(knl));
    for (const callee of callsIn(out)) {
      if (stack.includes(callee))
        throw new LoomError(`kernel '${knl.name}' calls '${callee}', which calls it back: recursion is not inlinable`);
      const c = p.callables.get(callee);
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
    out = withProgramFunctions(out);
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
  const site = knl.instructions.find((i) => i.kind === 'call');
  throw new LoomError(
    `kernel '${knl.name}' calls ${callees.map((c) => `'${c}'`).join(', ')}: run or compile the program that holds ${callees.length > 1 ? 'them' : 'it'} (merge([caller, callee]))`,
    site?.span,
  );
}
