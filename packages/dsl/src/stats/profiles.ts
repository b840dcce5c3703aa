/**
 * Device profiles for `loom stats`: read from a JSON file (`--profile`), or measured on a
 * device (`--device cpu|opencl|webgpu`) once and kept on disk, in
 * `$LOOM_CACHE_DIR/device-profiles.json` (default `~/.cache/loom/`), by device name.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { isPackageNotFound, LoomError, measureDeviceProfile, type Device, type DeviceProfile } from '@loom/core';

export type DeviceKind = 'cpu' | 'opencl' | 'webgpu';
export const DEVICE_KINDS: readonly DeviceKind[] = ['cpu', 'opencl', 'webgpu'];

/** A profile written down: `{ device, bandwidth, flopRate, launchOverhead }`. */
export function readProfile(file: string): DeviceProfile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new LoomError(`cannot read the profile ${file}: ${(e as Error).message}`);
  }
  const p = json as Partial<DeviceProfile>;
  const ok = typeof p.device === 'string' && [p.bandwidth, p.flopRate, p.launchOverhead].every((x) => typeof x === 'number' && x >= 0);
  if (!ok || !(p.bandwidth! > 0 && p.flopRate! > 0)) {
    throw new LoomError(`${file} is not a device profile: it needs { "device": name, "bandwidth": bytes/s, "flopRate": flop/s, "launchOverhead": s }`);
  }
  return { device: p.device!, bandwidth: p.bandwidth!, flopRate: p.flopRate!, launchOverhead: p.launchOverhead! };
}

/** The device of that kind (its package must be installed, its driver present). */
export async function deviceOfKind(kind: DeviceKind): Promise<Device> {
  const load = async <T>(pkg: string, f: (m: T) => Device | undefined | Promise<Device | undefined>): Promise<Device> => {
    let module: T;
    try {
      module = (await import(pkg)) as T;
    } catch (e) {
      if (isPackageNotFound(e, pkg)) throw new LoomError(`--device ${kind} needs the package ${pkg}, which is not installed`);
      throw e;
    }
    const device = await f(module);
    if (!device) throw new LoomError(`--device ${kind}: no such device here (no driver found)`);
    return device;
  };
  if (kind === 'cpu') return load('@loom/codegen-js', (m: { cpuDevice: () => Device }) => m.cpuDevice());
  if (kind === 'opencl') return load('@loom/codegen-opencl', (m: { openclDevice: () => Device | undefined }) => m.openclDevice());
  return load('@loom/codegen-wgsl', (m: { webgpuDevice: () => Promise<Device | undefined> }) => m.webgpuDevice());
}

/** The device's profile from the disk cache, or measured and added to it. */
export async function cachedProfile(device: Device): Promise<{ profile: DeviceProfile; measured: boolean }> {
  const dir = process.env.LOOM_CACHE_DIR || path.join(homedir(), '.cache', 'loom');
  const file = path.join(dir, 'device-profiles.json');
  let all: Record<string, DeviceProfile> = {};
  if (existsSync(file)) {
    try {
      all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, DeviceProfile>;
    } catch {
      all = {}; // a broken cache is measured again
    }
  }
  const known = all[device.name];
  if (known) return { profile: known, measured: false };
  const profile = await measureDeviceProfile(device);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify({ ...all, [device.name]: profile }, null, 2)}\n`);
  return { profile, measured: true };
}
