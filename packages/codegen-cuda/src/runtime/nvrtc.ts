/**
 * NVRTC, CUDA's runtime compiler (`libnvrtc.so`, part of the CUDA toolkit, not of the driver),
 * bound through koffi: CUDA C++ source in, a cubin (machine code for one architecture) out.
 *
 * Where it is looked for, in order: `LOOM_NVRTC` (a path or a soname: then only there), the
 * library search path (`libnvrtc.so`, `libnvrtc.so.13`, `libnvrtc.so.12`), then the `lib64`
 * folders of `$CUDA_HOME`, `$CUDA_PATH` and `/usr/local/cuda`. The toolkit folder it was found
 * in also gives the include path for `cuda_fp16.h`.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { LibraryHandle } from 'koffi';
import { declareType, firstLine, loadFailure, loadKoffi, type Koffi } from './native.ts';

/** An nvrtcProgram, as the pointer value koffi gives. */
type ProgramHandle = bigint;

/** The NVRTC functions the runtime calls; each returns an nvrtcResult (0 is NVRTC_SUCCESS). */
export interface NvrtcApi {
  nvrtcVersion(major: Int32Array, minor: Int32Array): number;
  nvrtcGetErrorString(code: number): string;
  nvrtcCreateProgram(
    program: BigUint64Array,
    source: string,
    name: string,
    headerCount: 0,
    headers: null,
    includeNames: null,
  ): number;
  nvrtcCompileProgram(program: ProgramHandle, optionCount: number, options: string[]): number;
  nvrtcGetProgramLogSize(program: ProgramHandle, size: BigUint64Array): number;
  nvrtcGetProgramLog(program: ProgramHandle, log: Uint8Array): number;
  nvrtcGetCUBINSize(program: ProgramHandle, size: BigUint64Array): number;
  nvrtcGetCUBIN(program: ProgramHandle, cubin: Uint8Array): number;
  nvrtcGetPTXSize(program: ProgramHandle, size: BigUint64Array): number;
  nvrtcGetPTX(program: ProgramHandle, ptx: Uint8Array): number;
  nvrtcDestroyProgram(program: BigUint64Array): number;
  /** CUDA 11.2 and later: the architectures it compiles for. */
  nvrtcGetNumSupportedArchs?(count: Int32Array): number;
  nvrtcGetSupportedArchs?(archs: Int32Array): number;
}

const PROTOTYPES: Record<keyof NvrtcApi, string> = {
  nvrtcVersion: 'nvrtcResult nvrtcVersion(void *major, void *minor)',
  nvrtcGetErrorString: 'const char *nvrtcGetErrorString(nvrtcResult code)',
  nvrtcCreateProgram:
    'nvrtcResult nvrtcCreateProgram(void *program, const char *source, const char *name, int headerCount, void *headers, void *includeNames)',
  nvrtcCompileProgram: 'nvrtcResult nvrtcCompileProgram(nvrtcProgram program, int optionCount, const char **options)',
  nvrtcGetProgramLogSize: 'nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram program, void *size)',
  nvrtcGetProgramLog: 'nvrtcResult nvrtcGetProgramLog(nvrtcProgram program, void *log)',
  nvrtcGetCUBINSize: 'nvrtcResult nvrtcGetCUBINSize(nvrtcProgram program, void *size)',
  nvrtcGetCUBIN: 'nvrtcResult nvrtcGetCUBIN(nvrtcProgram program, void *cubin)',
  nvrtcGetPTXSize: 'nvrtcResult nvrtcGetPTXSize(nvrtcProgram program, void *size)',
  nvrtcGetPTX: 'nvrtcResult nvrtcGetPTX(nvrtcProgram program, void *ptx)',
  nvrtcDestroyProgram: 'nvrtcResult nvrtcDestroyProgram(void *program)',
  nvrtcGetNumSupportedArchs: 'nvrtcResult nvrtcGetNumSupportedArchs(void *count)',
  nvrtcGetSupportedArchs: 'nvrtcResult nvrtcGetSupportedArchs(void *archs)',
};

const OPTIONAL = new Set<keyof NvrtcApi>(['nvrtcGetNumSupportedArchs', 'nvrtcGetSupportedArchs']);

/** NVRTC as loaded: the bound API, its version, where it was found, and CUDA's include folder if one was found. */
export interface Nvrtc {
  readonly api: NvrtcApi;
  /** `[major, minor]`, e.g. `[13, 0]`. */
  readonly version: readonly [number, number];
  /** The name or path it was loaded by. */
  readonly library: string;
  /** The folder holding `cuda_fp16.h`, passed to NVRTC as `-I`; undefined when none was found (NVRTC may have its own). */
  readonly includeDir: string | undefined;
  /** The architectures it compiles for (`90` for sm_90), ascending; empty when it cannot say (before CUDA 11.2). */
  readonly architectures: readonly number[];
}

/** The toolkit folders searched after the library search path: `$CUDA_HOME`, `$CUDA_PATH`, `/usr/local/cuda`. */
function toolkitRoots(env: NodeJS.ProcessEnv): string[] {
  const roots = [env.CUDA_HOME, env.CUDA_PATH, '/usr/local/cuda'].filter((r): r is string => !!r);
  return [...new Set(roots)];
}

const SONAMES = ['libnvrtc.so', 'libnvrtc.so.13', 'libnvrtc.so.12'];

/** Where NVRTC is looked for, in order (see the module's comment). */
export function nvrtcCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.LOOM_NVRTC) return [env.LOOM_NVRTC];
  const inToolkits = toolkitRoots(env).flatMap((root) => SONAMES.map((name) => path.join(root, 'lib64', name)));
  return [...SONAMES, ...inToolkits];
}

