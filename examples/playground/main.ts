/**
 * The playground page: a kernel edited field by field (domain, instructions, a chain of
 * transformations), its kernel view, WGSL and OpenCL C side by side, and a run on the GPU
 * (WebGPU, `navigator.gpu`) checked against the CPU device element by element; then the
 * same for a pointwise function typed as an arrow function.
 *
 * Every result is also put in `window.playground`, for the end-to-end test (test/playground-browser.test.ts).
 */
import { cpuDevice } from '@loom/codegen-js';
import { openclTarget } from '@loom/codegen-opencl';
import { webgpuDevice, webgpuUnavailableReason, wgslTarget, type WebGPUDevice } from '@loom/codegen-wgsl';
import { kernel } from '@loom/dsl';
import { applyChain, parseLiteral, type Builder } from './chain.ts';
import { checkKernel, checkPointwise, TOLERANCE, type Comparison, type Devices, type KernelCheck } from './check.ts';
import { KERNELS, POINTWISE } from './presets.ts';

/** What the page last computed, for tests and for the curious (open the console). */
interface PlaygroundState {
  device: string;
  kernel?: KernelCheck;
  pointwise?: readonly Comparison[];
}
declare global {
  interface Window {
    playground: PlaygroundState;
  }
}

const element = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
const field = (id: string): string => element<HTMLInputElement | HTMLTextAreaElement>(id).value;

const gpu = await webgpuDevice();
const devices: Devices = { cpu: cpuDevice(), gpu };
window.playground = { device: gpu ? gpu.name : 'cpu' };
showDevice(gpu);

// ---- the kernel ----

const presets = element<HTMLSelectElement>('preset');
presets.append(...Object.keys(KERNELS).map((name) => new Option(name, name)));
presets.addEventListener('change', () => loadPreset(presets.value));
for (const id of ['domain', 'instructions', 'chain']) element(id).addEventListener('input', () => showKernel());
element('run-kernel').addEventListener('click', () => void runKernel());
loadPreset(presets.value);

function loadPreset(name: string): void {
  const preset = KERNELS[name];
  for (const id of ['domain', 'instructions', 'chain', 'values'] as const) element<HTMLInputElement>(id).value = preset[id];
  showKernel();
  element('kernel-result').replaceChildren();
}

/** The kernel the fields describe (a LoomError, with its caret, where they describe none). */
function fieldsKernel(): Builder {
  return applyChain(kernel(field('domain') as string, field('instructions') as string), field('chain'));
}

function showKernel(): void {
  const builder = attempt('kernel-error', fieldsKernel);
  element('kernel-view').textContent = builder?.toString() ?? '';
  const code = builder && attempt('kernel-error', () => ({ wgsl: builder.code(wgslTarget()), opencl: builder.code(openclTarget()) }));
  element('wgsl').textContent = code?.wgsl ?? '';
  element('opencl').textContent = code?.opencl ?? '';
}

async function runKernel(): Promise<void> {
  element('kernel-result').dataset.state = 'running';
  const check = await attemptAsync('kernel-error', () => checkKernel(fieldsKernel(), parseLiteral(field('values')) as Record<string, number>, devices));
  window.playground.kernel = check;
  showComparisons('kernel-result', check?.comparisons);
}

// ---- the pointwise function ----

element<HTMLInputElement>('payload').value = POINTWISE.payload;
element<HTMLInputElement>('shape').value = POINTWISE.shape;
element('run-pointwise').addEventListener('click', () => void runPointwise());

async function runPointwise(): Promise<void> {
  element('pointwise-result').dataset.state = 'running';
  const result = await attemptAsync('pointwise-error', () => checkPointwise(field('payload'), parseLiteral(field('shape')) as number[], devices));
  element('pointwise-code').textContent = result?.code ?? '';
  window.playground.pointwise = result?.comparisons;
  showComparisons('pointwise-result', result?.comparisons);
}

// ---- showing results ----

function showDevice(gpu: WebGPUDevice | undefined): void {
  const banner = element('device');
  const { vendor, architecture, isFallbackAdapter } = gpu?.adapterInfo ?? {};
  const adapter = [vendor, architecture].filter(Boolean).join(' ') + (isFallbackAdapter ? ', a GPU in software' : '');
  banner.textContent = gpu
    ? `Running on WebGPU (${adapter}), checked against the CPU device element by element.`
    : `WebGPU is not available here: ${webgpuUnavailableReason()}. Running on the CPU device alone.`;
  banner.className = gpu ? 'ok' : 'fallback';
  if (!gpu) for (const button of document.querySelectorAll('button')) button.textContent = 'Run on the CPU device';
}

/** One line per output: how many elements, how many differ, and the first few of each device. */
function showComparisons(id: string, comparisons: readonly Comparison[] | undefined): void {
  const target = element(id);
  target.replaceChildren();
  target.dataset.state = !comparisons ? 'error' : comparisons.some((c) => c.mismatches.length > 0) ? 'mismatch' : 'ok';
  for (const c of comparisons ?? []) {
    const line = document.createElement('p');
    const first = (values: readonly number[]) =>
      values
        .slice(0, 4)
        .map((v) => v.toPrecision(5))
        .join(', ');
    const verdict = !devices.gpu
      ? `${c.cpu.length} elements on the CPU device (no GPU to compare with)`
      : c.mismatches.length === 0
        ? `${c.cpu.length} of ${c.cpu.length} elements match (within ${TOLERANCE})`
        : `${c.mismatches.length} of ${c.cpu.length} elements differ, the first at index ${c.mismatches[0]}: GPU ${c.gpu[c.mismatches[0]]}, CPU ${c.cpu[c.mismatches[0]]}`;
    line.textContent = `${c.name}: ${verdict} — ${devices.gpu ? `GPU [${first(c.gpu)}…], ` : ''}CPU [${first(c.cpu)}…]`;
    line.className = c.mismatches.length === 0 ? 'ok' : 'mismatch';
    target.append(line);
  }
}

/** `action`'s value; or undefined, with its error shown in the <pre> `errorId` (a LoomError's message ends with its caret). */
function attempt<T>(errorId: string, action: () => T): T | undefined {
  const shown = element(errorId);
  try {
    const value = action();
    shown.hidden = true;
    return value;
  } catch (error) {
    showError(shown, error);
    return undefined;
  }
}

async function attemptAsync<T>(errorId: string, action: () => Promise<T>): Promise<T | undefined> {
  const shown = element(errorId);
  try {
    const value = await action();
    shown.hidden = true;
    return value;
  } catch (error) {
    showError(shown, error);
    return undefined;
  }
}

function showError(shown: HTMLElement, error: unknown): void {
  shown.textContent = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  shown.hidden = false;
}
