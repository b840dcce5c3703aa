/**
 * The playground (examples/playground) in a real browser: Vite builds the page, a local
 * server serves it, and Debian's Chromium, headless and driven by playwright-core, runs two
 * kernels and a pointwise function on WebGPU — SwiftShader's, a GPU in software — through the
 * page's own buttons. The page compares each output with the CPU device's; this test reads both
 * devices' outputs and compares them again itself. Then the same page without WebGPU, whose
 * fallback must say so and still compute right on the CPU device.
 *
 * Screenshots: $TMPDIR/loom-playground/playground.png and playground-fallback.png.
 * Chromium comes from scripts/install-drivers.sh (Debian's `chromium`, at /usr/bin/chromium).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { TOLERANCE, type Comparison, type KernelCheck } from '../examples/playground/check.ts';
import { KERNELS } from '../examples/playground/presets.ts';
import { serveDirectory, type StaticServer } from './support/static-server.ts';

const CHROMIUM = '/usr/bin/chromium';

/**
 * What gives a headless Chromium 156 on a machine without a GPU a WebGPU adapter. Playwright
 * adds `--headless` (the new headless mode) and, as the tests run as root in CI, `--no-sandbox`.
 */
const CHROMIUM_FLAGS = [
  // WebGPU is behind this flag on Linux; it also lets a software adapter (SwiftShader) count
  // as one. Without it navigator.gpu.requestAdapter() resolves to null ("No available adapters").
  '--enable-unsafe-webgpu',
  // SwiftShader's Vulkan, inside Chromium, on every machine: not whatever GPU or Vulkan driver
  // (lavapipe, here) the machine has, so the results do not depend on the machine.
  '--use-webgpu-adapter=swiftshader',
];

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const screenshots = path.join(tmpdir(), 'loom-playground');

let built: string;
let server: StaticServer;
let browser: Browser;
let page: Page;

test.before(async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install it with 'sudo bash scripts/install-drivers.sh' (Debian's chromium)`);
  built = await mkdtemp(path.join(tmpdir(), 'loom-playground-build-'));
  await build({ configFile: path.join(root, 'examples/playground/vite.config.ts'), build: { outDir: built, emptyOutDir: true }, logLevel: 'warn' });
  server = await serveDirectory(built);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  page = await openPlayground();
  await mkdir(screenshots, { recursive: true });
});

test.after(async () => {
  await browser?.close();
  await server?.close();
  if (built) await rm(built, { recursive: true, force: true });
});

/** A new page on the playground, once it has looked for its GPU. */
async function openPlayground(options: { withoutWebGPU?: boolean } = {}): Promise<Page> {
  const opened = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  opened.on('pageerror', (error) => errors.push(error.message));
  if (options.withoutWebGPU) await opened.addInitScript('delete Navigator.prototype.gpu');
  await opened.goto(server.url);
  await opened.waitForFunction("'playground' in window", undefined, { timeout: 20_000 }).catch(() => {
    throw new Error(`the page did not start: ${errors.join('; ') || 'no error reported'}`);
  });
  return opened;
}

// What runs in the page is given as text: this program is type-checked without the DOM's types.

/** Clicks `button` and waits for `result` to say how it went; the page's error text when it failed. */
async function clickAndWait(on: Page, button: string, result: string, errorBox: string): Promise<void> {
  await on.click(button);
  await on.waitForSelector(`#${result}:is([data-state=ok], [data-state=mismatch], [data-state=error])`, { timeout: 60_000 });
  const state = await on.getAttribute(`#${result}`, 'data-state');
  if (state === 'error') assert.unreachable(`the page reports an error: ${await on.textContent(errorBox)}`);
}

/** The outputs of both devices agree element by element (floats within the tolerance). */
function assertAgree(comparisons: readonly Comparison[] | undefined): void {
  assert.ok(comparisons && comparisons.length > 0, 'no outputs');
  for (const { name, gpu, cpu } of comparisons) {
    assert.ok(cpu.length > 0, `${name} is empty`);
    assert.is(gpu.length, cpu.length, `${name}: the GPU's output has ${gpu.length} elements, the CPU's ${cpu.length}`);
    cpu.forEach((c, k) => {
      if (Math.abs(gpu[k] - c) > TOLERANCE * Math.max(1, Math.abs(c))) assert.unreachable(`${name}[${k}]: GPU ${gpu[k]}, CPU ${c}`);
    });
  }
}

