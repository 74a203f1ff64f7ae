/**
 * Finds audio inside files that must not hold any (reports, statements, exports):
 * container magic numbers (WAV, Ogg/Opus, FLAC, MP3) and their base64 forms, in the
 * raw bytes and inside every Flate-compressed PDF stream (attachments are compressed,
 * so a raw scan alone would miss an embedded recording).
 */
import { inflateSync } from 'node:zlib';

const MAGIC: [string, Buffer][] = [
  ['RIFF/WAVE', Buffer.from('WAVEfmt ', 'latin1')],
  ['OggS', Buffer.from('OggS', 'latin1')],
  ['fLaC', Buffer.from('fLaC', 'latin1')],
  ['ID3', Buffer.from('ID3\u0003', 'latin1')],
  ['ID3', Buffer.from('ID3\u0004', 'latin1')],
  // base64 of "RIFF....WAVE" headers and of "OggS" pages, as they would appear in JSON.
  ['base64 RIFF', Buffer.from('UklGR', 'latin1')],
  ['base64 OggS', Buffer.from('T2dnU', 'latin1')],
  ['base64 fLaC', Buffer.from('ZkxhQ', 'latin1')],
];

function scan(buf: Buffer, where: string, found: string[]): void {
  for (const [name, magic] of MAGIC) if (buf.includes(magic)) found.push(`${name} in ${where}`);
}

/** The decompressed contents of a PDF's Flate streams (others are scanned raw). */
export function pdfStreams(pdf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  const text = pdf.toString('latin1');
  const re = /stream\r?\n/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const start = m.index + m[0].length;
    const end = text.indexOf('endstream', start);
    if (end < 0) break;
    const raw = pdf.subarray(start, end);
    try {
      out.push(inflateSync(raw));
    } catch {
      out.push(raw);
    }
    re.lastIndex = end;
  }
  return out;
}

/** Descriptions of every audio signature found; empty when the file holds no audio. */
export function audioMagicIn(buf: Buffer): string[] {
  const found: string[] = [];
  scan(buf, 'raw bytes', found);
  if (buf.subarray(0, 5).toString('latin1') === '%PDF-') pdfStreams(buf).forEach((s, i) => scan(s, `PDF stream ${i}`, found));
  return found;
}
