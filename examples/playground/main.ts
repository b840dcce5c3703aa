/**
 * The playground page, put together: three tabs (a kernel field by field, a pointwise
 * function, a library computation; kernel-tab.ts, other-tabs.ts), CodeMirror editors
 * (editor.ts, loaded as a chunk of its own while the page looks for its GPU), and the
 * whole state in the URL's hash (url-state.ts): every edit rewrites the hash, "Share"
 * copies the link, and opening a link restores exactly that state. A hash that cannot be
 * read says why and the page opens with its default state.
 *
 * Results are in `window.playground` for the end-to-end test (test/playground-browser.test.ts).
 */
import { cpuDevice } from '@loom/codegen-js';
import { webgpuDevice, webgpuUnavailableReason, type WebGPUDevice } from '@loom/codegen-wgsl';
import type { Devices } from './check.ts';
import { DEFAULT_COMPUTATION, DTYPES, OPERATIONS, PREDICATES } from './computation-check.ts';
import { KernelTab } from './kernel-tab.ts';
import { ComputationTab, PointwiseTab } from './other-tabs.ts';
import type { CodeEditor } from './editor.ts';
import { graphPane } from './graph-pane.ts';
import { CodePane, element, firstLine } from './page.ts';
import { KERNELS, POINTWISE } from './presets.ts';
import { decodeState, encodeState, TABS, type PageState, type Tab } from './url-state.ts';

const [gpu, { createEditor }] = await Promise.all([webgpuDevice(), import('./editor.ts')]);
const devices: Devices = { cpu: cpuDevice(), gpu };
showDevice(gpu);

const firstPreset = Object.keys(KERNELS)[0];
const DEFAULT_STATE: PageState = {
  tab: 'kernel',
  preset: firstPreset,
  ...KERNELS[firstPreset],
  ...POINTWISE,
  computation: DEFAULT_COMPUTATION,
};
const initial = await stateFromHash();

// ---- editors and panes ----

/** Every editor and code pane by its element's id, for `window.playground.text`. */
const editors: Record<string, CodeEditor> = {};
window.playground = {
  device: gpu ? gpu.name : 'cpu',
  ready: false,
  text: (id) => (Object.hasOwn(editors, id) ? editors[id].value() : ''),
};

let restoring = true;
const edited = (tab: () => { changed(): void }) => () => {
  if (restoring) return;
  tab().changed();
  saveState();
};
const editor = (
  id: string,
  text: string,
  language: 'loom' | 'javascript',
  label: string,
  tab: () => { changed(): void },
) => {
  editors[id] = createEditor(element(id), text, { language, label, onChange: edited(tab) });
  return editors[id];
};
const pane = (id: string, language: 'loom' | 'wgsl' | 'opencl' | 'javascript', label: string) => {
  editors[id] = createEditor(element(id), '', { language, readOnly: true, label });
  return new CodePane(editors[id], element(`${id}-why`));
};

const kernelFields = {
  domain: editor('domain', initial.domain, 'loom', 'Domain (ISL)', () => kernelTab),
  instructions: editor('instructions', initial.instructions, 'loom', 'Instructions', () => kernelTab),
  chain: editor('chain', initial.chain, 'javascript', 'Transformations', () => kernelTab),
  values: editor('values', initial.values, 'javascript', 'Value arguments', () => kernelTab),
};
const kernelTab = new KernelTab(
  kernelFields,
  {
    view: pane('kernel-view', 'loom', 'Kernel'),
    wgsl: pane('wgsl', 'wgsl', 'WGSL'),
    opencl: pane('opencl', 'opencl', 'OpenCL C'),
    graph: graphPane(),
  },
  devices,
);

const pointwiseFields = {
  payload: editor('payload', initial.payload, 'javascript', 'Payload', () => pointwiseTab),
  shape: editor('shape', initial.shape, 'javascript', 'Shape', () => pointwiseTab),
};
const pointwiseTab = new PointwiseTab(pointwiseFields, pane('pointwise-code', 'wgsl', 'Generated kernel'), devices);

