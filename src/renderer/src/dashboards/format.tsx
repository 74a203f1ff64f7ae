import { type JSX } from 'react';
import { fmt, fmtCi, fmtPercent, fmtPValue, fmtSigned } from '../../../shared/charts';

type Kind = 'num' | 'signed' | 'p' | 'percent' | 'int';

function full(x: number | null | undefined): string | undefined {
  return x === null || x === undefined || !Number.isFinite(x) ? undefined : String(x);
}

/** A rounded number with its full precision on hover (title). */
export function Num({ value, kind = 'num' }: { value: number | null | undefined; kind?: Kind }): JSX.Element {
  const text =
    // "< 0.001" stays on one line in a narrow column.
    kind === 'signed' ? fmtSigned(value) : kind === 'p' ? fmtPValue(value).replace(' ', '\u00a0') : kind === 'percent' ? fmtPercent(value) : kind === 'int' ? (value ?? '–').toLocaleString('en') : fmt(value);
  return <span title={kind === 'percent' && value !== null && value !== undefined ? `${full(value * 100)}%` : full(value)}>{text}</span>;
}

export function Ci({ ci, percent = false }: { ci: [number, number] | null | undefined; percent?: boolean }): JSX.Element {
  if (!ci) return <span>–</span>;
  const k = percent ? 100 : 1;
  return <span title={`[${ci[0] * k}, ${ci[1] * k}]`}>{percent ? `[${fmt(ci[0] * 100)}, ${fmt(ci[1] * 100)}]%` : fmtCi(ci)}</span>;
}