test('the page finds WebGPU: SwiftShader, in headless Chromium', async () => {
  assert.is(await page.getAttribute('#device', 'class'), 'ok');
  const banner = (await page.textContent('#device')) ?? '';
  assert.match(banner, /^Running on WebGPU \(.*swiftshader.*\)/i, banner);
});

for (const name of Object.keys(KERNELS)) {
  test(`kernel '${name}': WebGPU's outputs are the CPU device's, element by element`, async () => {
    await page.selectOption('#preset', name);
    await clickAndWait(page, '#run-kernel', 'kernel-result', '#kernel-error');
    const check: KernelCheck = await page.evaluate('window.playground.kernel');
    assertAgree(check.comparisons);
    assert.is(await page.getAttribute('#kernel-result', 'data-state'), 'ok');
    assert.match((await page.textContent('#kernel-result')) ?? '', /elements match/);
    assert.match((await page.textContent('#wgsl')) ?? '', '@compute');
    assert.match((await page.textContent('#opencl')) ?? '', '__kernel');
  });
}

test("pointwise: the arrow function's outputs agree on WebGPU and the CPU device", async () => {
  await clickAndWait(page, '#run-pointwise', 'pointwise-result', '#pointwise-error');
  assertAgree(await page.evaluate<Comparison[]>('window.playground.pointwise'));
  assert.is(await page.getAttribute('#pointwise-result', 'data-state'), 'ok');
  assert.match((await page.textContent('#pointwise-code')) ?? '', '@compute');
  await page.screenshot({ path: path.join(screenshots, 'playground.png'), fullPage: true });
});

test('mistakes show as LoomErrors with their caret, in the chain and in the instructions', async () => {
  await page.selectOption('#preset', Object.keys(KERNELS)[0]);
  await page.fill('#chain', ".split('i', 128)\n.splt('i_inner', 4)");
  assert.ok(await page.isVisible('#kernel-error'));
  const inChain = (await page.textContent('#kernel-error')) ?? '';
  assert.match(inChain, "LoomError: 'splt' is not a transformation", inChain);
  assert.match(inChain, /\.splt\('i_inner', 4\)\n\s*\^\^\^\^/, inChain);

  await page.fill('#chain', ".dtypes({ a: 'float32' })");
  assert.not.ok(await page.isVisible('#kernel-error'), 'the error stays after the chain was mended');
  await page.fill('#instructions', 'out[i] = 2*a[i] + @');
  const inInstructions = (await page.textContent('#kernel-error')) ?? '';
  assert.match(inInstructions, /^LoomError: .*'@'/, inInstructions);
  assert.match(inInstructions, /out\[i\] = 2\*a\[i\] \+ @\n\s*\^$/, inInstructions);
});

test('without WebGPU the page says so, and the CPU device still computes', async () => {
  const fallback = await openPlayground({ withoutWebGPU: true });
  assert.is(await fallback.getAttribute('#device', 'class'), 'fallback');
  assert.match((await fallback.textContent('#device')) ?? '', 'WebGPU is not available here');
  await fallback.selectOption('#preset', Object.keys(KERNELS)[0]);
  await clickAndWait(fallback, '#run-kernel', 'kernel-result', '#kernel-error');
  const { inputs, comparisons }: KernelCheck = await fallback.evaluate('window.playground.kernel');
  const a = inputs.a as number[];
  const out = comparisons.find((c) => c.name === 'out');
  assert.is(out?.cpu.length, inputs.n);
  assert.is(out?.gpu.length, 0, 'no GPU ran');
  out?.cpu.forEach((value, k) => assert.ok(Math.abs(value - (2 * a[k] + 1)) <= 1e-6, `out[${k}] = ${value}, not 2*${a[k]} + 1`));
  assert.match((await fallback.textContent('#kernel-result')) ?? '', 'on the CPU device (no GPU to compare with)');
  await fallback.screenshot({ path: path.join(screenshots, 'playground-fallback.png'), fullPage: true });
  await fallback.close();
});

test.run();
