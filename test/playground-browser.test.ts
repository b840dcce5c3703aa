/**
 * The playground (examples/playground) in a real browser: Vite builds the page, a local
 * server serves it, and Debian's Chromium, headless and driven by playwright-core, runs two
 * kernels and a pointwise function on WebGPU — SwiftShader's, a GPU in software — through the
 * page's own buttons. The page compares each output with the CPU device's; this test reads both
 * devices' outputs and compares them again itself. Then the same page without WebGPU, whose
 * fallback must say so and still compute right on the CPU device.
 *
 * Also: typing into the CodeMirror editors, a shared link opened in a fresh page, timings
 * and statistics, the computation tab, results never stale beside an error, blank code
 * panes that say why, a malformed link, and the page at a phone's width (390 px).
 *
 * Screenshots (checked not blank): $TMPDIR/loom-playground/playground*.png.
 * Chromium comes from scripts/install-drivers.sh (Debian's `chromium`, at /usr/bin/chromium).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { TOLERANCE, type Comparison, type KernelCheck } from '../examples/playground/check.ts';
import type { ComputationCheck } from '../examples/playground/computation-check.ts';
import type { KernelStatistics } from '../examples/playground/stats.ts';
import { KERNELS } from '../examples/playground/presets.ts';
import { decodePng, pixelVariance } from './support/png.ts';
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
  assert.ok(
    existsSync(CHROMIUM),
    `${CHROMIUM} is missing: install it with 'sudo bash scripts/install-drivers.sh' (Debian's chromium)`,
  );
  built = await mkdtemp(path.join(tmpdir(), 'loom-playground-build-'));
  await build({
    configFile: path.join(root, 'examples/playground/vite.config.ts'),
    build: { outDir: built, emptyOutDir: true },
    logLevel: 'warn',
  });
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

/** A new page on the playground (at `hash`, if given), once it has restored its state and shown its kernel. */
async function openPlayground(options: { withoutWebGPU?: boolean; hash?: string; width?: number } = {}): Promise<Page> {
  const opened = await browser.newPage({ viewport: { width: options.width ?? 1400, height: 1000 } });
  const errors: string[] = [];
  opened.on('pageerror', (error) => errors.push(error.message));
  if (options.withoutWebGPU) await opened.addInitScript('delete Navigator.prototype.gpu');
  await opened.goto(server.url + (options.hash ?? ''));
  await opened.waitForFunction('window.playground?.ready === true', undefined, { timeout: 20_000 }).catch(() => {
    throw new Error(`the page did not start: ${errors.join('; ') || 'no error reported'}`);
  });
  return opened;
}

// What runs in the page is given as text: this program is type-checked without the DOM's types.

/** The whole text of an editor or code pane (CodeMirror draws only the lines in view). */
const textOf = (on: Page, id: string): Promise<string> => on.evaluate(`window.playground.text(${JSON.stringify(id)})`);

/** Types `text` into the CodeMirror editor `id` in place of what it holds, as a user would. */
async function typeInto(on: Page, id: string, text: string): Promise<void> {
  await on.click(`#${id} .cm-content`);
  await on.keyboard.press('ControlOrMeta+A');
  await on.keyboard.press('Backspace');
  await on.keyboard.type(text);
  assert.is(await textOf(on, id), text, `the editor ${id} holds what was typed`);
}

/** Clicks `button` and waits for `result` to say how it went; the page's error text when it failed. */
async function clickAndWait(on: Page, button: string, result: string, errorBox: string): Promise<void> {
  await on.click(button);
  await on.waitForSelector(`#${result}:is([data-state=ok], [data-state=mismatch], [data-state=error])`, {
    timeout: 60_000,
  });
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
      if (Math.abs(gpu[k] - c) > TOLERANCE * Math.max(1, Math.abs(c)))
        assert.unreachable(`${name}[${k}]: GPU ${gpu[k]}, CPU ${c}`);
    });
  }
}

/** A full-page screenshot, saved, that is not blank (its pixels vary). */
async function screenshot(on: Page, name: string): Promise<void> {
  const file = path.join(screenshots, `${name}.png`);
  await on.screenshot({ path: file, fullPage: true });
  const image = decodePng(await readFile(file));
  const variance = pixelVariance(image);
  assert.ok(
    variance > 100,
    `${name}.png (${image.width}x${image.height}) is nearly blank: grey-level variance ${variance}`,
  );
}

/** Nothing on the page is wider than the window: no horizontal scrolling. */
async function assertNoHorizontalOverflow(on: Page, what: string): Promise<void> {
  const { scrollWidth, clientWidth } = await on.evaluate<{ scrollWidth: number; clientWidth: number }>(
    '({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth })',
  );
  assert.ok(scrollWidth <= clientWidth, `${what}: the page is ${scrollWidth} px wide in a window of ${clientWidth} px`);
}