let loaded: { nvrtc: Nvrtc } | { failure: string } | undefined;

/** NVRTC, loaded on first use, or a one-line reason why it cannot be. */
export function loadNvrtc(): { nvrtc: Nvrtc } | { failure: string } {
  loaded ??= loadNvrtcFrom(nvrtcCandidates());
  return loaded;
}

/** NVRTC from the first of `candidates` that loads (not remembered: `loadNvrtc` is what the runtime uses). */
export function loadNvrtcFrom(candidates: readonly string[]): { nvrtc: Nvrtc } | { failure: string } {
  const k = loadKoffi();
  if ('failure' in k) return k;
  const { koffi } = k;
  const tried: string[] = [];
  for (const name of candidates) {
    // a full path that is not there needs no dlopen to say so
    if (name.includes('/') && !existsSync(name)) {
      tried.push(`${name} (not found)`);
      continue;
    }
    let library: LibraryHandle;
    try {
      // NVRTC loads its builtins library by name: load it first from NVRTC's own folder
      if (name.includes('/')) preloadBuiltins(koffi, path.dirname(name));
      library = koffi.load(name);
    } catch (e) {
      tried.push(`${name} (${loadFailure(e)})`);
      continue;
    }
    try {
      return { nvrtc: describe(bind(koffi, library), name) };
    } catch (e) {
      return { failure: `${name} does not provide NVRTC: ${firstLine(e)}` };
    }
  }
  return {
    failure: `no NVRTC (CUDA's runtime compiler, in the CUDA toolkit; LOOM_NVRTC names it): could not load ${tried.join(', ')}`,
  };
}

/**
 * NVRTC opens `libnvrtc-builtins.so.<version>` by name when it compiles; loaded from a folder
 * that is not on the library search path, it would not find it there. Loading it first, from
 * that folder, makes the later open by name find it already loaded. Best effort: a toolkit
 * that links it differently loses nothing.
 */
function preloadBuiltins(koffi: Koffi, folder: string): void {
  let names: string[];
  try {
    names = readdirSync(folder).filter((n) => /^libnvrtc-builtins\.so\.\d+\.\d+$/.test(n));
  } catch {
    return;
  }
  for (const n of names) {
    try {
      koffi.load(path.join(folder, n));
    } catch {
      // the compile will say what is missing
    }
  }
}

function bind(koffi: Koffi, library: LibraryHandle): NvrtcApi {
  declareType(koffi, 'nvrtcResult', () => koffi.alias('nvrtcResult', 'int'));
  declareType(koffi, 'nvrtcProgram', () => koffi.pointer('nvrtcProgram', koffi.opaque()));
  const api: Partial<Record<keyof NvrtcApi, unknown>> = {};
  for (const [name, prototype] of Object.entries(PROTOTYPES) as [keyof NvrtcApi, string][]) {
    try {
      api[name] = library.func(prototype);
    } catch (e) {
      if (!OPTIONAL.has(name)) throw e;
    }
  }
  return api as NvrtcApi;
}

function describe(api: NvrtcApi, library: string): Nvrtc {
  const major = new Int32Array(1);
  const minor = new Int32Array(1);
  const code = api.nvrtcVersion(major, minor);
  if (code !== 0) throw new Error(`nvrtcVersion failed: ${api.nvrtcGetErrorString(code)}`);
  return {
    api,
    version: [major[0], minor[0]],
    library,
    includeDir: includeDir(library),
    architectures: architectures(api),
  };
}

function architectures(api: NvrtcApi): number[] {
  if (!api.nvrtcGetNumSupportedArchs || !api.nvrtcGetSupportedArchs) return [];
  const count = new Int32Array(1);
  if (api.nvrtcGetNumSupportedArchs(count) !== 0 || count[0] <= 0) return [];
  const archs = new Int32Array(count[0]);
  if (api.nvrtcGetSupportedArchs(archs) !== 0) return [];
  return [...archs].sort((a, b) => a - b);
}

/** The include folder beside the lib64 NVRTC came from, else the first toolkit's, that holds `cuda_fp16.h`. */
function includeDir(library: string): string | undefined {
  const beside = library.includes('/') ? [path.join(path.dirname(path.dirname(library)), 'include')] : [];
  const candidates = [...beside, ...toolkitRoots(process.env).map((root) => path.join(root, 'include'))];
  return candidates.find((dir) => existsSync(path.join(dir, 'cuda_fp16.h')));
}

/**
 * What to compile for a device of compute capability `major.minor`: its own machine code
 * (`sm_XY`, a cubin) when NVRTC knows the architecture; otherwise (a device newer than NVRTC)
 * PTX for the newest architecture NVRTC knows below it (`compute_XY`: PTX runs on later
 * architectures, the driver compiling it on loading); a device older than every architecture
 * NVRTC knows cannot be compiled for: a reason.
 */
export function chooseArchitecture(
  nvrtc: Pick<Nvrtc, 'architectures' | 'version'>,
  major: number,
  minor: number,
): { option: string; output: 'cubin' | 'ptx' } | string {
  const wanted = major * 10 + minor;
  const known = nvrtc.architectures;
  if (known.length === 0 || known.includes(wanted))
    return { option: `--gpu-architecture=sm_${wanted}`, output: 'cubin' };
  const below = known.filter((arch) => arch < wanted);
  if (below.length > 0) return { option: `--gpu-architecture=compute_${below[below.length - 1]}`, output: 'ptx' };
  return `NVRTC ${nvrtc.version.join('.')} does not compile for compute capability ${major}.${minor} (sm_${wanted}); it knows sm_${known.join(', sm_')}`;
}
