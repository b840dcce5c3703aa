/**
 * `anyDevice()`: the best device this process can have, found at run time among the device
 * packages that are installed. Each device lives in its own optional package (OpenCL in
 * `@loom/codegen-opencl` with `koffi`, CUDA in `@loom/codegen-cuda` with `koffi`, WebGPU in
 * `@loom/codegen-wgsl` with `webgpu`, compiled C in `@loom/codegen-c` with `koffi` and a C compiler,
 * the CPU in `@loom/codegen-js`), so a program that imported them all would fail to start wherever one is
 * missing. This looks each one up by name instead, and a package or driver that is not there is
 * a reason to try the next one, never an error, until none is left.
 */
import { checkOptionKeys, isPackageNotFound, LoomError, optionKeys, type Device } from '@loom/core';

/** The kinds of device `anyDevice` knows, in its default order of preference. */
export type DeviceKind = 'opencl' | 'cuda' | 'webgpu' | 'c' | 'cpu';

/** Options of `anyDevice`: which kinds of device to try, in order. */
export interface AnyDeviceOptions {
  /** The kinds to try, in order (default: OpenCL, CUDA, WebGPU, compiled C, then the CPU's JavaScript). */
  readonly prefer?: readonly DeviceKind[];
}

const ANY_DEVICE_OPTIONS = optionKeys<AnyDeviceOptions>()(['prefer']);

/** How to ask one package for its device, and why there is none. */
interface DeviceSource {
  readonly label: string;
  readonly packageName: string;
  /** What to install with the package for this device to exist (its native driver package). */
  readonly alsoInstall: string;
  open(module: Record<string, unknown>): Promise<Device | string>;
}

const SOURCES: Record<DeviceKind, DeviceSource> = {
  opencl: {
    label: 'OpenCL',
    packageName: '@loom/codegen-opencl',
    alsoInstall: ' koffi',
    async open(m) {
      const device = (m.openclDevice as () => Device | undefined)();
      return device ?? (m.openclUnavailableReason as () => string)();
    },
  },
  cuda: {
    label: 'CUDA',
    packageName: '@loom/codegen-cuda',
    alsoInstall: ' koffi',
    async open(m) {
      const device = (m.cudaDevice as () => Device | undefined)();
      return device ?? (m.cudaUnavailableReason as () => string)();
    },
  },
  webgpu: {
    label: 'WebGPU',
    packageName: '@loom/codegen-wgsl',
    alsoInstall: ' webgpu',
    async open(m) {
      const device = await (m.webgpuDevice as () => Promise<Device | undefined>)();
      return device ?? (m.webgpuUnavailableReason as () => string)();
    },
  },
  c: {
    label: 'C',
    packageName: '@loom/codegen-c',
    alsoInstall: ' koffi',
    async open(m) {
      const device = (m.cDevice as () => Device | undefined)();
      return device ?? (m.cUnavailableReason as () => string)();
    },
  },
  cpu: {
    label: 'CPU',
    packageName: '@loom/codegen-js',
    alsoInstall: '',
    async open(m) {
      return (m.cpuDevice as () => Device)();
    },
  },
};

// OpenCL first: where both GPU APIs are there (NVIDIA), the benchmarks have OpenCL at or a little above CUDA
// (BENCHMARKS.md); compiled C before the CPU's JavaScript, which is a reference rather than a fast path
const DEFAULT_ORDER: readonly DeviceKind[] = ['opencl', 'cuda', 'webgpu', 'c', 'cpu'];

/**
 * The first device of `prefer` (by default OpenCL, CUDA, WebGPU, compiled C, the CPU's JavaScript) whose package is installed
 * and whose driver finds a device. It never fails for a missing package or driver; only when no
 * kind is left does it throw a `LoomError` that says, for each kind, why there was none and what
 * to install.
 *
 * In Node it finds the packages by name at run time. A browser bundle holds only what it
 * imports, so in a page call the devices directly: `(await webgpuDevice()) ?? cpuDevice()`.
 *
 * ```ts
 * import { anyDevice, f32, kernel } from '@loom/dsl';
 *
 * const device = await anyDevice();                          // OpenCL, CUDA, WebGPU, C or the CPU
 * const gpuOnly = await anyDevice({ prefer: ['cuda', 'webgpu', 'opencl'] }).catch(() => undefined);
 * const nativeCpu = await anyDevice({ prefer: ['c'] });     // gcc/cc with OpenMP
 * ```
 */
export async function anyDevice(options: AnyDeviceOptions = {}): Promise<Device> {
  checkOptionKeys('anyDevice', options, ANY_DEVICE_OPTIONS);
  const order = options.prefer ?? DEFAULT_ORDER;
  for (const kind of order)
    if (!(kind in SOURCES))
      throw new LoomError(`anyDevice: unknown device kind '${kind}' (known: ${DEFAULT_ORDER.join(', ')})`);
  if (order.length === 0) throw new LoomError('anyDevice: prefer lists no device kind');
  const reasons: string[] = [];
  for (const kind of order) {
    const source = SOURCES[kind];
    const found = await deviceFrom(source);
    if (typeof found !== 'string') return found;
    reasons.push(`${source.label}: ${found}`);
  }
  throw new LoomError(`no device found:\n  ${reasons.join('\n  ')}`);
}

/** The device of one kind (its package's, found by name), or why there is none. */
export function deviceOfKindOrReason(kind: DeviceKind): Promise<Device | string> {
  return deviceFrom(SOURCES[kind]);
}

/** The source's device, or why there is none. */
async function deviceFrom(source: DeviceSource): Promise<Device | string> {
  let module: Record<string, unknown>;
  try {
    module = await importByName(source.packageName);
  } catch (e) {
    const install = `npm install ${source.packageName}${source.alsoInstall}`;
    return isPackageNotFound(e, source.packageName)
      ? `${source.packageName} is not installed (${install})`
      : `${source.packageName} could not be loaded: ${firstLine(e)}`;
  }
  return source.open(module);
}

/**
 * `import(name)` with a name bundlers do not try to resolve at build time: a package the app
 * did not install must not break its build, only leave that kind of device out.
 */
function importByName(name: string): Promise<Record<string, unknown>> {
  return import(/* @vite-ignore */ /* webpackIgnore: true */ name);
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0];
