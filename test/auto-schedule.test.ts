/**
 * `autoSchedule`, the search end to end: untransformed kernels (matmul, row sums, a transpose, a
 * 5-point stencil) in, scheduled kernels out that compute what the kernels as written compute,
 * with a script that rebuilds them through the builder; the same seed, the same search;
 * candidates the device refuses never run; fixSizes and the builder verb (`loom tune --auto`: cli-tune-auto.test.ts).
 * On the CPU device and OpenCL (PoCL), with tiny budgets and samples. The space's candidates are
 * tested in auto-schedule-space.test.ts, the cost model in auto-schedule-cost-model.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  applySchedule,
  autoSchedule,
  LoomError,
  makeKernel,
  memoryTuningCache,
  run,
  type Device,
  scheduleScript,
  setTemporaryAddressSpace,
  tagInames,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { analyzeKernel, enumerateCandidates } from '../packages/core/src/tune/auto-schedule/space.ts';
import { compatibleCheckSizes } from '../packages/core/src/tune/auto-schedule/search.ts';
import { kernel } from '@loom/dsl';
import { randomFloat32, testDevices } from './support/devices.ts';
import { cpu, small, CASES, coreKernel, checkResults, dtypesOf } from './support/auto-schedule-cases.ts';

const devices = testDevices().filter((d) => d.name === cpu.name || d.name.startsWith('OpenCL'));

for (const device of devices)
  for (const c of CASES)
    test(`${device.name}: ${c.name} auto-scheduled computes what the kernel as written computes; its script rebuilds it`, async () => {
      const knl = coreKernel(c);
      const result = await autoSchedule(knl, device, { ...small, sizes: c.sizes });
      assert.ok(
        result.measured.some((m) => m.seconds !== undefined && m.seconds > 0),
        'a candidate was measured',
      );
      assert.ok(result.predicted.length > 1, 'the model ranked candidates');
      await checkResults(c, knl, device, 'unscheduled');
      await checkResults(c, result.kernel, device, `scheduled ${result.script}`);
      // the script, pasted after the builder's kernel, gives the same kernel
      const builder = kernel(c.domain, c.code, { name: knl.name }).apply((k) => addDtypes(k, dtypesOf(knl)));
      const rebuilt = new Function('k', `return k${result.script}`)(builder) as typeof builder;
      assert.is(rebuilt.kernel.toString(), result.kernel.toString());
    });

test('the same seed gives the same candidates, ranking and result', async () => {
  const c = CASES[0]!;
  // a budget the ranking spends: one candidate measured, the model's first (measured times alone would differ)
  const options = { ...small, measure: 1, budget: 0.001, sizes: c.sizes, seed: 7 };
  const first = await autoSchedule(coreKernel(c), cpu, options);
  const second = await autoSchedule(coreKernel(c), cpu, options);
  const ranking = (r: typeof first) => r.predicted.map((p) => [p.script, p.seconds]);
  assert.equal(ranking(second), ranking(first));
  assert.is(second.script, first.script);
  assert.is(second.kernel.toString(), first.kernel.toString());
  const other = await autoSchedule(coreKernel(c), cpu, { ...options, seed: 8 });
  assert.not.equal(ranking(other), ranking(first), 'another seed samples other candidates');
});

test('candidates the device refuses are pruned with their reason and never run', async () => {
  const c = CASES[0]!;
  // a device that takes 8 work-items along l.0 and 64 bytes of local memory
  const launched: number[][] = [];
  const device: Device = Object.create(cpu);
  Object.defineProperty(device, 'limits', {
    value: { ...cpu.limits, maxWorkGroupSizes: [8, 1024, 64], maxLocalMemoryBytes: 64 },
  });
  device.launch = (compiled, kernel, args, groupCount, localSize) => {
    launched.push([...localSize]);
    return cpu.launch(compiled as Parameters<typeof cpu.launch>[0], kernel, args, groupCount, localSize);
  };
  const result = await autoSchedule(coreKernel(c), device, {
    ...small,
    checkDevice: device,
    sizes: c.sizes,
    space: { candidates: 24 },
  });
  assert.ok(
    result.pruned.some((p) => /local memory/.test(p.reason)),
    JSON.stringify(result.pruned.slice(0, 3)),
  );
  assert.ok(
    result.pruned.some((p) => /work-group/.test(p.reason)),
    JSON.stringify(result.pruned.slice(0, 3)),
  );
  assert.ok(launched.length > 0);
  assert.ok(
    launched.every((size) => (size[0] ?? 1) <= 8),
    JSON.stringify(launched),
  );
  const ran = result.measured.map((m) => m.script);
  for (const p of result.pruned) assert.not.ok(ran.includes(p.script), `pruned but run: ${p.script}`);
  await checkResults(c, result.kernel, cpu, result.script);
});

test('cpuDevice({ limits }): the reference for a device with more local memory than a typical GPU', async () => {
  // 64 x 160 floats of local memory (40 KiB): more than a typical GPU's 32, less than the H200's 48
  let knl = makeKernel(
    '{ [g, l, r]: 0 <= g < 2 and 0 <= l < 64 and 0 <= r < 160 }',
    `
    <float32> t[l, r] = x[64*g + l] + r {id=fill}
    y[64*g + l] = t[63 - l, 150] {dep=fill}
    `,
    [
      { name: 'x', dtype: 'float32', shape: [128] },
      { name: 'y', dtype: 'float32', shape: [128] },
    ],
    { name: 'wide_local' },
  );
  knl = setTemporaryAddressSpace(tagInames(knl, { g: 'g.0', l: 'l.0' }), 't', 'local');
  const x = randomFloat32(128, 3);
  await run(knl, cpu, { x }).then(
    () => assert.unreachable('40 KiB of local memory ran on the default CPU device'),
    (e) => assert.match((e as Error).message, 'local memory'),
  );
  const larger = cpuDevice({ limits: { maxLocalMemoryBytes: 48 * 1024 } });
  assert.is(larger.limits.maxWorkGroupSize, cpu.limits.maxWorkGroupSize);
  const { y } = await run(knl, larger, { x });
  for (let i = 0; i < 128; i++) {
    const g = Math.floor(i / 64);
    assert.is((y as Float32Array)[i], Math.fround(x[64 * g + 63 - (i % 64)]! + 150));
  }
  // autoSchedule checks what the device holds on the CPU device given as reference, its limits raised
  const result = await autoSchedule(knl, larger, { ...small, sizes: {}, checkDevice: cpu });
  assert.ok(
    result.measured.every((m) => m.failure === undefined),
    JSON.stringify(result.measured.map((m) => m.failure)),
  );
});

test('the search climbs from its sample to neighbouring tiles the model ranks better', async () => {
  const knl = addDtypes(makeKernel('{ [i,j,k]: 0<=i,j,k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])'), {
    a: 'float32',
    b: 'float32',
  });
  const sizes = { n: 256 };
  const result = await autoSchedule(knl, cpu, { ...small, sizes, space: { candidates: 4 } });
  const sample = enumerateCandidates(
    analyzeKernel(knl, sizes),
    { candidates: 4, maxGroup: cpu.limits.maxWorkGroupSize },
    1,
  ).map((c) => scheduleScript(c.steps));
  const ranked = [...result.predicted.map((p) => p.script), ...result.pruned.map((p) => p.script)];
  assert.ok(ranked.length > sample.length, `neighbours ranked beyond the sample (${ranked.length})`);
  const bestOfSample = Math.min(...result.predicted.filter((p) => sample.includes(p.script)).map((p) => p.seconds));
  assert.ok(
    result.predicted[0]!.seconds < bestOfSample,
    'the climb found a candidate the model ranks above the sample',
  );
  assert.not.ok(sample.includes(result.predicted[0]!.script));
  const c = (await run(result.kernel, cpu, { a: randomFloat32(256 * 256, 1), b: randomFloat32(256 * 256, 2) }))
    .c as Float32Array;
  assert.is(c.length, 256 * 256);
});

test('fixSizes: the kernel specialised to the sizes (checked unspecialised), its script starting with .fix; the script rebuilds it', async () => {
  const c = CASES[0]!;
  const knl = coreKernel(c);
  const result = await autoSchedule(knl, cpu, { ...small, sizes: c.sizes, fixSizes: true });
  assert.match(result.script, /^\.fix\(\{ n: 20 \}\)/);
  assert.equal(result.steps[0], { kind: 'fix', values: { n: 20 } });
  assert.not.ok(result.kernel.arg('n'), 'n is a constant of the kernel');
  assert.is(applySchedule(knl, result.steps).toString(), result.kernel.toString());
  const inputs = c.inputs(c.sizes);
  const { c: got } = await run(result.kernel, cpu, inputs);
  const want = c.reference(inputs, c.sizes).c!;
  want.forEach((v, k) => assert.ok(Math.abs((got as Float32Array)[k]! - v) <= 1e-4 * (1 + Math.abs(v)), `c[${k}]`));
  const refused = await autoSchedule(knl, cpu, { ...small, fixSizes: true }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(refused instanceof LoomError, String(refused));
  assert.match((refused as Error).message, 'fixSizes specialises the kernel to `sizes`, and none are given');
});

test('fixSizes: rows held in registers, built for the fixed sizes, are checked at sizes that keep their divisibility', async () => {
  // the passes' work-items are one iname (renameInames), which a row length known only at launch
  // refuses: a check on the kernel as written refused every such candidate (found on the H200)
  const written = kernel(
    '{ [i,j,k,l]: 0<=i<n and 0<=j,k,l<m }',
    `mx[i] = max(k, x[i, k]) {id=mx}
     s[i] = sum(l, exp(x[i, l] - mx[i])) {id=s, dep=mx}
     y[i, j] = exp(x[i, j] - mx[i]) / s[i] {dep=s}`,
    { name: 'softmax' },
  ).apply((k) => addDtypes(k, { x: 'float32', y: 'float32', mx: 'float32', s: 'float32' }));
  const result = await autoSchedule(written.kernel, cpu, { ...small, sizes: { n: 300, m: 1024 }, fixSizes: true });
  const held = result.measured.find((m) => m.script.includes('.renameInames('));
  assert.ok(held, 'a candidate holding its rows was checked and measured');
  assert.is(held.failure, undefined);
  assert.ok(held.seconds! > 0);
  // 1024 keeps its factor 256 (held rows of 256 work-items), 300 its factor 4, 1000 its 8
  assert.equal(compatibleCheckSizes({ n: 300, m: 1024, k: 1000, t: 7 }, {}), { n: 40, m: 256, k: 40, t: 7 });
  assert.equal(compatibleCheckSizes({ m: 96 }, { m: 20 }), { m: 32 });
});

test('the builder verb resolves to a builder of the best kernel; a cache answers the second search', async () => {
  const c = CASES[1]!;
  const cache = memoryTuningCache();
  const builder = kernel(c.domain, c.code, { name: 'rowsum' }).dtypes({ a: 'float32' });
  // (checked on the CPU device by default: the builder's verb finds it)
  const { checkDevice: _, ...byDefault } = small;
  const first = await builder.autoSchedule(cpu, { ...byDefault, sizes: c.sizes, cache });
  const second = await builder.autoSchedule(cpu, { ...small, sizes: c.sizes, cache });
  assert.is(second.fromCache, true);
  assert.is(second.script, first.script);
  assert.is(first.kernel.kernel.toString(), applyScript(builder, first.script).kernel.toString());
  const inputs = c.inputs(c.sizes);
  const { s } = await first.kernel.run(cpu, { ...inputs, ...c.sizes } as never);
  const want = c.reference(inputs, c.sizes).s!;
  want.forEach((v, k) => assert.ok(Math.abs((s as Float32Array)[k]! - v) <= 1e-4 * (1 + Math.abs(v))));
});

const applyScript = <B>(b: B, script: string): B => new Function('k', `return k${script}`)(b) as B;

test.run();
