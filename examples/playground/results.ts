/** How the playground shows outputs compared element by element (the kernel and pointwise tabs). */
import { TOLERANCE, type Comparison, type Devices } from './check.ts';

/** One line per output: how many elements, how many differ, and the first few of each device. */
export function showComparisons(target: HTMLElement, comparisons: readonly Comparison[], devices: Devices): void {
  target.replaceChildren();
  target.dataset.state = comparisons.some((c) => c.mismatches.length > 0) ? 'mismatch' : 'ok';
  for (const c of comparisons) {
    const line = document.createElement('p');
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

/** The first few values, short. */
export function first(values: readonly number[]): string {
  return values
    .slice(0, 4)
    .map((v) => v.toPrecision(5))
    .join(', ');
}
