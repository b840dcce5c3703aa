/**
 * The native drivers are optional peer dependencies, loaded when a device asks for them: a
 * package that is not installed is told apart from one that fails to load, and its message (a
 * MissingPackageError's) says what to install; the devices give it as their unavailable reason. Dawn's limit notices are kept off stderr (unless
 * LOOM_DEBUG is set), and nothing else it prints is.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isPackageNotFound, LoomError, MissingPackageError } from '@loom/core';

/** What `load` threw. */
async function thrown(load: () => unknown): Promise<unknown> {
  try {
    await load();
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

test('a package that is not installed is told apart from a module that is missing or broken', async () => {
  const absent = 'loom-no-such-package';
  assert.ok(isPackageNotFound(await thrown(() => import(absent)), absent), 'import()');
  assert.ok(isPackageNotFound(await thrown(() => createRequire(import.meta.url)(absent)), absent), 'require()');
  assert.not.ok(isPackageNotFound(await thrown(() => import(absent)), 'loom-no-such'), 'another name');
  const missingFile = './no-such-file.ts';
  assert.not.ok(isPackageNotFound(await thrown(() => import(missingFile)), absent), 'a missing file');
  assert.not.ok(isPackageNotFound(new Error(`package '${absent}' exploded`), absent), 'no module-not-found code');
});

test('MissingPackageError is a LoomError that says what to install', () => {
  const error = new MissingPackageError('webgpu', 'the WebGPU device in Node (Dawn)');
  assert.instance(error, LoomError);
  assert.is(error.name, 'MissingPackageError');
  assert.is(error.packageName, 'webgpu');
  assert.is(
    error.message,
    "the WebGPU device in Node (Dawn) needs the 'webgpu' package, which is not installed: npm install webgpu",
  );
});

/** Runs an ES module in a Node of its own, as the tests do (TypeScript, the packages' sources); its stderr. */
function stderrOf(code: string, env: Record<string, string> = {}): string {
  const child = spawnSync(
    process.execPath,
    ['--conditions=loom-source', '--import', 'tsx', '--input-type=module', '-e', code],
    {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    },
  );
  assert.is(child.status, 0, child.stderr);
  return child.stderr;
}

test('stderr filtering: the matching lines are dropped, every other line reaches stderr', () => {
  const printed = stderrOf(`
    import { writeSync } from 'node:fs';
    import { withStderrFiltered } from './packages/codegen-wgsl/src/stderr-filter.ts';
    const print = (text) => () => writeSync(2, text);
    writeSync(2, 'before\\n');
    withStderrFiltered(print('kept\\nWarning: noise 1\\nalso kept\\nWarning: noise 2\\n'), /^Warning: noise \\d$/);
    withStderrFiltered(print('Warning: noise 3\\n'), undefined);
    const result = withStderrFiltered(() => 42, /x/);
    writeSync(2, 'after: ' + result + '\\n');
  `);
  assert.is(printed, 'before\nkept\nalso kept\nWarning: noise 3\nafter: 42\n');
});

const LIMIT_NOTICE = /^Warning: maxDynamic\w+ artificially reduced .*$\n/gm;

test("Dawn's limit notices are kept off stderr unless LOOM_DEBUG is set, and nothing else is", () => {
  const openDevice = `
    import { webgpuDevice, webgpuUnavailableReason } from '@loom/codegen-wgsl';
    const device = await webgpuDevice();
    console.error(device ? 'device: ' + device.name : 'no device: ' + webgpuUnavailableReason());
    device?.destroy();
  `;
  const quiet = stderrOf(openDevice, { LOOM_DEBUG: '' });
  const debug = stderrOf(openDevice, { LOOM_DEBUG: '1' });
  assert.not.ok(quiet.includes('artificially reduced'), quiet);
  assert.is(quiet, debug.replace(LIMIT_NOTICE, ''));
});

test.run();
