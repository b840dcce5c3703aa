/**
 * Computations and transformations as the compiler sees them: the compiled function takes
 * the signature's leaves (their element types, outputs optional), attach changes that
 * signature, and a wrong argument, a wrong name or a wrong direction does not compile.
 */
import type { DeviceArray, Device } from '@loom/core';
import { computation, mulConst, mulParam, transformation, cast } from '@loom/computation';
import { kernel, f32 } from '@loom/dsl';
import { value, type Equal, type Expect } from './helpers.ts';

export async function computationCases(device: Device): Promise<void> {
  const comp = computation({
    params: [
      { name: 'output', dtype: 'float32', shape: [100], role: 'o' },
      { name: 'input1', dtype: 'float32', shape: [100], role: 'i' },
      { name: 'input2', dtype: 'int32', shape: [100], role: 'i' },
      { name: 'param', dtype: 'float32', role: 's' },
    ],
    buildPlan(plan, _device, output, input1, input2, param) {
      type _arg = Expect<Equal<typeof output.dtype, 'float32'>>;
      type _role = Expect<Equal<typeof input2.role, 'i'>>;
      plan.kernelCall(value(), { out: output, a: input1, b: input2, k: param });
    },
  });
  const a = new Float32Array(100);
  const b = new Int32Array(100);
  const compiled = await comp.compile(device);
  const { output } = await compiled(undefined, a, b, 0.5);
  type _output = Expect<Equal<typeof output, Float32Array>>;
  // an output passed on the device comes back as the DeviceArray
  const onDevice = await compiled(value<DeviceArray>(), a, b, 0.5);
  type _onDevice = Expect<Equal<typeof onDevice.output, DeviceArray>>;
  const named = await compiled.byName({ input1: a, input2: b, param: 1, output: value<DeviceArray>() });
  type _named = Expect<Equal<typeof named.output, DeviceArray>>;
  await compiled(new Float32Array(100), a, b, 2);
  await compiled.byName({ input1: a, input2: b, param: 1 });
  await compiled(undefined, value<DeviceArray>(), { data: b, shape: [100] }, 1);

  // @ts-expect-error: input2 is int32, not float32
  await compiled(undefined, a, a, 0.5);
  // @ts-expect-error: a Float64Array where float32 is declared
  await compiled(undefined, new Float64Array(100), b, 0.5);
  // @ts-expect-error: the scalar is missing
  await compiled(undefined, a, b);
  // @ts-expect-error: an array where a scalar goes
  await compiled(undefined, a, b, a);
  // @ts-expect-error: input1 is required by name
  await compiled.byName({ input2: b, param: 1 });
  // @ts-expect-error: no parameter 'input3'
  await compiled.byName({ input1: a, input2: b, param: 1, input3: a });

  // attach changes the signature: the output gives way to the transformation's leaves
  const scaled = comp.attach('output', mulParam({ dtype: 'float32' }), 'input', { output: 'scaled', param: 'k' });
  const run2 = await scaled.compile(device);
  const { scaled: s } = await run2(undefined, 2, a, b, 0.5);
  type _scaled = Expect<Equal<typeof s, Float32Array>>;
  await run2.byName({ input1: a, input2: b, param: 1, k: 3 });
  // @ts-expect-error: 'output' is hidden by the transformation
  await run2.byName({ input1: a, input2: b, param: 1, k: 3, output: a });
  // @ts-expect-error: the new scalar k is required
  await run2.byName({ input1: a, input2: b, param: 1 });

  // a cast on an input changes its element type
  const fromInts = comp.attach('input1', cast({ dtype: 'int16' }, 'float32'), 'output', { input: 'small' });
  const run3 = await fromInts.compile(device);
  await run3(undefined, new Int16Array(100), b, 1);
  // @ts-expect-error: 'small' is int16 now
  await run3(undefined, a, b, 1);

  // @ts-expect-error: a transformation of what kernels read cannot attach to an output
  comp.attach('output', mulConst({ dtype: 'float32' }, 2), 'output', { input: 'x' });
  // @ts-expect-error: the mapping must name every other parameter (param is missing)
  comp.attach('output', mulParam({ dtype: 'float32' }), 'input', { output: 'scaled' });
  // @ts-expect-error: 'nothing' is not a parameter
  comp.attach('nothing', mulConst({ dtype: 'float32' }, 2), 'output', { input: 'x' });

  // transformations carry their parameters' names and roles
  const tr = transformation({
    params: [
      { name: 'o', dtype: 'float32', role: 'o' },
      { name: 'i', dtype: 'float64', role: 'i' },
    ],
    body: 'storeSame(o, float32(loadSame(i)))',
  });
  const wide = comp.attach('input1', tr, 'o', { i: 'wide' });
  const run4 = await wide.compile(device);
  await run4.byName({ wide: new Float64Array(100), input2: b, param: 1 });
  // @ts-expect-error: 'wide' holds float64
  await run4.byName({ wide: a, input2: b, param: 1 });
  // @ts-expect-error: 'q' is not a parameter of the transformation
  comp.attach('input1', tr, 'q', { i: 'wide' });

  // the DSL's kernel builder: .attach retypes run()
  const k = kernel('{ [i]: 0<=i<n }', 'y[i] = 2*x[i]')
    .args({ x: f32('n'), y: f32.out('n') })
    .attach('x', cast({ dtype: 'int32' }, 'float32'), 'output', { input: 'xi' });
  const { y } = await k.run(device, { xi: new Int32Array(4) });
  type _y = Expect<Equal<typeof y, Float32Array>>;
  // @ts-expect-error: x gave way to xi
  await k.run(device, { x: new Float32Array(4) });
  // @ts-expect-error: xi holds int32
  await k.run(device, { xi: new Float32Array(4) });
}
