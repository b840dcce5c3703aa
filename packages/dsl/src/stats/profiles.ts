/**
 * Device profiles for `loom stats` and `estimateTime`:
 *
 *  - committed: measured by `bench/roofline.ts --full` on the GPU machine and kept in the
 *    repository, one JSON file per device in `packages/dsl/profiles/` (or
 *    `$LOOM_PROFILES_DIR`), found by the device's name or a part of it
 *    (`deviceProfile('H100 80GB HBM3 (NVIDIA CUDA)')`);
 *  - cached: measured on a device here (`--device cpu|c|opencl|cuda|webgpu`) once and kept on disk,
 *    in `$LOOM_CACHE_DIR/device-profiles.json` (default `~/.cache/loom/`), by device name;
 *  - written down: any JSON file `{ device, bandwidth, flopRate, launchOverhead }` (`--profile`).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LoomError, measureDeviceProfile, type Device, type DeviceProfile } from '@loom/core';
import { deviceOfKindOrReason, type DeviceKind } from '../any-device.ts';
import { cacheDir, readCacheFile, updateCacheFile, warnCache } from '../cache/cache-file.ts';

export type { DeviceKind } from '../any-device.ts';
/** The kinds `--device` takes. */
export const DEVICE_KINDS: readonly DeviceKind[] = ['cpu', 'c', 'opencl', 'cuda', 'webgpu'];

/** Where the committed profiles live: `packages/dsl/profiles/` (from src/stats and dist/stats alike), or `$LOOM_PROFILES_DIR`. */
export function profilesDir(): string {
  return process.env.LOOM_PROFILES_DIR || fileURLToPath(new URL('../../profiles/', import.meta.url));
}

/** A profile written down: `{ device, bandwidth, flopRate, launchOverhead }` (other fields are notes). */
export function readProfile(file: string): DeviceProfile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new LoomError(`cannot read the profile ${file}: ${(e as Error).message}`);
  }
  return profileOf(json, file);
}

function profileOf(json: unknown, where: string): DeviceProfile {
  const p = (json ?? {}) as Partial<DeviceProfile>;
  const ok =
    typeof p.device === 'string' &&
    [p.bandwidth, p.flopRate, p.launchOverhead].every((x) => typeof x === 'number' && x >= 0);
  if (!ok || !(p.bandwidth! > 0 && p.flopRate! > 0)) {
    throw new LoomError(
      `${where} is not a device profile: it needs { "device": name, "bandwidth": bytes/s, "flopRate": flop/s, "launchOverhead": s }`,
    );
  }
  return { device: p.device!, bandwidth: p.bandwidth!, flopRate: p.flopRate!, launchOverhead: p.launchOverhead! };
}

/** The file a device's committed profile has: its name in lower case, runs of other characters as '-'. */
export function profileFileName(deviceName: string): string {
  const slug = deviceName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `${slug || 'device'}.json`;
}

/**
 * Writes `profile` as the committed profile of its device (in `dir`, default `profilesDir()`),
 * with `notes` beside the figures (when and how it was measured). Returns the file's path.
 */
export function writeProfile(
  profile: DeviceProfile,
  notes: Readonly<Record<string, string | number | boolean>> = {},
  dir: string = profilesDir(),
): string {
  profileOf(profile, `the profile of '${profile.device}'`); // refuse to write one that cannot be read back
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, profileFileName(profile.device));
  const { device, bandwidth, flopRate, launchOverhead } = profile;
  writeFileSync(file, `${JSON.stringify({ device, bandwidth, flopRate, launchOverhead, ...notes }, null, 2)}\n`);
  return file;
}

/** Every committed profile (in `dir`, default `profilesDir()`), with the file it came from. */
export function committedProfiles(dir: string = profilesDir()): { file: string; profile: DeviceProfile }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ file: path.join(dir, f), profile: readProfile(path.join(dir, f)) }));
}

/**
 * A profile by file or by device name: `nameOrFile` is a JSON file if one is there, else the
 * committed profile whose device has that name, or the only one whose name contains it
 * (case aside): `estimateTime(knl, deviceProfile('OpenCL: NVIDIA H100'), { n: 4096 })`.
 */
export function deviceProfile(nameOrFile: string, dir: string = profilesDir()): DeviceProfile {
  if (existsSync(nameOrFile)) return readProfile(nameOrFile);
  const all = committedProfiles(dir);
  const exact = all.find((p) => p.profile.device === nameOrFile);
  if (exact) return exact.profile;
  const part = nameOrFile.toLowerCase();
  const matches = all.filter((p) => p.profile.device.toLowerCase().includes(part));
  if (matches.length === 1) return matches[0]!.profile;
  const known = all.map((p) => `'${p.profile.device}'`).join(', ') || 'none';
  if (matches.length > 1)
    throw new LoomError(
      `the profile '${nameOrFile}' is ambiguous: ${matches.map((p) => `'${p.profile.device}'`).join(', ')} match it; give more of the name`,
    );
  throw new LoomError(
    `cannot read the profile ${nameOrFile}: it is no file, and no committed profile's device is called so (committed in ${dir}: ${known})`,
  );
}

/** The device of that kind (its package must be installed, its driver present), as `anyDevice` finds it. */
export async function deviceOfKind(kind: DeviceKind): Promise<Device> {
  const found = await deviceOfKindOrReason(kind);
  if (typeof found === 'string') throw new LoomError(`--device ${kind}: ${found}`);
  return found;
}

/** Where a profile came from: this machine's cache, the repository, or a measurement just made. */
export type ProfileSource = 'cache' | 'committed' | 'measured';

/**
 * The device's profile: from the disk cache, else the committed one of a device of that very
 * name, else measured now and added to the cache (`onMeasuring` is told first: it takes seconds).
 */
export async function cachedProfile(
  device: Device,
  onMeasuring?: (file: string) => void,
): Promise<{ profile: DeviceProfile; source: ProfileSource }> {
  const file = path.join(cacheDir(), 'device-profiles.json');
  // every entry is checked, the others kept as they are when the file is rewritten
  const all = readCacheFile(file);
  const known = all.get(device.name);
  if (known !== undefined) {
    try {
      return { profile: profileOf(known, `its entry '${device.name}'`), source: 'cache' };
    } catch (e) {
      if (!(e instanceof LoomError)) throw e;
      warnCache(file, `${e.message}; it is measured again`);
    }
  }
  const committed = committedProfiles().find((p) => p.profile.device === device.name);
  if (committed) return { profile: committed.profile, source: 'committed' };
  onMeasuring?.(file);
  const profile = await measureDeviceProfile(device);
  // added to what the file holds by now (another process may have written it while this one measured)
  updateCacheFile(file, (entries) => entries.set(device.name, profile));
  return { profile, source: 'measured' };
}
