/**
 * Running the plan's host program: the launches, in order, and the host loops around
 * them (a global barrier inside a sequential loop: codegen/subkernels.ts). Each loop's
 * bounds are evaluated from the call's values and the enclosing loops' values, and each
 * launch inside gets the loops' values as arguments.
 */
import { evaluateInt } from './evaluate.ts';
import type { CallPlan, PlannedLaunch, PlannedStep } from './call-plan.ts';
import { LoomError } from '../errors.ts';

export interface HostLaunch {
  readonly launch: PlannedLaunch;
  /** The enclosing host loops' values (undefined outside any loop). */
  readonly loops?: ReadonlyMap<string, number>;
}

/** The plan's launches in the order the host makes them, host loops run. */
export function* hostLaunches(plan: CallPlan, values: ReadonlyMap<string, number | bigint>): Generator<HostLaunch> {
  const env = (loops: ReadonlyMap<string, number>, what: string) => (name: string) => {
    const v = loops.get(name) ?? values.get(name);
    if (v === undefined) throw new LoomError(`cannot compute ${what}: no value for '${name}'`);
    return Number(v);
  };
  function* walk(steps: readonly PlannedStep[], loops?: Map<string, number>): Generator<HostLaunch> {
    for (const s of steps) {
      if (s.kind === 'launch') {
        yield loops ? { launch: plan.launches[s.launch], loops: new Map(loops) } : { launch: plan.launches[s.launch] };
        continue;
      }
      const outer = loops ?? new Map<string, number>();
      const what = `the bounds of the host loop '${s.iname}'`;
      const lower = evaluateInt(s.lower, env(outer, what), what);
      const upper = evaluateInt(s.upper, env(outer, what), what);
      for (let v = lower; v <= upper; v++) yield* walk(s.body, new Map(outer).set(s.iname, v));
    }
  }
  yield* walk(plan.steps);
}