const sizes = editor('sizes', initial.computation.sizes, 'javascript', 'Sizes', () => computationTab);
const choices = { op: OPERATIONS, predicate: PREDICATES, dtype: DTYPES } as const;
for (const [name, options] of Object.entries(choices)) {
  const select = element<HTMLSelectElement>(`computation-${name}`);
  select.append(...options.map((o) => new Option(o, o)));
  select.addEventListener(
    'change',
    edited(() => computationTab),
  );
}
const computationInputs = () => ({
  op: element<HTMLSelectElement>('computation-op').value,
  predicate: element<HTMLSelectElement>('computation-predicate').value,
  dtype: element<HTMLSelectElement>('computation-dtype').value,
  sizes: sizes.value(),
});
const computationTab = new ComputationTab(
  computationInputs,
  pane('computation-code', devices.gpu ? 'wgsl' : 'javascript', 'Kernels'),
  devices,
);

const presets = element<HTMLSelectElement>('preset');
presets.append(...Object.keys(KERNELS).map((name) => new Option(name, name)));
presets.addEventListener('change', () => {
  const preset = KERNELS[presets.value];
  restoring = true;
  for (const id of ['domain', 'instructions', 'chain', 'values'] as const) kernelFields[id].set(preset[id]);
  restoring = false;
  kernelTab.changed();
  saveState();
});

for (const button of document.querySelectorAll<HTMLButtonElement>('[role=tab]'))
  button.addEventListener('click', () => selectTab(button.dataset.tab as Tab));
element('share').addEventListener('click', () => void share());

// ---- the initial state ----

presets.value = initial.preset;
for (const [name, value] of Object.entries(initial.computation))
  if (name !== 'sizes') element<HTMLSelectElement>(`computation-${name}`).value = value;
selectTab(initial.tab, false);
kernelTab.changed();
restoring = false;
window.playground.ready = true;

// ---- the state in the URL ----

function currentState(): PageState {
  const tab = (document.querySelector('[role=tab][aria-selected=true]') as HTMLElement).dataset.tab as Tab;
  return {
    tab,
    preset: presets.value,
    domain: kernelFields.domain.value(),
    instructions: kernelFields.instructions.value(),
    chain: kernelFields.chain.value(),
    values: kernelFields.values.value(),
    payload: pointwiseFields.payload.value(),
    shape: pointwiseFields.shape.value(),
    computation: computationInputs(),
  };
}

/** The hash follows every edit (replaced, not pushed: Back leaves the page as before). */
let saving: Promise<void> = Promise.resolve();
function saveState(): void {
  saving = saving.then(async () => history.replaceState(null, '', await encodeState(currentState())));
}

async function share(): Promise<void> {
  saveState();
  await saving;
  const link = element<HTMLInputElement>('share-link');
  link.value = location.href;
  link.hidden = false;
  const status = element('share-status');
  try {
    await navigator.clipboard.writeText(location.href);
    status.textContent = 'Link copied: it opens the playground exactly as it is now.';
  } catch {
    link.select();
    status.textContent = 'Copy this link: it opens the playground exactly as it is now.';
  }
}

/** The state of the URL's hash, or the default one (saying why where the hash has one that cannot be read). */
async function stateFromHash(): Promise<PageState> {
  if (location.hash.length <= 1) return DEFAULT_STATE;
  try {
    const state = await decodeState(location.hash);
    if (!Object.hasOwn(KERNELS, state.preset))
      throw new Error(`the link's preset '${state.preset}' is not one of this playground's`);
    return state;
  } catch (error) {
    const message = element('link-message');
    message.textContent = `This link's state could not be read (${firstLine(error)}). The playground opens with its default kernel.`;
    message.hidden = false;
    history.replaceState(null, '', location.pathname + location.search);
    return DEFAULT_STATE;
  }
}

function selectTab(tab: Tab, save = true): void {
  for (const t of TABS) {
    element(`tab-${t}`).setAttribute('aria-selected', String(t === tab));
    element(`panel-${t}`).hidden = t !== tab;
  }
  if (save) saveState();
}

function showDevice(gpu: WebGPUDevice | undefined): void {
  const banner = element('device');
  const { vendor, architecture, isFallbackAdapter } = gpu?.adapterInfo ?? {};
  const adapter = [vendor, architecture].filter(Boolean).join(' ') + (isFallbackAdapter ? ', a GPU in software' : '');
  banner.textContent = gpu
    ? `Running on WebGPU (${adapter}), checked against the CPU device element by element.`
    : `WebGPU is not available here: ${webgpuUnavailableReason()}. Running on the CPU device alone.`;
  banner.className = gpu ? 'ok' : 'fallback';
  if (!gpu) for (const button of document.querySelectorAll('button.run')) button.textContent = 'Run on the CPU device';
}
