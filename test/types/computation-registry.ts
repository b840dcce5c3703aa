/**
 * Computations whose parameter lists the compiler cannot see (a list declared as
 * `ComputationParam[]`, shared by two computations): `loom typegen` registers each list under
 * the computation's name (computation-registry.loom.d.ts, generated), and the compiled
 * function is as strictly typed as for a list written in place; a computation typegen did not
 * register stays loose.
 */
import type { Device, DeviceArray } from '@loom/core';
import { computation, mulConst, pureParallel, type ComputationParam } from '@loom/computation';
import { value, type Equal, type Expect } from './helpers.ts';

const N = 64;

/** Shared by two computations: as a `ComputationParam[]`, its names and dtypes are lost to the compiler. */
const SCALE_PARAMS: readonly ComputationParam[] = [
  { name: 'output', dtype: 'float32', shape: [N], role: 'o' },
  { name: 'input', dtype: 'int32', shape: [N], role: 'i' },
  { name: 'factor', dtype: 'float32', role: 's' },
];

export async function registeredCases(device: Device): Promise<void> {
  const scale = computation({
    name: 'types_registered_scale',
    params: SCALE_PARAMS,
    buildPlan(plan, _device, ...args) {
      plan.kernelCall(value(), Object.fromEntries(args.map((a) => [a.name, a])));
    },
  });
  const compiled = await scale.compile(device);
  const { output } = await compiled(undefined, new Int32Array(N), 2);
  type _output = Expect<Equal<typeof output, Float32Array>>;
  await compiled.byName({ input: value<DeviceArray>(), factor: 1 });
  // @ts-expect-error: input is int32, not float32
  await compiled(undefined, new Float32Array(N), 2);
  // @ts-expect-error: the scalar factor is missing
  await compiled(undefined, new Int32Array(N));
  // @ts-expect-error: no parameter 'scale'
  await compiled.byName({ input: new Int32Array(N), factor: 1, scale: 2 });
  // @ts-expect-error: prepare takes DeviceArrays
  await compiled.prepare(value<DeviceArray>(), new Int32Array(N), 2);

  // attach works on the registered signature as on a written one
  const halved = scale.attach('output', mulConst({ dtype: 'float32' }, 0.5), 'input', { output: 'half' });
  const { half } = await (await halved.compile(device))(undefined, new Int32Array(N), 2);
  type _half = Expect<Equal<typeof half, Float32Array>>;
  // @ts-expect-error: 'output' gave way to 'half'
  await (await halved.compile(device)).byName({ input: new Int32Array(N), factor: 1, output: new Float32Array(N) });

  // pureParallel with the same list under another name
  const viaBody = pureParallel({
    name: 'types_registered_body',
    params: SCALE_PARAMS,
    body: 'output[idx0] = factor * input[idx0]',
  });
  const compiledBody = await viaBody.compile(device);
  await compiledBody(undefined, new Int32Array(N), 3);
  // @ts-expect-error: input is int32
  await compiledBody(undefined, new Float64Array(N), 3);

  // unnamed, typegen cannot register it: the function takes anything (loose), as before
  const loose = await computation({ params: SCALE_PARAMS, buildPlan() {} }).compile(device);
  await loose(undefined, new Float64Array(N), 2);
}
