/**
 * Loom installed as a user installs it: the packages are built, published to a private registry,
 * and installed into a fresh app outside this repository, which then runs on plain Node and
 * type-checks with plain tsc, and whose web page Vite bundles for browsers. The native drivers (webgpu, koffi) and ts-morph are optional peer
 * dependencies, so the install must not bring them; the devices that need them say so.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { npm, publishWorkspaces, startRegistry, useRegistryFor, type Registry } from './installed/registry.ts';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const directory = mkdtempSync(path.join(tmpdir(), 'loom-installed-'));
const app = path.join(directory, 'app');
let registry: Registry | undefined;

/** A command's output, for the message of a failed assertion. */
const output = (result: { stdout: string; stderr: string }) => `${result.stdout}\n${result.stderr}`.trim().slice(-3000);

// uvu does not report a failing hook, so the setup is the first test, and the others need it
test('the packages build, publish to a registry, and install into a fresh app', async () => {
  const build = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'],
    { cwd: root, encoding: 'utf8' },
  );
  assert.is(build.status, 0, `npm run build failed:\n${output(build)}`);
  registry = await startRegistry(directory);
  const published = publishWorkspaces(registry, root);
  assert.is(published.status, 0, `npm publish failed:\n${output(published)}`);
  cpSync(path.join(root, 'test/installed/app'), app, { recursive: true });
  useRegistryFor(app, registry);
  const installed = npm(
    [
      'install',
      '--prefer-offline',
      '@loom/dsl',
      '@loom/codegen-js',
      '@loom/codegen-opencl',
      '@loom/codegen-wgsl',
      '@loom/elementwise',
      '@loom/computation',
    ],
    app,
  );
  assert.is(installed.status, 0, `npm install failed:\n${output(installed)}`);
});

test.after(() => {
  registry?.stop();
  rmSync(directory, { recursive: true, force: true });
});

test('the install brings no native driver, no ts-morph and no Graphviz: they are optional peers', () => {
  assert.ok(existsSync(path.join(app, 'node_modules/@loom/dsl/dist/index.js')), '@loom/dsl is installed, built');
  assert.ok(existsSync(path.join(app, 'node_modules/@loom/core/dist/index.js')), '@loom/core comes with it');
  for (const optional of ['webgpu', 'koffi', 'ts-morph', '@hpcc-js/wasm-graphviz']) {
    assert.not.ok(existsSync(path.join(app, 'node_modules', optional)), `${optional} was installed`);
  }
  assert.not.ok(existsSync(path.join(app, 'node_modules/@loom/dsl/src')), 'the sources are not shipped');
  assert.ok(existsSync(path.join(app, 'node_modules/@loom/dsl/dist/graph/render-svg.js')), '@loom/dsl/graph is built');
});

test('every package installed carries the MIT licence: its LICENSE file and its "license" field', () => {
  const installed = readdirSync(path.join(app, 'node_modules/@loom'));
  assert.ok(installed.length >= 7, installed.join(', '));
  for (const name of installed) {
    const where = path.join(app, 'node_modules/@loom', name);
    assert.match(readFileSync(path.join(where, 'LICENSE'), 'utf8'), /^MIT License\n/, `@loom/${name}/LICENSE`);
    assert.is(JSON.parse(readFileSync(path.join(where, 'package.json'), 'utf8')).license, 'MIT', `@loom/${name}`);
  }
});

test('plain node runs a kernel on the CPU; the devices without their driver are undefined, their reasons name the package to install', () => {
  const run = spawnSync(process.execPath, ['app.mjs'], { cwd: app, encoding: 'utf8' });
  assert.is(run.status, 0, output(run));
  const found = JSON.parse(run.stdout);
  assert.equal(found.out, [3, 5, 7, 10]);
  assert.equal(found.scaled, [30, 50, 70, 100]);
  assert.equal(found.opencl.device, undefined);
  assert.match(found.opencl.reason, 'npm install koffi');
  assert.equal(found.webgpu.device, undefined);
  assert.match(found.webgpu.reason, 'npm install webgpu');
  assert.match(found.any, 'CPU');
});