test('the page finds WebGPU: SwiftShader, in headless Chromium', async () => {
  assert.is(await page.getAttribute('#device', 'class'), 'ok');
  const banner = (await page.textContent('#device')) ?? '';
  assert.match(banner, /^Running on WebGPU \(.*swiftshader.*\)/i, banner);
});

for (const name of Object.keys(KERNELS)) {
  test(`kernel '${name}': WebGPU's outputs are the CPU device's; its time, counts and roofline point`, async () => {
    await page.selectOption('#preset', name);
    await clickAndWait(page, '#run-kernel', 'kernel-result', '#kernel-error');
    const check: KernelCheck = await page.evaluate('window.playground.kernel');
    assertAgree(check.comparisons);
    assert.is(await page.getAttribute('#kernel-result', 'data-state'), 'ok');
    assert.match((await page.textContent('#kernel-result')) ?? '', /elements match/);
    assert.match(await textOf(page, 'wgsl'), '@compute');
    assert.match(await textOf(page, 'opencl'), '__kernel');

    await page.waitForSelector('#kernel-stats:is([data-state=ok], [data-state=error])', { timeout: 60_000 });
    assert.is(
      await page.getAttribute('#kernel-stats', 'data-state'),
      'ok',
      (await page.textContent('#kernel-stats')) ?? '',
    );
    const stats: KernelStatistics = await page.evaluate('window.playground.stats');
    for (const key of ['seconds', 'flops', 'bytes', 'intensity'] as const) {
      assert.ok(Number.isFinite(stats[key]) && stats[key] > 0, `${key}: ${stats[key]}`);
    }
    assert.ok(stats.profile.bandwidth > 0 && stats.profile.flopRate > 0, 'a measured roofline');
    assert.match(stats.opMap, 'Op(');
    assert.match(stats.memAccessMap, 'MemAccess(');
    assert.match((await page.textContent('[data-stat=time]')) ?? '', /\d+(\.\d+)? (ms|µs) per launch/);
    assert.match((await page.textContent('[data-stat=time]')) ?? '', 'median of 5');
    assert.ok(await page.isVisible('#kernel-stats svg circle[data-point=measured]'), 'the kernel on the roofline');
  });
}

test("pointwise: the arrow function's outputs agree on WebGPU and the CPU device", async () => {
  await page.click('#tab-pointwise');
  await typeInto(page, 'payload', '(x, y) => x * y + Math.cos(x)');
  await clickAndWait(page, '#run-pointwise', 'pointwise-result', '#pointwise-error');
  assertAgree(await page.evaluate<Comparison[]>('window.playground.pointwise'));
  assert.is(await page.getAttribute('#pointwise-result', 'data-state'), 'ok');
  assert.match(await textOf(page, 'pointwise-code'), '@compute');
  await screenshot(page, 'playground-pointwise');
});

for (const [op, dtype, predicate, sizes] of [
  ['scan', 'int32', 'sum', '[3, 700]'],
  ['reduce', 'float32', 'max', '[5, 300]'],
  ['matmul', 'float32', 'sum', '[40, 24, 32]'],
] as const) {
  test(`computation tab: ${op} (${dtype}) on WebGPU and the CPU device matches plain JavaScript`, async () => {
    await page.click('#tab-computation');
    await page.selectOption('#computation-op', op);
    await page.selectOption('#computation-dtype', dtype);
    await page.selectOption('#computation-predicate', predicate);
    await typeInto(page, 'sizes', sizes);
    await clickAndWait(page, '#run-computation', 'computation-result', '#computation-error');
    const check: ComputationCheck = await page.evaluate('window.playground.computation');
    assert.is(check.checks.length, 2, 'the GPU and the CPU device');
    for (const c of check.checks) {
      assert.ok(
        c.reference.length > 0 && c.output.length === c.reference.length,
        `${c.device}: ${c.output.length} elements, ${c.reference.length} expected`,
      );
      assert.is(c.mismatches.length, 0, `${c.device}: ${c.mismatches.length} elements differ`);
    }
    assert.is(await page.getAttribute('#computation-result', 'data-state'), 'ok');
    assert.match(await textOf(page, 'computation-code'), '@compute');
  });
}

