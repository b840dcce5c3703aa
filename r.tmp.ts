import { cpuDevice } from '@loom/codegen-js';
import { testDevices } from './test/support/devices.ts';
import { FeatureSet, limitsOf, runSeed, formatReport, caseHasFinding } from './test/support/differential/index.ts';
const devices = testDevices();
for (const [tag, features] of [['all', new FeatureSet(['warnedRaces'])], ['wgsl', new FeatureSet(['warnedRaces', ...devices.flatMap((d) => limitsOf(d))])]] as const)
for (const seed of process.argv.slice(2).map(Number)) {
  for (const r of await runSeed(seed, features, devices, cpuDevice())) {
    console.log(tag, seed, r.kcase.dtype, r.reference?.kind ?? '', r.devices.map((d) => `${d.device.slice(0, 6)}:${d.outcome.kind}${d.outcome.kind !== 'agree' ? ' ' + ((d.outcome as any).message ?? '').slice(0, 150) : ''}`).join(' | '));
    if (caseHasFinding(r)) console.log(formatReport(r));
  }
}
