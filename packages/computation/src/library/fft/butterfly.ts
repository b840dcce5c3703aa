/**
 * The instructions of one small DFT in a work-item's registers: R complex private values in,
 * R out, forward (exp(-2 pi i r s / R)). A prime R is computed directly (R - 1 products per
 * output); a composite R by decimation in time over its smallest prime factor p: p DFTs of
 * R/p on the interleaved inputs, their outputs multiplied by exp(-2 pi i c k / R), then R/p
 * DFTs of p. Radix 16 is thus four stages of radix-2 butterflies, as a hand-written FFT
 * would have them, with exact 1, -1 and -i where the factors are those.
 */

/** One instruction's text and the private value it defines. */
export interface Butterfly {
  /** Instruction lines (`<ctype> name = expression {inames=...}`), in order. */
  readonly lines: string[];
  /** The names of the R outputs, output s at index s. */
  readonly outputs: string[];
}

/** A real literal: the value as the shortest text that reads back as the same float64. */
function literal(x: number): string {
  const s = String(x);
  return s.includes('e') || s.includes('.') ? s : `${s}.0`;
}

/** A term of a sum: a value, and whether it is subtracted. */
interface Term {
  readonly value: string;
  readonly negated: boolean;
}

/** `value * exp(-2 pi i k / n)`, with no product where the factor is 1, -1, -i or i. */
export function rotate(value: string, k: number, n: number): Term {
  const q = (((k % n) + n) % n) * 4;
  if (q % n === 0) {
    // quarter turns: 1, -i, -1, i
    const quarter = q / n;
    const turned = quarter % 2 === 0 ? value : `${value} * (-1j)`;
    return { value: turned, negated: quarter >= 2 };
  }
  const a = (2 * Math.PI * (k % n)) / n;
  const re = Math.cos(a);
  const im = -Math.sin(a);
  return { value: `${value} * (${literal(re)} ${im < 0 ? '-' : '+'} ${literal(Math.abs(im))}j)`, negated: false };
}

/** The sum of terms as text: `a + b - c`. */
function sum(terms: readonly Term[]): string {
  return terms
    .map((t, k) => (k === 0 ? (t.negated ? `-(${t.value})` : t.value) : `${t.negated ? '-' : '+'} ${t.value}`))
    .join(' ');
}

function smallestPrimeFactor(n: number): number {
  for (let p = 2; p * p <= n; p++) if (n % p === 0) return p;
  return n;
}

/**
 * The DFT of `inputs` (names of complex private values) as instructions defining new private
 * values named `${prefix}_...`, of `ctype`, within `inames` (the attribute's value).
 */
export function butterfly(inputs: readonly string[], prefix: string, ctype: string, inames: string): Butterfly {
  const lines: string[] = [];
  let counter = 0;
  const define = (value: string): string => {
    const name = `${prefix}_${counter++}`;
    lines.push(`<${ctype}> ${name} = ${value} {inames=${inames}}`);
    return name;
  };
  const dft = (xs: readonly string[]): string[] => {
    const r = xs.length;
    if (r === 1) return [...xs];
    const p = smallestPrimeFactor(r);
    if (p === r) {
      return Array.from({ length: r }, (_, s) =>
        define(sum(xs.map((x, k) => (k === 0 ? { value: x, negated: false } : rotate(x, k * s, r))))),
      );
    }
    const m = r / p;
    const subs = Array.from({ length: p }, (_, c) => dft(xs.filter((_, j) => j % p === c)));
    const out = new Array<string>(r);
    for (let k1 = 0; k1 < m; k1++) {
      const z = subs.map((y, c) => (c * k1 === 0 ? y[k1] : define(sum([rotate(y[k1], c * k1, r)]))));
      dft(z).forEach((y, k2) => {
        out[k1 + m * k2] = y;
      });
    }
    return out;
  };
  const outputs = dft(inputs);
  return { lines, outputs };
}