test('auto-schedule: the chain found on WebGPU is measured, appended to the chain, and the kernel it makes agrees with the CPU device', async () => {
  await page.click('#tab-kernel');
  await page.selectOption('#preset', Object.keys(KERNELS)[0]);
  // the kernel as written, untransformed: the search starts from it
  await typeInto(page, 'chain', ".dtypes({ a: 'float32' })");
  await clickAndWait(page, '#auto-schedule', 'kernel-auto', '#kernel-error');
  const found: { script: string; measured: { script: string; seconds?: number }[] } = await page.evaluate(
    'window.playground.autoSchedule',
  );
  assert.ok(found.measured.length > 0, 'candidates were measured');
  assert.ok(
    found.measured.some((m) => m.seconds !== undefined && m.seconds > 0),
    JSON.stringify(found.measured),
  );
  if (found.script) {
    assert.match((await page.textContent('#kernel-auto pre')) ?? '', found.script);
    await page.click('#append-schedule');
    assert.is(await textOf(page, 'chain'), `.dtypes({ a: 'float32' })\n${found.script}`);
    assert.is(await page.evaluate('window.playground.autoSchedule'), undefined, 'the search belongs to the old kernel');
  }
  await clickAndWait(page, '#run-kernel', 'kernel-result', '#kernel-error');
  const check: KernelCheck = await page.evaluate('window.playground.kernel');
  assertAgree(check.comparisons);
});

test('mistakes show as LoomErrors with their caret, in the chain and in the instructions', async () => {
  await page.click('#tab-kernel');
  await page.selectOption('#preset', Object.keys(KERNELS)[0]);
  await typeInto(page, 'chain', ".split('i', 128) .splt('i_inner', 4)");
  assert.ok(await page.isVisible('#kernel-error'));
  const inChain = (await page.textContent('#kernel-error')) ?? '';
  assert.match(inChain, "LoomError: 'splt' is not a transformation", inChain);
  assert.match(inChain, /\.split\('i', 128\) \.splt\('i_inner', 4\)\n\s*\^\^\^\^/, inChain);

  await typeInto(page, 'chain', ".dtypes({ a: 'float32' })");
  assert.not.ok(await page.isVisible('#kernel-error'), 'the error stays after the chain was mended');
  await typeInto(page, 'instructions', 'out[i] = 2*a[i] + @');
  const inInstructions = (await page.textContent('#kernel-error')) ?? '';
  assert.match(inInstructions, /^LoomError: .*'@'/, inInstructions);
  assert.match(inInstructions, /out\[i\] = 2\*a\[i\] \+ @\n\s*\^$/, inInstructions);
});

test("the dependency graph: the kernel's instructions, dependencies and loops, redrawn as you type; blank, saying why, on an error", async () => {
  await page.click('#tab-kernel');
  await page.selectOption('#preset', Object.keys(KERNELS)[0]);
  await typeInto(page, 'chain', ".dtypes({ a: 'float32' })");
  await typeInto(page, 'instructions', '<float32> t = 2*a[i] {id=scale}\nout[i] = t + 1 {id=store}');
  await page.waitForFunction('window.playground.graph?.dot.includes(\'"scale" -> "store"\')', undefined, {
    timeout: 30_000,
  });
  const graph: { dot: string; note?: string } = await page.evaluate('window.playground.graph');
  assert.match(graph.dot, 'subgraph "cluster_i" { label="i"');
  assert.is(graph.note, undefined, 'the loops are drawn');
  assert.is(await page.getAttribute('#kernel-graph', 'data-state'), 'ok');
  const titles = (kind: string): Promise<string[]> =>
    page.$$eval(`#kernel-graph svg g.${kind} > title`, (ts) => ts.map((t) => t.textContent ?? ''));
  assert.equal((await titles('node')).sort(), ['scale', 'store'], 'a node per instruction');
  assert.equal(await titles('edge'), ['scale->store'], 'an edge per dependency');
  assert.equal(await titles('cluster'), ['cluster_i'], 'a box for the loop');
  assert.match((await page.textContent('#kernel-graph')) ?? '', 't <- 2*a[i]');
  await screenshot(page, 'playground-graph');

  // an error: the graph goes, and the pane says why
  await typeInto(page, 'instructions', 'out[i] = 2*a[i] + @');
  await page.waitForSelector('#kernel-graph[data-state=blank]', { state: 'attached' });
  assert.is(await page.$$eval('#kernel-graph svg', (svgs) => svgs.length), 0);
  assert.match((await page.textContent('#kernel-graph-why')) ?? '', 'the kernel has an error: ');
  assert.is(await page.evaluate('window.playground.graph'), undefined);
});