test("the README's first example runs as pasted in a fresh app after the README's first install line, and prints what the README says", () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const install = /```sh\n(npm install [^\n#]*?)\s*(?:#[^\n]*)?\n/.exec(readme);
  const example = /## A first kernel\n\n```ts\n([\s\S]*?)\n```/.exec(readme);
  assert.ok(install && example, 'the README has an install line and a first example');
  const first = path.join(directory, 'first');
  mkdirSync(first);
  writeFileSync(path.join(first, 'package.json'), JSON.stringify({ name: 'first', private: true, type: 'module' }));
  useRegistryFor(first, registry!);
  const installed = npm([...install[1].trim().split(/\s+/).slice(1), '--prefer-offline'], first);
  assert.is(installed.status, 0, `${install[1]} failed:\n${output(installed)}`);
  // plain node, not tsx: the example is JavaScript as well as TypeScript, so it runs as pasted
  writeFileSync(path.join(first, 'first.mjs'), `${example[1]}\n`);
  const run = spawnSync(process.execPath, ['first.mjs'], {
    cwd: first,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  assert.is(run.status, 0, output(run));
  const said = example[1]
    .split('\n')
    .filter((line) => line.startsWith('// '))
    .map((line) => line.slice(3));
  assert.equal(run.stdout.trim().split('\n'), said);
});

test("the README's first install line brings no @loom/computation (an optional peer), and typegen works there without it", () => {
  const first = path.join(directory, 'first');
  assert.ok(
    existsSync(path.join(first, 'node_modules/@loom/dsl/dist/index.js')),
    'the previous test installed the first line',
  );
  assert.equal(readdirSync(path.join(first, 'node_modules/@loom')).sort(), ['codegen-js', 'core', 'dsl']);
  // ts-morph where `npm install --save-dev ts-morph` puts it, linked from this repository (it is
  // not in npm's cache here, and nothing else is asked of the network)
  symlinkSync(path.join(root, 'node_modules/ts-morph'), path.join(first, 'node_modules/ts-morph'), 'dir');
  const strict = {
    compilerOptions: {
      strict: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      noEmit: true,
      skipLibCheck: false,
    },
    include: ['*.ts'],
  };
  writeFileSync(path.join(first, 'tsconfig.json'), JSON.stringify(strict));
  writeFileSync(
    path.join(first, 'kernels.ts'),
    "import { domain, insn, kernel } from '@loom/dsl';\n\nexport const tripled = kernel(domain`{ [i]: 0<=i<n }`, insn`out[i] = 3*a[i]`, { name: 'tripled' });\n",
  );
  const loom = (...args: string[]) =>
    spawnSync(path.join(first, 'node_modules/.bin/loom'), args, { cwd: first, encoding: 'utf8' });
  const typegen = loom('typegen');
  assert.is(typegen.status, 0, output(typegen));
  assert.is(typegen.stdout, 'loom typegen: wrote kernels.loom.d.ts\n');
  assert.match(readFileSync(path.join(first, 'kernels.loom.d.ts'), 'utf8'), 'tripled');
  const check = loom('typegen', '--check');
  assert.is(check.status, 0, output(check));
  // the app and its declarations type-check (skipLibCheck off): @loom/dsl's declarations need no @loom/computation
  const tsc = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--pretty', 'false'],
    { cwd: first, encoding: 'utf8' },
  );
  assert.is(tsc.status, 0, output(tsc));
  // a file that makes a computation is told what to install
  writeFileSync(
    path.join(first, 'computations.ts'),
    "import { computation, type ComputationParam } from '@loom/computation';\n\nconst PARAMS: ComputationParam[] = [{ name: 'out', dtype: 'float32', shape: [4], role: 'o' }];\nexport const c = computation({ name: 'c', params: PARAMS, buildPlan() {} });\n",
  );
  const missing = loom('typegen');
  assert.is(missing.status, 1, output(missing));
  assert.match(
    missing.stderr,
    "error: computations.ts:4: computation 'c' is made with @loom/computation, which is not installed: npm install @loom/computation\n",
  );
  rmSync(path.join(first, 'computations.ts'));
});

for (const resolution of ['node16', 'bundler']) {
  test(`a strict TypeScript app type-checks against the declarations (moduleResolution ${resolution}), run's arguments typed`, () => {
    // app.ts has a @ts-expect-error on a wrong argument to run(): were run loosely typed, tsc would fail on it
    const tsc = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', `tsconfig.${resolution}.json`, '--pretty', 'false'],
      {
        cwd: app,
        encoding: 'utf8',
      },
    );
    assert.is(tsc.status, 0, output(tsc));
  });
}

test('Vite bundles a web page using @loom/dsl, @loom/codegen-wgsl and @loom/elementwise, with no configuration', () => {
  // this repository's Vite, run in the app's web/ folder: what it bundles comes from the app's node_modules
  const vite = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
    { cwd: path.join(app, 'web'), encoding: 'utf8' },
  );
  assert.is(vite.status, 0, output(vite));
  const assets = path.join(app, 'web/dist/assets');
  const bundle = readdirSync(assets)
    .filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(path.join(assets, f), 'utf8'))
    .join('\n');
  assert.match(bundle, 'navigator', 'the device looks for navigator.gpu');
  assert.not.match(
    bundle,
    /\b(?:from|import)\s*\(?\s*["'](?:webgpu|node:[\w/]+|module|fs|path|url|os)["']/,
    'Dawn or a Node module imported by the browser bundle',
  );
});

test('the loom command: --version from package.json, typegen asks for ts-morph, its help does not', () => {
  const loom = (...args: string[]) =>
    spawnSync(path.join(app, 'node_modules/.bin/loom'), args, { cwd: app, encoding: 'utf8' });
  const version = loom('--version');
  assert.is(version.status, 0, output(version));
  assert.is(
    version.stdout.trim(),
    JSON.parse(readFileSync(path.join(root, 'packages/dsl/package.json'), 'utf8')).version,
  );
  const typegen = loom('typegen');
  assert.is(typegen.status, 2, output(typegen));
  assert.match(typegen.stderr, 'npm install --save-dev ts-morph');
  // its help, and a mistyped option, need no ts-morph
  const help = loom('typegen', '--help');
  assert.is(help.status, 0, output(help));
  assert.match(help.stdout, /^usage: loom typegen /);
  const mistake = loom('typegen', '--chek');
  assert.is(mistake.status, 2, output(mistake));
  assert.match(mistake.stderr, /^loom typegen: unknown option '--chek' \(did you mean '--check'\?\)\n/);
});

test.run();
