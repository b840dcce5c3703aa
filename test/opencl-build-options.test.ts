/**
 * The OpenCL device's build options from the environment (`LOOM_OPENCL_OPTIONS`, the driver's own
 * flags added to every program) and its build log on stderr (`LOOM_OPENCL_BUILD_LOG`), on whatever
 * OpenCL device is here (PoCL on the CPU machines, NVIDIA's on the GPU machine).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, makeKernel } from '@loom/core';
import { openclDeviceOrSkip } from './support/backends.ts';

const device = openclDeviceOrSkip();

/** A kernel's OpenCL C, with a check that the build saw the macro LOOM_TEST_SCALE defined and a warning for the log. */
function guardedCode() {
  const generated = generateCode(makeKernel('{ [i]: 0 <= i < 16 }', 'out[i] = 2 * i'), device!.target);
  const guard =
    '#ifndef LOOM_TEST_SCALE\n#error "LOOM_TEST_SCALE is not defined"\n#endif\n#warning "loom build log test"\n';
  return { ...generated, code: guard + generated.code };
}

/** `run` with the environment variables set, then as they were. */
async function withEnvironment<T>(values: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  Object.assign(process.env, values);
  try {
    return await run();
  } finally {
    for (const [k, v] of Object.entries(before))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

if (device) {
  test(`${device.name}: LOOM_OPENCL_OPTIONS reaches the compiler (a macro it defines), after Loom's own options`, async () => {
    const program = await withEnvironment({ LOOM_OPENCL_OPTIONS: ' -DLOOM_TEST_SCALE=3  -cl-denorms-are-zero ' }, () =>
      device.compile(guardedCode()),
    );
    assert.equal(program.options.slice(-2), ['-DLOOM_TEST_SCALE=3', '-cl-denorms-are-zero']);
    // without it the same source does not build, and says why
    await device.compile(guardedCode()).then(
      () => assert.unreachable('built without the macro'),
      (e) => assert.match((e as Error).message, 'LOOM_TEST_SCALE is not defined'),
    );
  });

  test(`${device.name}: LOOM_OPENCL_BUILD_LOG prints a build's log (its warnings) on stderr`, async () => {
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      // (another define than the test above: a program built once is not built again)
      const program = await withEnvironment(
        { LOOM_OPENCL_OPTIONS: '-DLOOM_TEST_SCALE=4', LOOM_OPENCL_BUILD_LOG: '1' },
        () => device.compile(guardedCode()),
      );
      if (program.buildLog.trim()) {
        assert.ok(
          written.some((w) => w.includes(`OpenCL build log (${device.name})`) && w.includes('loom build log test')),
        );
      } else assert.is(written.join(''), '', 'an empty log prints nothing');
    } finally {
      process.stderr.write = write;
    }
  });
}

test.run();
