import { type JSX } from 'react';
import { fmt, fmtCi, fmtPercent, fmtPValue, fmtSigned } from '../../../shared/charts/format';

type Kind = 'plain' | 'signed' | 'p' | 'percent' | 'int';

/** A number rounded for reading, with full precision on hover (title). */
export function Num({ value, kind = 'plain' }: { value: number | null | undefined; kind?: Kind }): JSX.Element {
  const text =
    kind === 'signed' ? fmtSigned(value) : kind === 'p' ? fmtPValue(value) : kind === 'percent' ? fmtPercent(value) : kind === 'int' ? (value ?? '–').toLocaleString() : fmt(value);
  return (
    <span className="num" title={value === null || value === undefined ? 'no value' : String(value)}>
      {text}
    </span>
  );
}

export function Ci({ value }: { value: [number, number] | null | undefined }): JSX.Element {
  return (
    <span className="num" title={value ? `${value[0]} to ${value[1]}` : 'no interval'}>
      {fmtCi(value)}
    </span>
  );
}