test('nothing stale: a domain error clears the last run; the error stays after Run; blank panes say why', async () => {
  await page.selectOption('#preset', Object.keys(KERNELS)[0]);
  await clickAndWait(page, '#run-kernel', 'kernel-result', '#kernel-error');
  await page.waitForSelector('#kernel-stats[data-state]', { timeout: 60_000 });
  await typeInto(page, 'domain', '{ [i]: 0<=i<n');
  const error = (await page.textContent('#kernel-error')) ?? '';
  assert.match(error, /^LoomError: /, error);
  assert.is(await page.textContent('#kernel-result'), '', 'no result beside the error');
  assert.is(await page.getAttribute('#kernel-result', 'data-state'), null);
  assert.is(await page.textContent('#kernel-stats'), '', 'no timings nor statistics beside the error');
  assert.is(await page.evaluate('window.playground.kernel'), undefined);
  for (const pane of ['kernel-view', 'wgsl', 'opencl']) {
    assert.ok(await page.isVisible(`#${pane}-why`), `the ${pane} pane says why it is blank`);
    assert.match((await page.textContent(`#${pane}-why`)) ?? '', 'the kernel has an error: ');
  }

  await page.click('#run-kernel');
  assert.is(await page.textContent('#kernel-error'), error, 'the error found while typing is still shown after Run');
  assert.ok(await page.isVisible('#kernel-error'));
  assert.is(await page.getAttribute('#kernel-result', 'data-state'), 'error');
  assert.match((await page.textContent('#kernel-result')) ?? '', 'Not run');

  // a kernel OpenCL can generate but WGSL cannot: the WGSL pane says why, the others show code
  await page.selectOption('#preset', Object.keys(KERNELS)[0]);
  await typeInto(page, 'chain', ".dtypes({ a: 'float64' })");
  assert.not.ok(await page.isVisible('#kernel-error'));
  assert.match(
    (await page.textContent('#wgsl-why')) ?? '',
    /WGSL cannot be generated for this kernel: .*WGSL has no 64-bit floats/,
  );
  assert.match(await textOf(page, 'opencl'), 'double');
  assert.not.ok(await page.isVisible('#opencl-why'));
});

test('a shared link opens the same kernel, tab and output in a fresh page; a malformed one falls back to the default', async () => {
  await page.click('#tab-kernel');
  await page.selectOption('#preset', Object.keys(KERNELS)[1]);
  await typeInto(page, 'values', '{ n: 32, m: 16, l: 48 }');
  await page.click('#share');
  await page.waitForSelector('#share-link:not([hidden])');
  const link = await page.inputValue('#share-link');
  assert.match(link, /#v1\.[A-Za-z0-9_-]+$/);

  const fresh = await openPlayground({ hash: new URL(link).hash });
  for (const id of ['domain', 'instructions', 'chain', 'values', 'wgsl', 'opencl', 'kernel-view'])
    assert.is(await textOf(fresh, id), await textOf(page, id), `${id} in the fresh page`);
  assert.is(await fresh.inputValue('#preset'), Object.keys(KERNELS)[1]);
  assert.is(await fresh.getAttribute('#tab-kernel', 'aria-selected'), 'true');
  await clickAndWait(fresh, '#run-kernel', 'kernel-result', '#kernel-error');
  const check: KernelCheck = await fresh.evaluate('window.playground.kernel');
  assertAgree(check.comparisons);
  assert.is(check.comparisons[0].cpu.length, 32 * 16, 'the output of the shared sizes');
  await fresh.close();

  const broken = await openPlayground({ hash: '#v1.not-a-state' });
  assert.ok(await broken.isVisible('#link-message'));
  assert.match(
    (await broken.textContent('#link-message')) ?? '',
    /could not be read \(the link's state is damaged.*default kernel/,
  );
  assert.is(await textOf(broken, 'domain'), KERNELS[Object.keys(KERNELS)[0]].domain, 'the default state');
  assert.match(await textOf(broken, 'wgsl'), '@compute');
  await broken.close();
});

test('at a phone width (390 px) the panes stack and nothing overflows', async () => {
  const phone = await openPlayground({ width: 390 });
  await clickAndWait(phone, '#run-kernel', 'kernel-result', '#kernel-error');
  await phone.waitForSelector('#kernel-stats:is([data-state=ok], [data-state=error])', { timeout: 60_000 });
  await assertNoHorizontalOverflow(phone, 'the kernel tab');
  const [wgsl, opencl] = await Promise.all(['#wgsl', '#opencl'].map((id) => phone.locator(id).boundingBox()));
  assert.ok(wgsl && opencl && opencl.y >= wgsl.y + wgsl.height, 'the code panes stack');
  await screenshot(phone, 'playground-phone');
  for (const tab of ['pointwise', 'computation']) {
    await phone.click(`#tab-${tab}`);
    await assertNoHorizontalOverflow(phone, `the ${tab} tab`);
  }
  await phone.close();
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
  out?.cpu.forEach((value, k) =>
    assert.ok(Math.abs(value - (2 * a[k] + 1)) <= 1e-6, `out[${k}] = ${value}, not 2*${a[k]} + 1`),
  );
  assert.match((await fallback.textContent('#kernel-result')) ?? '', 'on the CPU device (no GPU to compare with)');
  await screenshot(fallback, 'playground-fallback');
  await fallback.close();
});

test.run();
